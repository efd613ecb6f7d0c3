// Package sim runs seeded simulations: a fake cluster (fakebroker on
// kfake's in-memory network) and consumers inside one testing/synctest
// bubble, driven by a run function, with everything the run did recorded
// as a History. It is the ground floor of `kreactor explore`:
// explore generates a schedule from a seed, runs it with Run, checks the
// History, and shrinks.
//
// # The API
//
//	h, err := sim.Run(t, sim.Config{Seed: 7, Cluster: fakebroker.Config{Topics: ...}},
//		func(env *sim.Env) error {
//			cfg := env.ConsumerConfig("c1") // bootstrap, Dial (in-memory), seeded Rand
//			cfg.GroupID = "g"
//			c, err := consumer.New(cfg)     // or baseline.New, consumer.NewShare, ...
//			if err != nil { return err }
//			env.Defer(func() { _ = c.Close(context.Background()) })
//			...                              // faults via env.Broker; env.Delivered, env.Note
//			return nil
//		})
//
// Run needs a *testing.T (synctest does), so simulations run in a test
// binary; RunWall runs the same function on the wall clock without a
// bubble. A History holds the requests every broker read (with virtual
// times), the OffsetCommits they read, the committed offsets at the end,
// and what the run function reported: deliveries and events. Diff,
// Canonical, Lines and Fingerprint compare and print histories.
//
// Why here: it drives subjects (consumers) on a target (fakebroker), which
// is the harness's job; fakebroker must not import the consumers (targets
// do not know subjects), and cmd/kreactor and the specs both need it, so
// it is not internal.
//
// # What runs in a bubble
//
// Everything on the kfake target: kfake's brokers (their goroutines,
// tickers, fetch long-polls, share lock sweeps), fakebroker's recorder,
// corrected answers and every fault helper (SleepControl wakeups run on
// bubble goroutines and their timers are virtual), fakebroker.Produce, the
// reactor consumers (regular and share), their kgo transport (a kgo client
// per broker dialing through Broker.Dial), and kgo itself. Virtual time
// runs two orders of magnitude ahead of wall time: the outage scenario of
// this package's tests (5.02 s of virtual time: a 3 s coordinator outage
// and a 2 s held Fetch) takes 14-20 ms of wall time, 250-350 times less
// (under -race about 150 ms, 35 times less). -race works in a bubble. The
// kgo subject (franz-go's own consumer, through consumer.Config.Dial) runs
// in a bubble too.
//
// # What does not
//
//   - A subject that busy-loops. The bubble's clock advances only when
//     every goroutine in it is durably blocked; a goroutine that never
//     blocks stops it for good, and every timer, backoff and fault window
//     with it. The baseline consumer does exactly that during a
//     coordinator outage (its network thread collapses "heartbeat due, no
//     coordinator" to a zero wait, KAFKA-20253; its application thread
//     spins on the zero maximumTimeToWait, KAFKA-20970): in the outage
//     scenario its bubble freezes 200 ms into the outage. Run's watchdog
//     (outside the bubble, on the wall clock) declares the clock frozen
//     after Config.FrozenAfter and panics with the spinning goroutines'
//     stacks (baseline.(*Loop).run among them); nothing can stop a
//     bubble's goroutines from outside, so the process cannot go on.
//     A frozen clock is itself the finding "a goroutine spins while
//     nothing can progress" (explore's spin anomaly): run such schedules
//     one per child process (Config.OnFrozen), or the subject with
//     RunWall, where its spin is real CPU time.
//   - The kafka target (real brokers over TCP through testcontainers and
//     the proxy), the java subject (a JVM process): real sockets and other
//     processes are outside any bubble. explore runs java on the wall
//     clock (RunWall with Config.Loopback: the brokers on 127.0.0.1
//     sockets), where a seed fixes the schedule but not the history.
//   - A caller without a *testing.T (a plain main): synctest.Test is the
//     only way into a bubble since Go 1.26. RunWall works anywhere.
//   - Parallel tests: Run seeds crypto/rand process-wide
//     (testing/cryptotest), which t.Parallel forbids.
//
// # Seeds and what a seed fixes
//
// Every random choice of ours comes from the seed: each consumer's member
// id and backoff jitter (consumer.Config.Rand; one stream per request
// manager and one for the transport, so an extra retry in one manager
// does not shift another's jitter), the run function's own choices
// (Env.Rand). kfake's random choices: partition leaders come from
// math/rand's global source, which no program can seed since Go 1.24, so
// Run places them (fakebroker.Config.SpreadLeaders); topic ids come from a
// process-wide pool kfake fills from crypto/rand, which Run seeds
// (cryptotest.SetGlobalRandom), so they repeat across fresh processes but
// not across runs in one process (the pool carries on; topic ids only
// order multi-topic requests, never times). kgo seeds its own generators
// from time.Now, which a bubble fixes. Connections are numbered in accept
// order, and the bubble starts every run at 2000-01-01 00:00 UTC.
//
// # What remains nondeterministic (measured)
//
// Goroutine scheduling: synctest fixes when things happen, not in which
// order goroutines runnable at the same virtual instant run (nor which
// ready case a select takes). So answers that arrive at one instant are
// applied in either order, concurrent dials are accepted in either order,
// records of several partitions answered at one instant are buffered in
// either order. Measured on the outage scenario of the tests (seed 14,
// 100 runs per line, a 2-core machine shared with other work; distinct
// exact histories, distinct canonical forms, runs with the most common
// canonical form):
//
//	faults on round times, GOMAXPROCS 2               100  15-26  17-28
//	faults off round times, GOMAXPROCS 2              100   7-11  72-91
//	faults off round times, Procs 1, in one process   100      1    100
//	faults off round times, Procs 1, a process each   100      2     99
//
// What the figures say:
//
//   - Exact histories always differ: connection numbers (accept order) and
//     the order of simultaneous requests and deliveries. History.Canonical
//     drops both (simultaneous items sorted, connection numbers and
//     correlation ids zeroed): equal canonical forms mean the same
//     requests, commits and deliveries at the same virtual times.
//   - Faults on round times (3 s after +10 ms) coincide with the
//     consumer's periodic timers (fetch.max.wait.ms 500 ms, heartbeat
//     250 ms), and whether the Fetch sent at that instant is held or
//     answered changes the rest of the run. Draw fault times at nanosecond
//     resolution from the seed.
//   - With GOMAXPROCS 2 the rest is of two kinds: whether a Fetch sent at
//     the instant Close starts reaches a broker before its connection
//     closes (most), and the first heartbeat's answer and the first
//     Metadata answer (both at +10 ms) applied in the other order, which
//     costs one extra Metadata refresh after its backoff and moves later
//     AnyNode requests to another broker (the jitter does not move: one
//     stream per request manager).
//   - With Config.Procs 1 (one goroutine at a time) one process repeated
//     its canonical history in 100 of 100 runs; fresh processes differed
//     in 1 of 100 (the Metadata case). Exact histories still differ (the
//     scheduler's and select's own random choices). Use Procs 1 for
//     explore, and compare canonical forms.
//
// TestDeterminismSameSeed and TestDeterminismAcrossProcesses print these
// figures (-sim.runs sets the count, 10 by default).
package sim
