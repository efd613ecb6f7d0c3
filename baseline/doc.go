// Package baseline is a deliberately faithful model of the execution of
// today's Java async consumer (ConsumerNetworkThread.runOnce and the
// application thread's poll), run on the same request managers as the
// reactor. It is the negative control of the conformance suite: every
// regression spec must fail here where the Jira's shape exists, and pass on
// the reactor. It is a model, not a port: see ../../shared/reference or the
// README for the facts it models, and each rule below for its Jira.
//
// It holds two things, neither part of package consumer's API:
//
//   - Loop, a second driver of the reactor's Core: the same inbox,
//     completion, publication, trace and counters (reactor.NewDriver), with
//     today's wait computation and ordering;
//   - the baseline consumers, New and NewShare: the managers, view and
//     snapshot of the reactor consumers, built by the same assembly seam
//     (internal/client), on Loop, with today's application side.
//
// What it models (and the reactor does not do):
//
//   - Collapsed results. Each manager's answer becomes one number, "poll me
//     again in N ms" (PollResult.timeUntilNextPollMs). A manager that has a
//     local timer (heartbeat interval, auto-commit interval, discovery
//     backoff: see LocalTimer) reports that timer whether or not it can make
//     progress, so "coordinator unknown while the heartbeat is due" or
//     "FindCoordinator in flight after its backoff" is 0 ms (KAFKA-20253,
//     KAFKA-21031, KAFKA-20970, KAFKA-20426). A manager without one reports
//     RetryAt times and otherwise "forever" (PollResult.EMPTY).
//   - One pass per iteration, no settle rounds: the network wait is
//     min(5000 ms, the collapsed times); zero only checks for events.
//   - A separate cached maximum wait for the application (maximumTimeToWait),
//     computed from this iteration's results with the pre-I/O time and
//     stored after the network wait.
//   - Effects run as soon as they are queued, on their own path, before the
//     iteration's state is published (KAFKA-18641, KAFKA-20397 shapes).
//   - The application side: a fetch buffer with a sticky wake flag that
//     background errors do not signal, positions advanced when records are
//     collected, and close as a sequence of separate waits (stop discovery,
//     leave, wait for commits, a close-time pass until nothing is in
//     flight; KAFKA-18569, KAFKA-19357).
package baseline
