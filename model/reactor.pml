/*
 * The reactor loop's publication/wait protocol and its close, for Spin.
 * model/README.md maps every action to the Go code (reactor/, internal/client/).
 *
 * Processes: Loop (the state owner: reactor.Loop.run), Waiter (an application
 * call in Engine.WaitFor), Caller (CommitSync: EngineSide.Call, released by a
 * reply effect), Closer (Close: EngineSide.CloseOnEngine), Broker (answers
 * requests; may move the coordinator once), Clock (the close sequence's two
 * deadlines pass, in order).
 *
 * Mutants (compile with -D<NAME>; each must violate a property):
 *   CHECK_FIRST     the waiter evaluates its condition on the current
 *                   publication, then takes the channel (invariant 5)
 *   EFFECTS_FIRST   the loop runs a step's effects, then publishes (invariant 4)
 *   STOP_DISCOVERY  coordinator discovery stops once close starts, even while
 *                   a commit still needs the coordinator (invariant 7)
 *   SPURIOUS_WAKE   the loop's wait may return with an empty inbox and no
 *                   deadline passed (invariant 2)
 */

#define NPUB 16          /* publications the model can make (asserted) */

mtype = { EV_RELEASE, EV_COMMIT, EV_CLOSE, R_FIND, R_COMMIT_OK, R_COMMIT_NOTCOORD, R_LEAVE };
mtype = { Q_FIND, Q_COMMIT, Q_LEAVE };

chan inbox = [6] of { mtype };   /* Engine.inbox: observations */
chan net = [3] of { mtype };     /* Transport.Send: requests in flight */
chan reply = [1] of { byte };    /* the commit's reply channel (Call's result) */
chan closeDone = [1] of { bit }; /* CloseSequence.Done */

/* The current publication (Engine.cur) and its generation: a waiter that
 * took generation g waits for gen != g (the channel of publication g is
 * closed when it is replaced). A publication never changes, and no one
 * reads a replaced one's fields after taking it (the take copies them in
 * the same atomic step), so only the current one is kept. */
byte gen = 0;
byte pubVersion = 0;      /* Decision.Version */
bool pubReleased = false; /* the snapshot field the waiter's condition reads */
bool pubClosed = false;   /* Decision.Closed */
bool loopDone = false;    /* Engine.done closed */

/* Clock: the close sequence's deadlines (PreLeaveDeadline, then the end). */
bool closeStarted = false;
bool leaveAtPassed = false;
bool endPassed = false;

/* Observed by the properties. */
bool wBlocked = false;    /* the waiter is in select on its channel */
bool closeCalled = false;
bool closeReturned = false;

#define wStuck (wBlocked && (pubReleased || pubClosed))

/* The waiter never stays blocked while the current publication satisfies
 * its condition (or is the closed one). */
ltl no_lost_wakeup { [] (wStuck -> <> !wBlocked) }
/* Close returns (by its deadline) once called. */
ltl close_returns { [] (closeCalled -> <> closeReturned) }

proctype Loop(bool coordInit) {
	/* state owned by the loop (Core and managers) */
	byte version = 0;
	bool released = false;
	bool coordKnown = coordInit, findInFlight = false;
	bool commitPending = false, commitInFlight = false;
	bool closing = false, leaveStarted = false, leaveSent = false, left = false, stopping = false;
	bool nowLeave, nowEnd, discover, needsCoord;
	byte wake = 0;             /* Decision.Wake: 0 none, 1 PreLeaveDeadline, 2 end */
	byte effReply = 0;         /* queued effects: version queued at (0: none) */
	byte effDone = 0;
	mtype m;

	do
	:: /* Driver.Step: drain the inbox, apply each observation at now. */
		atomic {
			nowLeave = leaveAtPassed; nowEnd = endPassed;
			do
			:: len(inbox) > 0 ->
				inbox?m; version++;
				if
				:: m == EV_RELEASE -> released = true
				:: m == EV_COMMIT && !leaveStarted -> commitPending = true
				:: m == EV_COMMIT && leaveStarted ->   /* Release: ErrClosed once the leave started */
					effReply = version
				:: m == EV_CLOSE -> closing = true; closeStarted = true
				:: m == R_FIND -> findInFlight = false; coordKnown = true
				:: m == R_COMMIT_NOTCOORD -> commitInFlight = false; coordKnown = false
				:: m == R_COMMIT_OK ->
					commitInFlight = false;
					if   /* staleness guard: a commit already failed at the deadline stays failed */
					:: commitPending -> commitPending = false; effReply = version
					:: else -> skip
					fi
				:: m == R_LEAVE -> left = true
				fi
			:: else -> break
			od;

			/* Core.Step: poll the managers (one round suffices here). */
			wake = 0;
			/* close (CloseSequence.Poll): the work before the leave, then the leave */
			if
			:: closing && !leaveStarted && commitPending && !nowLeave -> wake = 1
			:: closing && !leaveStarted && !(commitPending && !nowLeave) ->
				if
				:: commitPending ->   /* FailPending: the callback runs with ErrCloseDeadline */
					commitPending = false; effReply = version
				:: else -> skip
				fi;
				leaveStarted = true
			:: else -> skip
			fi;
			/* coordinator discovery (Group.OutstandingNeedsCoordinator) */
			needsCoord = commitPending || !left;
#ifdef STOP_DISCOVERY
			discover = needsCoord && !closing;
#else
			discover = needsCoord;
#endif
			/* invariant 7: discovery stops only when nothing outstanding needs the coordinator */
			assert(coordKnown || discover || !needsCoord);
			if
			:: !coordKnown && discover && !findInFlight -> findInFlight = true; net!Q_FIND
			:: else -> skip
			fi;
			/* commit manager */
			if
			:: commitPending && coordKnown && !commitInFlight -> commitInFlight = true; net!Q_COMMIT
			:: else -> skip
			fi;
			/* membership: the leave heartbeat */
			if
			:: leaveStarted && !leaveSent && coordKnown ->
				assert(!commitPending);   /* invariant 7: final commit precedes the leave */
				leaveSent = true; net!Q_LEAVE
			:: else -> skip
			fi;
			if
			:: leaveStarted && !stopping && (left || nowEnd) ->
				/* finish: every item of the close list completed or failed */
				assert(!commitPending);
				effDone = version; stopping = true   /* Tx.Stop */
			:: leaveStarted && !stopping && !(left || nowEnd) -> wake = 2
			:: else -> skip
			fi;
			nowLeave = 0; nowEnd = 0; discover = 0; needsCoord = 0; m = 0   /* scratch */
		};

#ifdef EFFECTS_FIRST
		goto effects;
publish:
#endif
		/* Driver.Publish -> Engine.publish: one atomic swap, the old channel closed. */
		atomic {
			assert(gen < NPUB - 1);
			pubVersion = version;
			pubReleased = released;
			pubClosed = stopping;
			gen++
		};
#ifdef EFFECTS_FIRST
		goto advance;
effects:
#endif
		/* Step.RunEffects, in order, each after the publication (invariant 4). */
		if
		:: effReply > 0 -> atomic { assert(pubVersion >= effReply); reply!effReply; effReply = 0 }
		:: else -> skip
		fi;
		if
		:: effDone > 0 -> atomic { assert(pubVersion >= effDone); closeDone!1; effDone = 0 }
		:: else -> skip
		fi;
#ifdef EFFECTS_FIRST
		goto publish;
advance:
#endif
		if
		:: stopping -> break
		:: else -> skip
		fi;

		/* Driver.Wait: an observation, or the decision's Wake passed (invariant 2). */
end_wait:
		if
		:: len(inbox) > 0 -> skip
		:: wake == 1 && leaveAtPassed -> skip
		:: wake == 2 && endPassed -> skip
#ifdef SPURIOUS_WAKE
		:: true -> skip
#endif
		fi;
		assert(len(inbox) > 0 || (wake == 1 && leaveAtPassed) || (wake == 2 && endPassed))
	od;
	loopDone = true   /* close(Engine.done): later completions are dropped */
}

/* Engine.WaitFor(cond): cond(p) = p.Snapshot released; ErrStopped on the
 * closed publication. */
proctype Waiter() {
	byte g, checked;
	bool ok, cl;
	do
	::
#ifdef CHECK_FIRST
		atomic { checked = gen; ok = pubReleased; cl = pubClosed };
		g = gen;                        /* the channel taken after the check */
#else
		/* p := e.cur.Load() (publication and channel), then cond(p): one step,
		 * since cond reads only p, which never changes */
		atomic { g = gen; checked = g; ok = pubReleased; cl = pubClosed }
#endif
		if
		:: ok || cl -> break
		:: else -> skip
		fi;
		/* invariant 5: it waits on the channel of the publication it evaluated */
		assert(checked == g);
		wBlocked = true;
end_blocked:
		atomic { gen != g -> wBlocked = false }   /* <-p.next */
	od
}

/* Submit: ErrStopped once the closed decision is published or the loop exited. */
inline submit(ev, sent) {
	atomic {
		if
		:: pubClosed || loopDone -> sent = false
		:: else -> inbox!ev; sent = true
		fi
	}
}

/* CommitSync through EngineSide.Call: the reply comes from an effect. */
proctype Caller() {
	bool sent;
	byte v;
	submit(EV_COMMIT, sent);
	if
	:: sent ->
end_call:
		if
		:: reply?v -> assert(pubVersion >= v)  /* the release sees its decision published */
		:: loopDone -> skip
		fi
	:: else -> skip
	fi
}

/* Close through EngineSide.CloseOnEngine; the application may never close. */
proctype Closer() {
	bool sent;
	if
	:: true ->
		closeCalled = true;
		submit(EV_CLOSE, sent);
		if
		:: sent ->
end_close:
			if
			:: closeDone?_ -> skip
			:: loopDone -> skip
			fi
		:: else -> skip
		fi;
		closeReturned = true
	:: true -> skip
	fi
}

/* The broker answers every request (completion -> inbox), dropped after the
 * loop exited; it may answer one commit NOT_COORDINATOR (coordinator moved).
 * It also delivers the observation that releases the waiter. */
proctype Broker() {
	bool moved = false;
	atomic { if :: !loopDone -> inbox!EV_RELEASE :: else -> skip fi };
end_broker:
	do
	:: net?Q_FIND -> atomic { if :: !loopDone -> inbox!R_FIND :: else -> skip fi }
	:: net?Q_COMMIT ->
		atomic {
			if
			:: loopDone -> skip
			:: !loopDone && !moved -> moved = true; inbox!R_COMMIT_NOTCOORD
			:: !loopDone -> inbox!R_COMMIT_OK
			fi
		}
	:: net?Q_LEAVE -> atomic { if :: !loopDone -> inbox!R_LEAVE :: else -> skip fi }
	od
}

proctype Clock() {
end_clock:
	closeStarted;
	leaveAtPassed = true;
	endPassed = true
}

init {
	atomic {
		if
		:: run Loop(true)
		:: run Loop(false)
		fi;
		run Waiter(); run Caller(); run Closer(); run Broker(); run Clock()
	}
}
