package catalogue

// ContractPoint is one timeout, deadline or timer of the regular or share
// consumer as Java's client defines it, with the spec ids that check it
// (Ginkgo specs' id: labels and scenario files' ids). The conformance
// report's contract-point table joins each point to those specs' verdicts
// per subject (reports.ContractPointTable); a point no spec checks yet has
// no Specs and shows as uncovered.
type ContractPoint struct {
	ID       string   // "T-" and a short name, unique
	Consumer string   // "regular" or "share"
	Setting  string   // the Java setting or call it governs ("poll(Duration)", "request.timeout.ms")
	Java     string   // Java's contract: what the clock measures from, and what happens when it expires (kafka-clients 4.4.0)
	Specs    []string // ids of the specs that check it
}

// ContractPoints are every timeout, deadline and timer of the two
// consumers, in the order the report shows them.
var ContractPoints = []ContractPoint{
	{ID: "T-POLL", Consumer: "regular", Setting: "poll(Duration)",
		Java:  "returns buffered records at once, else waits up to the timeout; poll(Duration.ZERO) still returns what is buffered and sends what is due (AsyncKafkaConsumer.poll)",
		Specs: []string{"scenario.contract-zero-timeout-poll", "scenario.timeline-wakeup-during-poll", "scenario.kafka-20854-fetch-held", "scenario.kafka-20397-fault-during-poll"}},
	{ID: "T-COMMIT-SYNC", Consumer: "regular", Setting: "commitSync(Duration) / default.api.timeout.ms",
		Java:  "waits for the commit (and every earlier commitAsync) until the timeout, default default.api.timeout.ms, then TimeoutException",
		Specs: []string{"scenario.contract-1-commit-sync-runs-earlier-callbacks", "publication.commit-sync-stress"}},
	{ID: "T-COMMIT-ASYNC", Consumer: "regular", Setting: "commitAsync / default.api.timeout.ms",
		Java:  "the commit retries retriable errors until default.api.timeout.ms from the call, then its callback gets the error",
		Specs: []string{"scenario.contract-1-commit-sync-runs-earlier-callbacks"}},
	{ID: "T-CLOSE", Consumer: "regular", Setting: "close(Duration) / request.timeout.ms",
		Java:  "one close timer of min(timeout, request.timeout.ms) shared by the final commit, the revocation callbacks and the leave; the leave is sent even at timeout 0 (AsyncKafkaConsumer.close, ConsumerNetworkThread.cleanup)",
		Specs: []string{"scenario.client-close-zero-timeout", "contract-3-close-zero-leaves", "scenario.contract-3-close-leaves-after-stuck-commit", "scenario.kafka-19357-close-brokers-down"}},
	{ID: "T-POSITION", Consumer: "regular", Setting: "position(tp, Duration) / committed(tps, Duration)",
		Java:  "looks up the position or committed offsets until the timeout (default default.api.timeout.ms), then TimeoutException; with a zero timeout answers what is known (position: validPosition, else one updateFetchPositions by the timer, AsyncKafkaConsumer.java:1242-1251)",
		Specs: []string{"scenario.contract-position-timeout"}},
	{ID: "T-OFFSET-FETCH", Consumer: "regular", Setting: "OffsetFetch retries / default.api.timeout.ms",
		Java:  "a partition error that keeps coming back is retried until default.api.timeout.ms, then the position falls back to auto.offset.reset",
		Specs: []string{"scenario.contract-offset-fetch-deadline"}},
	{ID: "T-REQUEST", Consumer: "regular", Setting: "request.timeout.ms",
		Java:  "a request unanswered for request.timeout.ms from its send fails as a disconnect (NetworkClient)",
		Specs: []string{"scenario.fault-black-hole-coordinator"}},
	{ID: "T-RETRY-BACKOFF", Consumer: "regular", Setting: "retry.backoff.ms / retry.backoff.max.ms",
		Java:  "each retry waits retry.backoff.ms doubling per failure to retry.backoff.max.ms with 20% jitter (KIP-580)",
		Specs: []string{"scenario.kafka-21049-zero-retry-backoff", "scenario.contract-4-fenced-rejoin-backs-off", "scenario.kafka-20253-coordinator-lost"}},
	{ID: "T-RECONNECT", Consumer: "regular", Setting: "reconnect.backoff.ms / reconnect.backoff.max.ms",
		Java:  "after a failed connection the next attempt to that broker waits, doubling to the max with 20% jitter (ClusterConnectionStates)",
		Specs: []string{"scenario.fault-refuse-single-broker", "scenario.kafka-20970-unreachable-bootstrap"}},
	{ID: "T-CONNECT-SETUP", Consumer: "regular", Setting: "socket.connection.setup.timeout.ms / .max.ms",
		Java:  "one connection attempt may take that long, doubling per consecutive failure to the max",
		Specs: []string{"scenario.kafka-20970-unreachable-bootstrap"}},
	{ID: "T-HEARTBEAT", Consumer: "regular", Setting: "group.consumer.heartbeat.interval.ms (from the coordinator)",
		Java:  "the next heartbeat is due one interval after the previous one was sent; one in flight at a time (AbstractHeartbeatRequestManager)",
		Specs: []string{"scenario.contract-heartbeat-send-to-send", "scenario.contract-join-in-poll", "scenario.kafka-21031-heartbeat-in-flight"}},
	{ID: "T-MAX-POLL-INTERVAL", Consumer: "regular", Setting: "max.poll.interval.ms",
		Java:  "measured from the last poll; when it passes the member leaves (epoch -1), calls onPartitionsLost and joins again at the next poll",
		Specs: []string{"scenario.contract-6-max-poll-interval-leave", "contract-6-poll-interval-group"}},
	{ID: "T-AUTO-COMMIT", Consumer: "regular", Setting: "auto.commit.interval.ms",
		Java:  "an auto-commit of the consumed positions is due one interval after the previous; the timer restarts after each reconciliation",
		Specs: []string{"scenario.kafka-20253-auto-commit-in-flight", "scenario.kafka-18641-auto-commit-slow-processing"}},
	{ID: "T-REBALANCE-COMMIT", Consumer: "regular", Setting: "rebalance timeout (max.poll.interval.ms): commit before revocation",
		Java:  "with auto-commit, the consumed positions are committed before revoked partitions move, retried until the rebalance timeout, then the revocation proceeds (CommitRequestManager.maybeAutoCommitSyncBeforeRevocation)",
		Specs: []string{"scenario.group-rebalance-no-duplicates"}},
	{ID: "T-SESSION-STATIC", Consumer: "regular", Setting: "group.consumer.session.timeout.ms (static member, coordinator)",
		Java:  "a static member that left with epoch -2 keeps its assignment until the session timeout; joining again with its instance id within it gets the assignment back",
		Specs: []string{"scenario.group-static-member-rejoin"}},
	{ID: "T-METADATA-AGE", Consumer: "regular", Setting: "metadata.max.age.ms",
		Java:  "metadata is refreshed at the latest this long after the previous successful refresh, measured from its answer (Metadata.timeToNextUpdate from lastSuccessfulRefreshMs, set when the answer is applied: Metadata.java:180, 349)",
		Specs: []string{"scenario.contract-metadata-max-age"}},
	{ID: "T-METADATA-REBOOTSTRAP", Consumer: "regular", Setting: "metadata.recovery.rebootstrap.trigger.ms (metadata.recovery.strategy=rebootstrap)",
		Java: "a metadata update is retried after the backoff with no deadline of its own; one that has not succeeded for this long from when it fell due forgets the known brokers and asks bootstrap.servers again, as does a REBOOTSTRAP_REQUIRED answer (NetworkClient.DefaultMetadataUpdater.needsRebootstrap, rebootstrap). No spec yet: on a target whose bootstrap addresses are its brokers' own a rebootstrap cannot be told from a retry (managers/metadata_deadline_test.go checks it on the fixed-clock rig)"},
	{ID: "T-FETCH-WAIT", Consumer: "regular", Setting: "fetch.max.wait.ms",
		Java:  "the broker holds a Fetch up to this long for fetch.min.bytes; a Fetch goes only for a poll event, and every answer, an empty one included, wakes poll, which asks for the next at once: one Fetch per round trip while the application polls (AbstractFetch.java:297; the reactor paces it to retry.backoff.ms, CONTRACT-EMPTY-FETCH-PACING's java_differs)",
		Specs: []string{"scenario.contract-empty-fetch-pacing", "scenario.kafka-20854-fetch-held", "fetch-session-incremental"}},
	{ID: "T-SHARE-POLL", Consumer: "share", Setting: "poll(Duration)",
		Java:  "returns buffered records at once, else waits up to the timeout; a zero timeout still sends the ShareFetch that is due",
		Specs: []string{"scenario.contract-zero-timeout-share-poll", "share-happy-path", "share-no-spin-fetch-in-flight"}},
	{ID: "T-SHARE-COMMIT-SYNC", Consumer: "share", Setting: "commitSync(Duration) / default.api.timeout.ms",
		Java:  "waits for the acknowledgements to be committed until the timeout, default default.api.timeout.ms",
		Specs: []string{"share-commit-sync-publication"}},
	{ID: "T-SHARE-CLOSE", Consumer: "share", Setting: "close(Duration) / request.timeout.ms",
		Java:  "acknowledgements first, then the leave, by one close timer; every acknowledgement is accounted for",
		Specs: []string{"share-close-acks-before-leave", "share-close-brokers-down", "contract-7-share-close-accounts-every-ack"}},
	{ID: "T-SHARE-LOCK", Consumer: "share", Setting: "share.record.lock.duration.ms (group config)",
		Java:  "a record not acknowledged within the acquisition lock from its acquisition is redelivered with a higher delivery count",
		Specs: []string{"share-lock-expiry", "scenario.share-release-redelivers"}},
	{ID: "T-SHARE-HEARTBEAT", Consumer: "share", Setting: "group.share.heartbeat.interval.ms (from the coordinator)",
		Java:  "the next ShareGroupHeartbeat is due one interval after the previous was sent",
		Specs: []string{"share-no-spin-coordinator-unavailable"}},
	{ID: "T-SHARE-MAX-POLL-INTERVAL", Consumer: "share", Setting: "max.poll.interval.ms",
		Java:  "measured from the last poll; when it passes the member leaves and joins again at the next poll",
		Specs: []string{"contract-6-poll-interval-share"}},
	{ID: "T-SHARE-ACK-RETRY", Consumer: "share", Setting: "ShareAcknowledge retries / default.api.timeout.ms",
		Java:  "a commit's acknowledgements answered with a retriable error are sent again after the retry backoff until their deadline (commitSync's timeout, else default.api.timeout.ms; commitAsync default.api.timeout.ms), then reported failed with REQUEST_TIMED_OUT to the callback; the close's are not retried (ShareConsumeRequestManager.handlePartitionError, maybeBuildRequest)",
		Specs: []string{"scenario.contract-share-ack-retry-deadline"}},
}
