// Package explore runs simulation runs: it generates random
// schedules (a workload, client actions on a timeline, faults) from a seed
// with pgregory.net/rapid, runs each on a subject against the fake cluster
// (harness/sim: inside a testing/synctest bubble where the subject allows,
// on the wall clock otherwise), checks what happened with a history checker
// that names Jepsen-style anomalies with their evidence, and shrinks a
// failing schedule (rapid's shrinker) to a minimal one, written out as a
// scenario file.
//
// Why rapid: shrinking is built into generation (no separate shrinker per
// type: a schedule is drawn from a bit stream and the stream is shrunk), the
// API is plain Go generators in the style of the standard library's testing
// (rapid.Check, *rapid.T, Draw), a given seed draws the same value in every
// process (Generator.Example(seed) and rapid's own -rapid.seed agree), and it
// is maintained (v1.3.0, 2025). gopter needs a shrinker per type and is
// unmaintained; testing/quick has no shrinking.
//
// # Seeds
//
// Schedule seed s is Gen().Example(s): the same seed gives the same schedule
// in every run and process. Shrinking runs rapid.Check starting from the
// same seed (its first test case draws exactly that schedule).
//
// # What is checked (Check; each anomaly a name and its evidence)
//
//   - lost: a record below a committed offset never delivered to any member;
//   - duplicate: a record delivered twice to one member within one
//     assignment epoch (no assignment or member-epoch change between);
//   - nonmonotonic / skipped: offsets of one partition within one
//     assignment epoch going back, or jumping over an offset;
//   - commit-past-processed: an OffsetCommit above what any member had been
//     handed (last delivered + 1) when the broker read it;
//   - commit-after-leave: an OffsetCommit of a member id after its leave
//     heartbeat (member epoch -1) and before it rejoined (epoch 0);
//   - callback-twice / callback-never: a CommitAsync callback run twice, or
//     not at all by the time Close returned;
//   - close-past-deadline: Close took longer than its deadline plus
//     CloseTolerance;
//   - retry-storm: more requests of one API key from one client during a
//     retriable-error fault window than measure.RetrySchedule allows plus
//     RetryAllowance;
//   - spin: the loop stepped more than SpinSteps in one SampleEvery window
//     (probe; a frozen bubble clock is the same finding, caught by the
//     watchdog); n/a for black-box subjects;
//   - goroutine-leak: a goroutine of the consumer's packages alive after
//     every consumer closed;
//   - share-ack-twice / share-ack-lost: a share record acknowledged twice by
//     one member outside fault windows, or accepted by the application and
//     committed without error but never acknowledged to the broker;
//     share-ack-undelivered: a record accepted at the broker that the
//     application was never handed (processed by nobody);
//   - panic: an application call (or the harness's handling of its
//     result) panicked;
//   - across a group's members (check_group.go): duplicate-across-members
//     (a record delivered again by another member below the offset the
//     group had committed before that member fetched its position),
//     commit-backwards (a partition's accepted committed offset going
//     down), kept-after-revocation (a member still delivering or holding a
//     partition another member took over, after it had learnt of the
//     move), share-ack-foreign (an accept reported successful for a record
//     another share member was handed in between).
//
// # Subjects
//
// reactor, kgo and null run in bubbles; the baseline, java and java-classic
// on the wall clock (java: a JVM per member through the driver, the brokers
// on loopback sockets), Options.Parallel schedules at once.
package explore
