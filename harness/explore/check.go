package explore

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Anomaly names.
const (
	AnomalyLost            = "lost"
	AnomalyDuplicate       = "duplicate"
	AnomalyNonmonotonic    = "nonmonotonic"
	AnomalySkipped         = "skipped"
	AnomalyCommitPast      = "commit-past-processed"
	AnomalyCommitAfterLeft = "commit-after-leave"
	AnomalyCallbackTwice   = "callback-twice"
	AnomalyCallbackNever   = "callback-never"
	AnomalyClosePast       = "close-past-deadline"
	AnomalyRetryStorm      = "retry-storm"
	AnomalySpin            = "spin"
	AnomalyLeak            = "goroutine-leak"
	AnomalyAckTwice        = "share-ack-twice"
	AnomalyAckLost         = "share-ack-lost"
	AnomalyAckUndelivered  = "share-ack-undelivered"
	AnomalyPanic           = "panic"
)

// Bounds of the checker.
const (
	// CloseTolerance is how far past its deadline a Close may return: in a
	// bubble (virtual time: the same instant is exact) and on the wall
	// clock (scheduling on a shared 2-core machine).
	CloseTolerance     = 50 * time.Millisecond
	CloseToleranceWall = 250 * time.Millisecond
	// CloseToleranceProcess is a process subject's (java): kafka-clients
	// 4.4's close still sends the leave heartbeat at Duration.ZERO and
	// took 250-450 ms inside the JVM for it on kfake, which the project's
	// own contract allows (specs/scenarios/client-close-zero-timeout.yaml
	// bounds close(0) at 1 s); explore judged it by 250 ms at first and
	// called that an anomaly.
	CloseToleranceProcess = time.Second
	// RetryAllowance is added to the retry schedule's most attempts in a
	// fault window: one request straddling each edge of the window and one
	// rediscovery; each other fault starting or ending inside the window
	// adds RetryPerEdge (a dropped connection or a moved coordinator
	// legitimately restarts a request).
	RetryAllowance = 3
	RetryPerEdge   = 2
	// SpinSteps is the most loop steps a member may take in one
	// SampleEvery window (100 ms): a Poll(0) loop with records arriving
	// takes a few hundred; a busy loop takes hundreds of thousands.
	SpinSteps = 2000
	// CommitSkew is how much later than a broker's read of an
	// OffsetCommit the application may record the Poll return that
	// handed the records (wall clock only; 0 in a bubble).
	CommitSkew = 100 * time.Millisecond
)

// retryBoundedKeys are the API keys whose retries follow the retry
// schedule alone: one request outstanding per client, resent after a
// backoff when answered with a retriable error.
var retryBoundedKeys = []kmsg.Key{kmsg.FindCoordinator, kmsg.Metadata, kmsg.OffsetFetch, kmsg.ConsumerGroupHeartbeat, kmsg.ShareGroupHeartbeat}

// Anomaly is one finding with its evidence.
type Anomaly struct {
	Name     string
	Member   string        // "" when not one member's
	At       time.Duration // when it shows (since the start)
	Evidence string
}

func (a Anomaly) String() string {
	who := ""
	if a.Member != "" {
		who = " " + a.Member
	}
	return fmt.Sprintf("%s%s at +%s: %s", a.Name, who, a.At, a.Evidence)
}

// testDetectors are extra detectors a test installs (the exit status test's
// child process); empty otherwise.
var testDetectors []func(*Trace) []Anomaly

// Check runs every detector over the trace and returns the anomalies,
// ordered by time then name.
func Check(tr *Trace) []Anomaly {
	var out []Anomaly
	for _, d := range []func(*Trace) []Anomaly{
		CheckLost, CheckOrder, CheckCommitPastProcessed, CheckCommitAfterLeave, CheckCallbacks,
		CheckClose, CheckRetries, CheckSpin, CheckLeaks, CheckShareAcks, CheckPanics, CheckModelTrace,
	} {
		out = append(out, d(tr)...)
	}
	for _, d := range append(groupDetectors, testDetectors...) {
		out = append(out, d(tr)...)
	}
	slices.SortStableFunc(out, func(a, b Anomaly) int {
		return cmp.Or(cmp.Compare(a.At, b.At), strings.Compare(a.Name, b.Name))
	})
	return out
}

type tp struct {
	topic     string
	partition int32
}

func (t tp) String() string { return fmt.Sprintf("%s[%d]", t.topic, t.partition) }

// delivered returns every offset of every partition any member was handed
// (regular polls), with the first time.
func delivered(tr *Trace) map[tp]map[int64]time.Duration {
	out := map[tp]map[int64]time.Duration{}
	for _, o := range tr.Ops {
		if o.Kind != OpPoll {
			continue
		}
		for _, r := range o.Records {
			k := tp{r.Topic, r.Partition}
			if out[k] == nil {
				out[k] = map[int64]time.Duration{}
			}
			if _, ok := out[k][r.Offset]; !ok {
				out[k][r.Offset] = o.End
			}
		}
	}
	return out
}

// CheckLost: a record below a partition's committed offset (at the end)
// that no member was ever handed. Regular groups only.
func CheckLost(tr *Trace) []Anomaly {
	if tr.History == nil {
		return nil
	}
	got := delivered(tr)
	var out []Anomaly
	for _, c := range tr.History.Committed {
		if c.Group != Group {
			continue
		}
		k := tp{c.Topic, c.Partition}
		var missing []int64
		for o := int64(0); o < c.Offset; o++ {
			if _, ok := got[k][o]; !ok {
				missing = append(missing, o)
			}
		}
		if len(missing) > 0 {
			out = append(out, Anomaly{Name: AnomalyLost, At: c.At, Evidence: fmt.Sprintf(
				"%s committed at %d (+%s) but %d offsets below it were never delivered to any member: %s",
				k, c.Offset, c.At, len(missing), offsetList(missing))})
		}
	}
	return out
}

func offsetList(o []int64) string {
	const show = 8
	var b strings.Builder
	for i, x := range o {
		if i == show {
			fmt.Fprintf(&b, " ... (%d more)", len(o)-show)
			break
		}
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprint(&b, x)
	}
	return b.String()
}

// CheckOrder: within one member's assignment epoch (its assignment as the
// application saw it and, with a probe, its member epoch; a join the
// brokers read, joinTimes, starts a new one), a record handed twice
// (duplicate), an offset below the previous one of its partition
// (nonmonotonic), or above the previous one plus one (skipped). Regular
// groups only (a share group redelivers by design).
func CheckOrder(tr *Trace) []Anomaly {
	type key struct {
		member string
		epoch  EpochKey
		joins  int // the member's joins by then (joinsBy): a rejoin starts a new epoch
		tp     tp
	}
	joins := joinTimes(tr)
	type state struct {
		last int64
		seen map[int64]time.Duration
	}
	st := map[key]*state{}
	var out []Anomaly
	for _, o := range tr.Ops {
		if o.Kind != OpPoll || tr.isShare() {
			continue
		}
		for _, r := range o.Records {
			k := key{o.Member, o.Epoch, joinsBy(joins[o.Member], o.End), tp{r.Topic, r.Partition}}
			s := st[k]
			if s == nil {
				st[k] = &state{last: r.Offset, seen: map[int64]time.Duration{r.Offset: o.End}}
				continue
			}
			ev := fmt.Sprintf("%s offset %d after %d in assignment epoch %+v", k.tp, r.Offset, s.last, o.Epoch)
			switch first, dup := s.seen[r.Offset]; {
			case dup:
				out = append(out, Anomaly{Name: AnomalyDuplicate, Member: o.Member, At: o.End, Evidence: fmt.Sprintf("%s offset %d handed again (first at +%s) in assignment epoch %+v", k.tp, r.Offset, first, o.Epoch)})
			case r.Offset < s.last:
				out = append(out, Anomaly{Name: AnomalyNonmonotonic, Member: o.Member, At: o.End, Evidence: ev})
			case r.Offset > s.last+1:
				out = append(out, Anomaly{Name: AnomalySkipped, Member: o.Member, At: o.End, Evidence: ev + fmt.Sprintf(" (%d skipped)", r.Offset-s.last-1)})
			}
			s.seen[r.Offset] = o.End
			s.last = max(s.last, r.Offset)
		}
	}
	return out
}

// joinTimes returns, per member, when a broker read it joining the group:
// a heartbeat with member epoch 0 (KIP-848; its member id named by the
// group samples) or a JoinGroup (the classic protocol; by client id). A
// member fenced or timed out while the application was not looking joins
// again with the same assignment, which the application may not see
// change between two Polls; its positions restart from the committed
// offsets, so records delivered before the join may come again.
func joinTimes(tr *Trace) map[string][]time.Duration {
	out := map[string][]time.Duration{}
	for _, h := range tr.Heartbeats {
		if name := tr.MemberIDs[h.MemberID]; name != "" && h.Epoch == 0 {
			out[name] = append(out[name], h.At)
		}
	}
	if tr.History != nil {
		for _, r := range tr.History.Requests {
			if r.Key == kmsg.JoinGroup {
				out[r.ClientID] = append(out[r.ClientID], r.At)
			}
		}
	}
	for _, ts := range out {
		slices.Sort(ts)
	}
	return out
}

// joinsBy counts the joins at or before t.
func joinsBy(joins []time.Duration, t time.Duration) int {
	n, _ := slices.BinarySearch(joins, t+1)
	return n
}

func (tr *Trace) isShare() bool {
	for _, o := range tr.Ops {
		if o.Kind == OpAck {
			return true
		}
	}
	return len(tr.Acks) > 0
}

// CheckCommitPastProcessed: an OffsetCommit (as the broker read it) above
// the highest offset any member had been handed by then, plus one.
func CheckCommitPastProcessed(tr *Trace) []Anomaly {
	if tr.History == nil {
		return nil
	}
	skew := time.Duration(0)
	if !tr.Bubble {
		skew = CommitSkew
	}
	var out []Anomaly
	for _, c := range tr.History.CommitRequests {
		if c.Group != Group {
			continue
		}
		bound, by := int64(0), time.Duration(-1)
		for _, o := range tr.Ops {
			if o.Kind != OpPoll || o.End > c.At+skew {
				continue
			}
			for _, r := range o.Records {
				if r.Topic == c.Topic && r.Partition == c.Partition && r.Offset+1 > bound {
					bound, by = r.Offset+1, o.End
				}
			}
		}
		if c.Offset > bound {
			ev := fmt.Sprintf("OffsetCommit of %s[%d]=%d from member %q epoch %d, but the highest offset handed to any member by then was %d (+%s)",
				c.Topic, c.Partition, c.Offset, c.MemberID, c.Epoch, bound-1, by)
			if by < 0 {
				ev = fmt.Sprintf("OffsetCommit of %s[%d]=%d from member %q epoch %d, but no record of it had been handed to any member",
					c.Topic, c.Partition, c.Offset, c.MemberID, c.Epoch)
			}
			out = append(out, Anomaly{Name: AnomalyCommitPast, At: c.At, Evidence: ev})
		}
	}
	return out
}

// CheckCommitAfterLeave: an OffsetCommit carrying a member id whose latest
// heartbeat before it was a leave (member epoch -1 or -2) with no rejoin
// (epoch 0) in between.
func CheckCommitAfterLeave(tr *Trace) []Anomaly {
	if tr.History == nil {
		return nil
	}
	byMember := map[string][]Heartbeat{}
	for _, h := range tr.Heartbeats {
		byMember[h.MemberID] = append(byMember[h.MemberID], h)
	}
	var out []Anomaly
	for _, c := range tr.History.CommitRequests {
		if c.MemberID == "" {
			continue
		}
		var last *Heartbeat
		for i, h := range byMember[c.MemberID] {
			if h.At >= c.At {
				break
			}
			last = &byMember[c.MemberID][i]
		}
		if last != nil && last.Epoch < 0 {
			out = append(out, Anomaly{Name: AnomalyCommitAfterLeft, At: c.At, Evidence: fmt.Sprintf(
				"OffsetCommit of %s[%d]=%d from member %q (epoch %d) read at +%s, after its leave heartbeat (epoch %d) at +%s",
				c.Topic, c.Partition, c.Offset, c.MemberID, c.Epoch, c.At, last.Epoch, last.At)})
		}
	}
	return out
}

// CheckCallbacks: a CommitAsync callback run twice, or not at all by the
// time its member's Close returned.
func CheckCallbacks(tr *Trace) []Anomaly {
	type key struct {
		member string
		id     int
	}
	issued := map[key]time.Duration{}
	runs := map[key][]time.Duration{}
	closed := map[string]time.Duration{}
	for _, o := range tr.Ops {
		k := key{o.Member, o.ID}
		switch o.Kind {
		case OpCommitAsync:
			issued[k] = o.Start
		case OpCallback:
			runs[k] = append(runs[k], o.Start)
		case OpClose:
			closed[o.Member] = o.End
		}
	}
	var out []Anomaly
	for _, k := range slices.SortedFunc(func(yield func(key) bool) {
		for k := range issued {
			if !yield(k) {
				return
			}
		}
	}, func(a, b key) int { return cmp.Or(strings.Compare(a.member, b.member), cmp.Compare(a.id, b.id)) }) {
		r := runs[k]
		switch end, ok := closed[k.member]; {
		case len(r) > 1:
			out = append(out, Anomaly{Name: AnomalyCallbackTwice, Member: k.member, At: r[1], Evidence: fmt.Sprintf("the callback of CommitAsync #%d (+%s) ran %d times, at %v", k.id, issued[k], len(r), r)})
		case len(r) == 0 && ok:
			out = append(out, Anomaly{Name: AnomalyCallbackNever, Member: k.member, At: end, Evidence: fmt.Sprintf("the callback of CommitAsync #%d (+%s) never ran; Close returned at +%s", k.id, issued[k], end)})
		}
	}
	return out
}

// CheckClose: a Close that returned later than its deadline plus the
// tolerance.
func CheckClose(tr *Trace) []Anomaly {
	tol := CloseTolerance
	switch {
	case IsProcess(tr.Subject):
		tol = CloseToleranceProcess
	case !tr.Bubble:
		tol = CloseToleranceWall
	}
	var out []Anomaly
	for _, o := range tr.Ops {
		took := o.End - o.Start
		if o.Inside > 0 {
			took = o.Inside // the client's own time (a process subject: the round trip adds the driver's exit)
		}
		if o.Kind == OpClose && took > o.Timeout+tol {
			out = append(out, Anomaly{Name: AnomalyClosePast, Member: o.Member, At: o.End, Evidence: fmt.Sprintf(
				"Close with a %s deadline returned after %s (tolerance %s; round trip %s), error %q", o.Timeout, took, tol, o.End-o.Start, o.Err)})
		}
	}
	return out
}

// CheckRetries: during a fault that answers a retriable error to every
// request of an API key (or makes the coordinator unavailable:
// FindCoordinator), a client sent more requests of that key than the
// retry schedule allows in the window plus RetryAllowance.
func CheckRetries(tr *Trace) []Anomaly {
	if tr.History == nil {
		return nil
	}
	members := map[string]bool{} // the consumers (client id = member name), not the harness's producer
	for _, o := range tr.Ops {
		members[o.Member] = true
	}
	var out []Anomaly
	for i, f := range tr.Faults {
		var key kmsg.Key
		switch {
		case f.Err != "" || f.To <= f.From:
			continue
		case f.Kind == FaultCoordinatorDown:
			key = kmsg.FindCoordinator
		case f.Kind == FaultError && f.Count == -1 && slices.Contains(retryBoundedKeys, kmsg.Key(f.Key)) && kerr.IsRetriable(kerr.ErrorForCode(f.Code)):
			key = kmsg.Key(f.Key)
		default:
			continue
		}
		allow := RetryAllowance
		for j, g := range tr.Faults {
			if j == i {
				continue
			}
			for _, edge := range []time.Duration{g.From, g.To} {
				if edge >= f.From && edge <= f.To {
					allow += RetryPerEdge
				}
			}
		}
		bound := tr.Retry.MaxAttemptsIn(f.To-f.From) + allow
		per := map[string]int{}
		for _, r := range tr.History.Requests {
			if r.Key == key && r.At >= f.From && r.At <= f.To && members[r.ClientID] {
				per[r.ClientID]++
			}
		}
		for _, client := range slices.Sorted(func(yield func(string) bool) {
			for c := range per {
				if !yield(c) {
					return
				}
			}
		}) {
			if n := per[client]; n > bound {
				out = append(out, Anomaly{Name: AnomalyRetryStorm, Member: client, At: f.To, Evidence: fmt.Sprintf(
					"%d %s requests during the %s fault +%s..+%s (%s): the retry schedule (%s doubling to %s, -20%% jitter) allows %d plus %d",
					n, kmsg.NameForKey(int16(key)), f.Kind, f.From, f.To, f.To-f.From, tr.Retry.Initial, tr.Retry.Max, bound-allow, allow)})
			}
		}
	}
	return out
}

// CheckSpin: a member's loop took more than SpinSteps steps in one
// sampling window (probe subjects only: a black-box subject's is n/a).
func CheckSpin(tr *Trace) []Anomaly {
	last := map[string]Sample{}
	var out []Anomaly
	reported := map[string]bool{}
	for _, s := range tr.Samples {
		p, ok := last[s.Member]
		last[s.Member] = s
		if !ok || reported[s.Member] {
			continue
		}
		if d := s.Steps - p.Steps; d > SpinSteps {
			reported[s.Member] = true
			out = append(out, Anomaly{Name: AnomalySpin, Member: s.Member, At: s.At, Evidence: fmt.Sprintf(
				"%d loop steps (%d spurious wakeups) in +%s..+%s, bound %d per %s", d, s.Spurious-p.Spurious, p.At, s.At, SpinSteps, SampleEvery)})
		}
	}
	return out
}

// CheckLeaks: goroutines of the consumers' packages alive after every
// member closed.
func CheckLeaks(tr *Trace) []Anomaly {
	if len(tr.Leaked) == 0 {
		return nil
	}
	first := tr.Leaked[0]
	if len(first) > 1500 {
		first = first[:1500] + "..."
	}
	return []Anomaly{{Name: AnomalyLeak, At: -1, Evidence: fmt.Sprintf("%d goroutines left after every Close returned; first:\n%s", len(tr.Leaked), first)}}
}

// CheckShareAcks: a record accepted at the broker more times than the
// application was handed it (sent twice), or accepted by the application
// before a CommitSync (or Close) that returned without error for its
// partition, but never acknowledged to a broker by the time that call
// returned (lost).
func CheckShareAcks(tr *Trace) []Anomaly {
	if !tr.isShare() {
		return nil
	}
	var out []Anomaly
	handed := map[Rec]int{}
	for _, o := range tr.Ops {
		if o.Kind == OpPoll {
			for _, r := range o.Records {
				handed[r]++
			}
		}
	}
	accepts := map[Rec][]Ack{}
	for _, a := range tr.Acks {
		if a.Type == 1 {
			accepts[a.Rec] = append(accepts[a.Rec], a)
		}
	}
	for _, r := range slices.SortedFunc(func(yield func(Rec) bool) {
		for r := range accepts {
			if !yield(r) {
				return
			}
		}
	}, cmpRec) {
		if a := accepts[r]; handed[r] == 0 {
			out = append(out, Anomaly{Name: AnomalyAckUndelivered, At: a[0].At, Evidence: fmt.Sprintf(
				"%s[%d]@%d accepted at the broker (+%s) but never handed to the application: processed by nobody",
				r.Topic, r.Partition, r.Offset, a[0].At)})
		} else if len(a) > handed[r] {
			out = append(out, Anomaly{Name: AnomalyAckTwice, At: a[len(a)-1].At, Evidence: fmt.Sprintf(
				"%s[%d]@%d accepted %d times at the broker (first +%s, last +%s) but handed to the application %d times",
				r.Topic, r.Partition, r.Offset, len(a), a[0].At, a[len(a)-1].At, handed[r])})
		}
	}
	// Lost: per member, the records it accepted before each successful
	// CommitSync or Close, neither read by a broker nor reported failed by
	// the acknowledgement commit callback by the time the call returned
	// (Java's close reports failed acknowledgements through the callback,
	// not its own error).
	var acked []Op
	lost := map[Rec]bool{}
	reportedFailed := map[Rec]time.Duration{}
	for _, o := range tr.Ops {
		if o.Kind == OpAckResult && o.Err != "" {
			for _, r := range o.Records {
				if _, ok := reportedFailed[r]; !ok {
					reportedFailed[r] = o.End
				}
			}
		}
	}
	for _, o := range tr.Ops {
		switch {
		case o.Kind == OpAck && o.AckType == 1:
			acked = append(acked, o)
		case (o.Kind == OpCommitSync || o.Kind == OpClose) && o.Err == "":
			for _, a := range acked {
				if a.Member != o.Member || a.End > o.Start {
					continue
				}
				for _, r := range a.Records {
					if slices.ContainsFunc(o.Failed, func(f Rec) bool { return f.Topic == r.Topic && f.Partition == r.Partition }) {
						continue
					}
					if at, failed := reportedFailed[r]; failed && at <= o.End {
						continue
					}
					if !lost[r] && !slices.ContainsFunc(accepts[r], func(x Ack) bool { return x.At <= o.End }) {
						lost[r] = true
						later := "no broker read it later either"
						if len(accepts[r]) > 0 {
							later = fmt.Sprintf("a broker first read it at +%s, after the call returned", accepts[r][0].At)
						}
						if at, ok := reportedFailed[r]; ok {
							later += fmt.Sprintf("; the callback reported it failed at +%s", at)
						}
						out = append(out, Anomaly{Name: AnomalyAckLost, Member: o.Member, At: o.End, Evidence: fmt.Sprintf(
							"%s[%d]@%d accepted by the application at +%s; %s returned without error for its partition at +%s, but no broker had read its acknowledgement and the acknowledgement callback had not reported it failed (%s)",
							r.Topic, r.Partition, r.Offset, a.End, o.Kind, o.End, later)})
					}
				}
			}
		}
	}
	return out
}

func cmpRec(a, b Rec) int {
	return cmp.Or(strings.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition), cmp.Compare(a.Offset, b.Offset))
}

// CheckPanics: an application call that panicked.
func CheckPanics(tr *Trace) []Anomaly {
	var out []Anomaly
	for _, o := range tr.Ops {
		if o.Kind == OpPanic {
			ev := o.Err
			if len(ev) > 1500 {
				ev = ev[:1500] + "..."
			}
			out = append(out, Anomaly{Name: AnomalyPanic, Member: o.Member, At: o.End, Evidence: ev})
		}
	}
	return out
}

// opTraceValidation is the OpOther action recording a member's trace
// validation against the protocol's model (Err: the violation).
const opTraceValidation = "trace-validation"

// CheckModelTrace reports each member whose recorded reactor trace broke
// the protocol model's rules (package model, oursubjects.ValidateTrace).
func CheckModelTrace(tr *Trace) []Anomaly {
	var out []Anomaly
	for _, o := range tr.Ops {
		if o.Kind == OpOther && o.What == opTraceValidation && o.Err != "" {
			out = append(out, Anomaly{Name: "model-trace", Member: o.Member, At: o.Start, Evidence: o.Err})
		}
	}
	return out
}
