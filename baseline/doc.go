// Package baseline is a deliberately faithful model of the execution of
// today's Java async consumer (ConsumerNetworkThread.runOnce and the
// application thread's poll), run on the same request managers as the
// reactor. It is the negative control of the conformance suite: every
// regression spec must fail here where the Jira's shape exists, and pass on
// the reactor. It is a model, not a port: docs/java-consumer-today.md holds
// the facts it models, and each rule below names its Jira.
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
//     flight and no request manager has a request to send or a retry due;
//     the metadata refresh timer is the network client's in Java and holds
//     nothing; KAFKA-18569, KAFKA-19357).
//
// Which release it models. The baseline models each Jira's shape as the
// Jira reported it, not one kafka-clients release: the release matrix
// (make java-matrix, the java subject on kfake over 4.0.2, 4.1.2, 4.2.2,
// 4.3.1 and 4.4.0) shows the real client moving under it. Measured
// 2026-11-30: KAFKA-20253 (auto-commit in flight), KAFKA-18569 and
// KAFKA-21031 reproduce on every release; KAFKA-20426 and KAFKA-20854 up
// to 4.2.2; KAFKA-20397 up to 4.3.1; KAFKA-20970 on 4.1.2-4.3.1;
// KAFKA-18641 from 4.3.1 on; KAFKA-19357 on none (its fix predates 4.0.2);
// the coordinator-lost shape of KAFKA-20253 spins here but on no release.
// So against 4.4.0 the baseline is a model of earlier releases for
// KAFKA-20426, -20970, -20854, -20397 and -19357. The catalogue's Baseline
// field says the same per regression, and the report prints it where the
// baseline and a real client disagree.
package baseline
