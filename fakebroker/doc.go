// Package fakebroker runs an in-process fake Kafka cluster (franz-go's kfake)
// for kreactor's specs, with three additions kfake does not have:
//
//   - a request recorder (wire.Recorder) that logs every request any client
//     sends (API key, version, node, client id, correlation id, arrival
//     time), built by tapping each broker's listener and decoding request
//     headers from the byte stream (wire.RequestStream);
//   - fault helpers (CoordinatorUnavailable, DelayKey, HoldKey,
//     AnswerKeyWithError, DropConnections, StopNode) that return a Handle
//     with an idempotent Remove, all released by Broker.Close;
//   - Produce, a synchronous producer with deterministic partitioning;
//   - answers as Apache Kafka 4.4 gives them where kfake's differ in a way
//     clients trip on (answers.go: OffsetFetch for a group that never
//     committed, OffsetFetch v10 for an unknown topic id, OffsetCommit v9+
//     with an epoch for an unknown group, FindCoordinator errors, heartbeat
//     intervals on leave and error answers): kfake handles every request,
//     and the tap corrects its response on the way out. Two act before
//     kfake applies the request, where no rewrite could undo it: a Fetch
//     with no partition to read is answered at once instead of after its
//     MaxWaitMillis (answers_01_fetch.go, a control that lowers the wait
//     before kfake handles the request), and a ConsumerGroupHeartbeat
//     Kafka refuses before it reaches the group (a static member's leave
//     without InstanceId, among others) is refused, the group unchanged
//     (answers_68_consumer_group_heartbeat.go, kfake faults answering
//     Kafka's error after every fault a spec installs). specs/fidelity
//     checks each against a real broker; Config.KfakeAnswers turns them
//     off.
//
// Every helper runs off kfake's cluster goroutine: delays and holds use
// kfake's SleepControl with a wakeup that returns when its timer fires, its
// Handle is removed or the Broker closes, so no control ever sleeps on the
// cluster goroutine and Close leaves no goroutine behind.
//
// With Config.Network the brokers listen on kfake's in-memory network
// (kfake.VirtualNetwork) instead of TCP, and clients dial them through
// Broker.Dial: everything above then works inside a testing/synctest
// bubble on its virtual clock (harness/sim runs seeded simulations so).
//
// Start a broker with Start and always Close it (Close is idempotent).
package fakebroker
