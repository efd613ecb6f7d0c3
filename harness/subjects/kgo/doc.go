// Package kgo is the subject "kgo": franz-go's kgo client (v1.22.3, pinned
// in go.mod) as a consumer under test, behind the harness's black-box
// consumer surfaces (harness.Consumer and harness.ShareConsumer without
// their probes). It is evidence, like the java subject: our reactor and
// baseline are models, kgo is a real client.
//
// The package is named kgo after its directory and the subject, as its
// sibling java is; franz-go's kgo is imported as franz in every file here,
// and a caller that needs both writes e.g.
// kgosubject "github.com/kreactor/kreactor/harness/subjects/kgo".
//
// # What kgo v1.22.3 supports (read from its source)
//
//   - KIP-848 consumer groups: yes. The option is kgo.ServerSideBalancer();
//     the first balancer must be a range or sticky one (the default
//     cooperative-sticky maps to the broker's "uniform" assignor, range to
//     "range"). kgo pins ConsumerGroupHeartbeat v1 (Kafka 4.0+) and falls
//     back to the classic protocol, silently, when the broker lacks it; its
//     docs recommend Kafka 4.3+. Subject{} asks for KIP-848,
//     Subject{Protocol: ProtocolClassic} for classic, and
//     Consumer.Protocol reports what ran, from the requests kgo wrote
//     (HookBrokerWrite: a ConsumerGroupHeartbeat or a JoinGroup).
//   - KIP-932 share groups: yes. kgo.ShareGroup(group) with ShareFetch /
//     ShareAcknowledge share sessions, Record.Ack (accept, release,
//     reject, and renew from KIP-1222), MarkAcks, FlushAcks, a
//     ShareAckCallback with per-partition outcomes, Record.DeliveryCount,
//     and a leave by ShareGroupHeartbeat with epoch -1. Subject.NewShare
//     builds a ShareConsumer on it. (Had kgo no share consumer, NewShare
//     would return an error wrapping ErrUnsupported for specs to report
//     as n/a; ErrUnsupported now marks settings outside kgo's limits.)
//
// # Configuration mapping (consumer.Config / consumer.ShareConfig -> kgo)
//
// New and NewShare first apply consumer's own validation
// (consumer.Config.Validate), so every subject rejects the same inputs with
// the same *consumer.ConfigError; a value kgo itself refuses is an
// *UnsupportedError naming kgo's limit, never clamped.
//
//	field (Java setting)                    kgo option / what the subject does
//	BootstrapServers (bootstrap.servers)    SeedBrokers
//	GroupID (group.id)                      ConsumerGroup at Subscribe; ShareGroup; with Assign: kadm commits (below)
//	ClientID (client.id)                    ClientID
//	EnableAutoCommit (enable.auto.commit)   kgo's default autocommit, or DisableAutoCommit
//	AutoCommitInterval (auto.commit...)     AutoCommitInterval (kgo: >= 100 ms)
//	AutoOffsetReset (auto.offset.reset)     ConsumeStartOffset + ConsumeResetOffset: earliest AtStart,
//	                                        latest AtEnd, none AtCommitted + NoResetOffset
//	IsolationLevel (isolation.level)        FetchIsolationLevel(ReadCommitted / ReadUncommitted)
//	FetchMinBytes (fetch.min.bytes)         FetchMinBytes
//	FetchMaxBytes (fetch.max.bytes)         FetchMaxBytes (+ BrokerMaxReadBytes above kgo's 100 MiB)
//	FetchMaxWait (fetch.max.wait.ms)        FetchMaxWait (kgo: >= 10 ms)
//	MaxPartitionFetchBytes (max.partition.) FetchMaxPartitionBytes
//	MaxPollRecords (max.poll.records)       PollRecords' limit; share: also ShareMaxRecords
//	MaxPollInterval (max.poll.interval.ms)  RebalanceTimeout (KIP-848 RebalanceTimeoutMs; kgo: >= 100 ms);
//	                                        kgo does not leave the group when Poll is not called for that long
//	ReconnectBackoff(Max), SocketConnection- no kgo option: kgo redials on the next request and bounds a dial
//	SetupTimeout(Max) (reconnect.backoff.., by DialTimeout (10 s); the subject ignores them
//	socket.connection.setup.timeout..)
//	RetryBackoff, RetryBackoffMax           RetryBackoffFn with Java's formula (x2 per failure, cap, +-20 %)
//	RequestTimeout (request.timeout.ms)     RequestTimeoutOverhead (kgo adds it to a request's own
//	                                        timeout, e.g. Fetch's max wait; kgo: 100 ms..15 m)
//	MetadataMaxAge (metadata.max.age.ms)    MetadataMaxAge (kgo: <= 1 h; MetadataMinAge lowered with it)
//	DefaultAPITimeout (default.api...)      no kgo option: the subject's deadline for CommitSync without
//	                                        one, CommitAsync, and Subscribe's leave on unsubscribe
//	Dial                                    Dialer
//	Logger                                  WithLogger (slog adapter)
//	MaxBufferedRecords (no Java setting)    none: kgo buffers one fetch response per broker
//	(session.timeout.ms, heartbeat...)      not in consumer.Config; classic only (KIP-848 takes them from
//	                                        the broker); kgo's defaults equal Java's; Subject.Extra sets them
//
// # Java's contract, and what had to be emulated
//
//   - Poll(ctx) is PollRecords(ctx, max.poll.records); ctx's deadline is the
//     poll timeout and gives (nil, nil). A done ctx still returns buffered
//     records (PollRecords with a nil context, as poll(0)). An error kgo
//     returns with records waits for the next Poll.
//   - Wakeup cancels the running PollRecords' context (or marks the next
//     Poll) and Poll returns consumer.ErrWakeup. kgo has no wakeup.
//   - One application goroutine at a time: a second concurrent call gets
//     consumer.ErrConcurrentUse (kgo itself is safe for concurrent use).
//   - CommitSync is CommitUncommittedOffsets (everything previous Polls
//     returned). CommitAsync is CommitOffsets; kgo calls its onDone on its
//     own goroutine, so the outcome is queued and the callback runs on the
//     application goroutine during the next Poll, CommitSync or Close.
//     The same queue carries share acknowledgement outcomes.
//   - Assignment: kgo has no accessor. The group consumer tracks it with
//     OnPartitionsAssigned / Revoked / Lost. Setting OnPartitionsRevoked
//     replaces kgo's default revoke commit, so the subject re-does it: with
//     auto-commit, a blocking commit of kgo's "head" (the position after all
//     but the last poll; Poll snapshots UncommittedOffsets just before
//     PollRecords, when kgo moves head there). A test checks the result
//     against a raw kgo client. The share consumer asks the broker
//     (ShareGroupDescribe from a separate client, matched by client id).
//   - Assign: kgo's group client refuses ConsumePartitions, so Assign uses
//     kgo's direct client (AddConsumePartitions, RemoveConsumePartitions).
//     With a group id the starting offsets are the group's commits (kadm
//     FetchOffsets at the next Poll; "none" without a commit: *NoOffsetError)
//     and commits are kadm OffsetCommits with generation -1. There is no
//     auto-commit under Assign (kgo's direct consumer has none).
//   - Pause/Resume are PauseFetchPartitions / ResumeFetchPartitions. An
//     unassigned partition is a *group.PartitionError wrapping
//     group.ErrNotAssigned. kgo keeps a partition paused across a
//     rebalance; Java does not.
//   - Close leaves (LeaveGroupContext) and closes within ctx's deadline (30 s
//     without one). At the deadline it cancels the client's context
//     (kgo.WithContext), so kgo stops at once, and returns an error wrapping
//     consumer.ErrCloseDeadline. With auto-commit kgo commits "head" while
//     leaving; Java commits everything consumed.
//   - Share explicit mode: kgo accepts whatever is left at the next poll;
//     Java (and the reactor) refuse to poll until the batch is acknowledged.
//     The subject refuses with share.ErrUnacknowledged. In implicit mode
//     Poll, CommitSync, CommitAsync and Close accept the rest first. Close
//     in explicit mode lets kgo release the unacknowledged.
//
// # Black-box figures
//
// The consumer runs in the test process, so process CPU (getrusage, /proc)
// would count the harness and an in-process kfake broker: n/a as such.
// Instead StartCPU / CPUWindow.Stop attribute a CPU profile's samples to
// each consumer through a pprof label carried by all its goroutines
// (CPUKey): a spinning kgo shows up, an idle one reads near zero. A child
// process (a Go driver speaking the java subject's JSON-lines protocol)
// would give true per-process figures; it is left for when that protocol
// settles. Broker-side request counts come from the target's recorder
// (client id = ClientID); RequestsSent gives kgo's own count per API key.
package kgo
