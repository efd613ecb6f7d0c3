package managers

// The error table: one row per (API, scope, error) the managers can meet.
//
// Sources. The errors each API lists are those of Kafka's protocol
// definitions (clients/src/main/resources/common/message/*Response.json,
// "Supported errors" and per-field comments, as carried by franz-go's
// generate/definitions at the pinned version) plus every code the Java 4.4.0
// request managers handle by name. The behaviour is the Java 4.4.0
// consumer's (kafka-clients 4.4.0, package
// org.apache.kafka.clients.consumer.internals unless a class says
// otherwise), read to learn; where we depart from it, Differs says why.
// managers/errtable_test.go checks the lists against franz-go's definitions
// and kerr's codes.

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// rowsFor returns one MatchCode row per error, each with the template's
// API, scope, class, flags and texts.
func rowsFor(tmpl Row, errs ...*kerr.Error) []Row {
	out := make([]Row, 0, len(errs))
	for _, e := range errs {
		r := tmpl
		r.Match, r.Err = MatchCode, e
		out = append(out, r)
	}
	return out
}

// other returns the two rows for codes a scope does not name: retriable
// ones get retriable, the rest get rest.
func other(api kmsg.Key, scope Scope, retriable, rest Row) []Row {
	retriable.API, retriable.Scope, retriable.Match = api, scope, MatchOtherRetriable
	rest.API, rest.Scope, rest.Match = api, scope, MatchOther
	return []Row{retriable, rest}
}

func transport(api kmsg.Key, r Row) Row {
	r.API, r.Scope, r.Match = api, ScopeResponse, MatchTransport
	return r
}

// Texts used by several rows.
const (
	javaHeartbeatFatal  = "AbstractHeartbeatRequestManager.onErrorResponse: handleFatalFailure (ErrorEvent raised from poll, member FATAL)"
	javaHeartbeatFenced = "AbstractHeartbeatRequestManager.onErrorResponse: transitionToFenced (release the assignment, rejoin with epoch 0) and heartbeatRequestState.reset(): the rejoin is sent at once, every time"
	differsFenced       = "a member fenced again before a heartbeat succeeds rejoins after the growing retry backoff (retry.backoff.ms doubling to retry.backoff.max.ms): rejoining at once every time lets a coordinator that keeps answering the join with this error drive one heartbeat per round trip (CONTRACT-4); the first rejoin is still immediate"
	javaHeartbeatCoord  = "AbstractHeartbeatRequestManager.onErrorResponse: markCoordinatorUnknown and heartbeatRequestState.reset(): the heartbeat goes as soon as FindCoordinator finds the coordinator"
	differsRediscovery  = "rediscovery after repeated moves waits the growing retry backoff until a request to the coordinator succeeds (CoordinatorRequestManager waits one retry.backoff.ms after its last answer)"
	javaHeartbeatRetry  = "AbstractHeartbeatRequestManager.onErrorResponse: onFailedAttempt, the heartbeat is retried after the exponential retry backoff"
	javaHeartbeatTopic  = "AbstractHeartbeatRequestManager.onErrorResponse: ErrorEvent raised from poll (TopicAuthorizationException); the member stays, the heartbeat is retried after the retry backoff"
	javaHeartbeatOther  = "AbstractHeartbeatRequestManager.onErrorResponse, default branch: handleFatalFailure"
	javaHeartbeatIO     = "AbstractHeartbeatRequestManager.onFailure: RetriableException, retried after the retry backoff; CoordinatorRequestManager.handleCoordinatorDisconnect marks the coordinator unknown on a DisconnectException"

	javaCommitRetry = "CommitRequestManager.OffsetCommitRequestState.onResponse: the commit fails with the retriable exception; commitSync retries it until its deadline (commitAsync completes with RetriableCommitFailedException)"
	differsAsync    = "every commit, CommitAsync included, is retried until its deadline; Java fails a commitAsync at once with RetriableCommitFailedException (commit semantics, not this table's kind)"
	javaCommitFail  = "CommitRequestManager.OffsetCommitRequestState.onResponse: the commit fails with the error, not retried"

	javaOffsetFetchRetry = "CommitRequestManager.fetchOffsetsWithRetries: retriable, retried after the retry backoff until the request's deadline"
	javaOffsetFetchFail  = "CommitRequestManager.OffsetFetchRequestState.onFailure: fails with KafkaException (\"Unexpected error in fetch offset response\"), raised from poll"

	javaListRetry = "OffsetFetcherUtils.handleListOffsetResponse: partitionsToRetry; onSuccessfulResponseForResettingPositions retries them after retry.backoff.ms and requests a metadata update"
	differsList   = "the retry backoff grows (retry.backoff.ms doubling to retry.backoff.max.ms); Java waits retry.backoff.ms each time"

	javaFetchMeta   = "FetchCollector.handleInitializeErrors: FetchUtils.requestMetadataUpdate; the partition is fetched again at the next poll"
	differsFetch    = "the partition also backs off (retry.backoff.ms doubling to retry.backoff.max.ms, reset by a good answer): Java refetches at the next poll and relies on the metadata backoff"
	javaFetchThrown = "FetchCollector.handleInitializeErrors: thrown from poll"

	javaShareCollect  = "ShareFetchCollector.handleInitializeErrors"
	differsShareFetch = "the broker's next ShareFetch backs off (retry.backoff.ms doubling): Java refetches at the next poll"
	javaShareAck      = "ShareConsumeRequestManager: the acknowledgements complete with the error (acknowledgement commit callback)"
	differsAckRetry   = "the acknowledgements are reported failed at once: Java retries a ShareAcknowledge (commitSync, close) on a retriable partition error until its deadline; the broker redelivers the records when their acquisition lock expires"
	javaShareSession  = "ShareSessionHandler.handleResponse: the next request opens a new share session (epoch 0); acknowledgements in flight complete with NETWORK_EXCEPTION"
	differsSession    = "a session reset again before a request succeeds waits the growing retry backoff: Java resets at once every time"
)

// apiRows returns the rows of one API, built on each call: the table is
// code, not package state (P1: managers keep no state in package
// variables), and an error is classified against its API's few dozen rows
// only.
func apiRows(api kmsg.Key) []Row {
	switch api {
	case kmsg.FindCoordinator:
		return findCoordinatorRows()
	case kmsg.ConsumerGroupHeartbeat:
		return slices.Concat(heartbeatRows(api), consumerHeartbeatOnly())
	case kmsg.ShareGroupHeartbeat:
		return heartbeatRows(api)
	case kmsg.OffsetCommit:
		return offsetCommitRows()
	case kmsg.OffsetFetch:
		return offsetFetchRows()
	case kmsg.ListOffsets:
		return listOffsetsRows()
	case kmsg.Fetch:
		return fetchRows()
	case kmsg.Metadata:
		return metadataRows()
	case kmsg.ShareFetch:
		return slices.Concat(shareFetchRows(), acknowledgeRows(api))
	case kmsg.ShareAcknowledge:
		return slices.Concat(shareAcknowledgeRows(), acknowledgeRows(api))
	}
	return nil
}

// tableAPIs are the APIs the table classifies, in key order.
func tableAPIs() []kmsg.Key {
	return []kmsg.Key{kmsg.Fetch, kmsg.ListOffsets, kmsg.Metadata, kmsg.OffsetCommit, kmsg.OffsetFetch,
		kmsg.FindCoordinator, kmsg.ConsumerGroupHeartbeat, kmsg.ShareGroupHeartbeat, kmsg.ShareFetch, kmsg.ShareAcknowledge}
}

// FindCoordinator (key 10): CoordinatorRequestManager.onFailedResponse.
func findCoordinatorRows() []Row {
	return slices.Concat(
		rowsFor(Row{API: kmsg.FindCoordinator, Scope: ScopeResponse, Class: ClassRetriable,
			Java: "CoordinatorRequestManager.onFailedResponse: RetriableException, FindCoordinator retried after the exponential retry backoff"},
			kerr.CoordinatorNotAvailable, kerr.NotCoordinator, kerr.CoordinatorLoadInProgress),
		rowsFor(Row{API: kmsg.FindCoordinator, Scope: ScopeResponse, Class: ClassAuthorization,
			Java: "CoordinatorRequestManager.onFailedResponse: GroupAuthorizationException kept as the coordinator's fatal error, raised from poll by the heartbeat manager (maybePropagateCoordinatorFatalErrorEvent) and failing unsent commits and offset fetches (CommitRequestManager.maybeFailOnCoordinatorFatalError); discovery goes on after the retry backoff"},
			kerr.GroupAuthorizationFailed),
		rowsFor(Row{API: kmsg.FindCoordinator, Scope: ScopeResponse, Class: ClassAuthorization,
			Java:    "CoordinatorRequestManager.onFailedResponse: any other non-retriable error is kept as the coordinator's fatal error, raised from poll; discovery goes on",
			Differs: "not applicable: the consumers ask for group (0) and share (2) keys only; classified as Java would treat it"},
			kerr.TransactionalIDAuthorizationFailed),
		rowsFor(Row{API: kmsg.FindCoordinator, Scope: ScopeResponse, Class: ClassFailed,
			Java: "CoordinatorRequestManager.onFailedResponse: non-retriable, kept as the coordinator's fatal error and raised from poll; discovery goes on after the retry backoff"},
			kerr.InvalidRequest, kerr.UnsupportedVersion),
		other(kmsg.FindCoordinator, ScopeResponse,
			Row{Class: ClassRetriable, Java: "CoordinatorRequestManager.onFailedResponse: RetriableException, retried after the retry backoff"},
			Row{Class: ClassFailed, Java: "CoordinatorRequestManager.onFailedResponse: fatal error kept and raised from poll; discovery goes on"}),
		[]Row{transport(kmsg.FindCoordinator, Row{Class: ClassRetriable, Java: "CoordinatorRequestManager.onFailedResponse: RetriableException (DisconnectException, TimeoutException), retried after the retry backoff"})},
	)
}

// heartbeatRows are the rows ConsumerGroupHeartbeat (key 68) and
// ShareGroupHeartbeat (key 76) share: AbstractHeartbeatRequestManager.
func heartbeatRows(api kmsg.Key) []Row {
	return slices.Concat(
		rowsFor(Row{API: api, Scope: ScopeResponse, Class: ClassAuthorization, Fatal: true, Java: javaHeartbeatFatal + " with GroupAuthorizationException"},
			kerr.GroupAuthorizationFailed),
		rowsFor(Row{API: api, Scope: ScopeResponse, Class: ClassAuthorization, Java: javaHeartbeatTopic},
			kerr.TopicAuthorizationFailed),
		rowsFor(Row{API: api, Scope: ScopeResponse, Class: ClassCoordinator, Java: javaHeartbeatCoord, Differs: differsRediscovery},
			kerr.NotCoordinator, kerr.CoordinatorNotAvailable),
		rowsFor(Row{API: api, Scope: ScopeResponse, Class: ClassRetriable, Java: javaHeartbeatRetry},
			kerr.CoordinatorLoadInProgress),
		rowsFor(Row{API: api, Scope: ScopeResponse, Class: ClassFenced, Java: javaHeartbeatFenced, Differs: differsFenced},
			kerr.UnknownMemberID, kerr.FencedMemberEpoch),
		rowsFor(Row{API: api, Scope: ScopeResponse, Class: ClassFatal, Fatal: true, Java: javaHeartbeatFatal},
			kerr.InvalidRequest, kerr.GroupMaxSizeReached),
		rowsFor(Row{API: api, Scope: ScopeResponse, Class: ClassFatal, Fatal: true, Java: javaHeartbeatFatal + " unless the member is unsubscribed"},
			kerr.GroupIDNotFound),
		rowsFor(Row{API: api, Scope: ScopeResponse, Class: ClassFatal, Fatal: true, Java: "handleSpecificExceptionInResponse (Consumer/ShareHeartbeatRequestManager): handleFatalFailure, the cluster does not support the group protocol"},
			kerr.UnsupportedVersion),
		other(api, ScopeResponse,
			Row{Class: ClassFatal, Fatal: true, Java: javaHeartbeatOther},
			Row{Class: ClassFatal, Fatal: true, Java: javaHeartbeatOther}),
		[]Row{transport(api, Row{Class: ClassCoordinator, Java: javaHeartbeatIO,
			Differs: "any failure without an answer marks the coordinator unknown, not only a disconnect: our transport reports a lost connection and a request timeout alike (Java's NetworkClient turns a request timeout into a disconnect too)"})},
	)
}

// ConsumerGroupHeartbeat codes only the regular consumer's heartbeat
// handles (ConsumerHeartbeatRequestManager).
func consumerHeartbeatOnly() []Row {
	return slices.Concat(
		rowsFor(Row{API: kmsg.ConsumerGroupHeartbeat, Scope: ScopeResponse, Class: ClassFatal, Fatal: true, Java: javaHeartbeatFatal},
			kerr.UnsupportedAssignor, kerr.InvalidRegularExpression),
		rowsFor(Row{API: kmsg.ConsumerGroupHeartbeat, Scope: ScopeResponse, Class: ClassFatal, Fatal: true,
			Java: "ConsumerHeartbeatRequestManager.handleSpecificExceptionInResponse: handleFatalFailure (a static member, group.instance.id: the error reaches the application from poll)"},
			kerr.UnreleasedInstanceID, kerr.FencedInstanceID),
	)
}

// OffsetCommit (key 8): CommitRequestManager.OffsetCommitRequestState.onResponse.
// OffsetCommit answers per partition only.
func offsetCommitRows() []Row {
	return slices.Concat(
		rowsFor(Row{API: kmsg.OffsetCommit, Scope: ScopePartition, Class: ClassAuthorization,
			Java: "CommitRequestManager.OffsetCommitRequestState.onResponse: the commit fails with GroupAuthorizationException"},
			kerr.GroupAuthorizationFailed),
		rowsFor(Row{API: kmsg.OffsetCommit, Scope: ScopePartition, Class: ClassAuthorization,
			Java: "CommitRequestManager.OffsetCommitRequestState.onResponse: the commit fails with TopicAuthorizationException"},
			kerr.TopicAuthorizationFailed),
		rowsFor(Row{API: kmsg.OffsetCommit, Scope: ScopePartition, Class: ClassCoordinator,
			Java: "CommitRequestManager.OffsetCommitRequestState.onResponse: markCoordinatorUnknown; " + javaCommitRetry, Differs: differsAsync},
			kerr.NotCoordinator, kerr.CoordinatorNotAvailable, kerr.RequestTimedOut),
		rowsFor(Row{API: kmsg.OffsetCommit, Scope: ScopePartition, Class: ClassRetriable, Java: javaCommitRetry, Differs: differsAsync},
			kerr.CoordinatorLoadInProgress, kerr.UnknownTopicOrPartition, kerr.UnknownTopicID),
		rowsFor(Row{API: kmsg.OffsetCommit, Scope: ScopePartition, Class: ClassFailed, Java: javaCommitFail},
			kerr.OffsetMetadataTooLarge, kerr.InvalidCommitOffsetSize),
		rowsFor(Row{API: kmsg.OffsetCommit, Scope: ScopePartition, Class: ClassFailed,
			Java: "CommitRequestManager.OffsetCommitRequestState.onResponse: the commit fails with CommitFailedException"},
			kerr.UnknownMemberID),
		rowsFor(Row{API: kmsg.OffsetCommit, Scope: ScopePartition, Class: ClassFailed,
			Java: "CommitRequestManager.OffsetCommitRequestState.onResponse: the commit fails with StaleMemberEpochException (commitSync: CommitFailedException); only the auto-commit before a revocation is retried with the newer epoch"},
			kerr.StaleMemberEpoch),
		rowsFor(Row{API: kmsg.OffsetCommit, Scope: ScopePartition, Class: ClassFailed,
			Java: "CommitRequestManager.OffsetCommitRequestState.onResponse: the commit fails with KafkaException (\"Unexpected error in commit\")"},
			kerr.IllegalGeneration, kerr.RebalanceInProgress, kerr.FencedMemberEpoch, kerr.FencedInstanceID, kerr.GroupIDNotFound, kerr.InvalidGroupID),
		other(kmsg.OffsetCommit, ScopePartition,
			Row{Class: ClassFailed, Java: "CommitRequestManager.OffsetCommitRequestState.onResponse: KafkaException (\"Unexpected error in commit\")"},
			Row{Class: ClassFailed, Java: "CommitRequestManager.OffsetCommitRequestState.onResponse: KafkaException (\"Unexpected error in commit\")"}),
		[]Row{transport(kmsg.OffsetCommit, Row{Class: ClassCoordinator,
			Java:    "CommitRequestManager.RetriableRequestState.handleClientResponse: handleCoordinatorDisconnect; the commit fails with the retriable error (commitSync retries until its deadline)",
			Differs: differsAsync})},
	)
}

// OffsetFetch (key 9): CommitRequestManager.OffsetFetchRequestState.
func offsetFetchRows() []Row {
	return slices.Concat(
		rowsFor(Row{API: kmsg.OffsetFetch, Scope: ScopeResponse, Class: ClassRetriable, Java: javaOffsetFetchRetry},
			kerr.CoordinatorLoadInProgress),
		rowsFor(Row{API: kmsg.OffsetFetch, Scope: ScopeResponse, Class: ClassRetriable,
			Java: "CommitRequestManager.OffsetFetchRequestState.onFailure: retried with the latest member epoch while the member has one (isStaleEpochErrorAndValidEpochAvailable)"},
			kerr.StaleMemberEpoch),
		rowsFor(Row{API: kmsg.OffsetFetch, Scope: ScopeResponse, Class: ClassCoordinator,
			Java: "CommitRequestManager.OffsetFetchRequestState.onFailure: markCoordinatorUnknown; retried after the retry backoff"},
			kerr.NotCoordinator, kerr.CoordinatorNotAvailable),
		rowsFor(Row{API: kmsg.OffsetFetch, Scope: ScopeResponse, Class: ClassFailed,
			Java: "CommitRequestManager.OffsetFetchRequestState.onFailure: fails with UnknownMemberIdException, raised from poll"},
			kerr.UnknownMemberID),
		rowsFor(Row{API: kmsg.OffsetFetch, Scope: ScopeResponse, Class: ClassAuthorization,
			Java: "CommitRequestManager.OffsetFetchRequestState.onFailure: fails with GroupAuthorizationException, raised from poll"},
			kerr.GroupAuthorizationFailed),
		rowsFor(Row{API: kmsg.OffsetFetch, Scope: ScopeResponse, Class: ClassIgnored,
			Java:    javaOffsetFetchFail,
			Differs: "treated as \"no committed offset\", so auto.offset.reset decides, where Java fails the poll: a tolerance. Kafka 4.4 never answers it for a group that never committed (offset -1 and no error per partition, checked by specs/fidelity), nor does the fake broker (fakebroker corrects kfake's GROUP_ID_NOT_FOUND); raw kfake (target kfake-raw) still does"},
			kerr.GroupIDNotFound),
		rowsFor(Row{API: kmsg.OffsetFetch, Scope: ScopeResponse, Class: ClassFailed, Java: javaOffsetFetchFail},
			kerr.InvalidGroupID),
		other(kmsg.OffsetFetch, ScopeResponse,
			Row{Class: ClassRetriable, Java: javaOffsetFetchRetry},
			Row{Class: ClassFailed, Java: javaOffsetFetchFail}),
		[]Row{transport(kmsg.OffsetFetch, Row{Class: ClassCoordinator,
			Java: "CommitRequestManager.RetriableRequestState.handleClientResponse: handleCoordinatorDisconnect; retriable, retried after the retry backoff"})},

		rowsFor(Row{API: kmsg.OffsetFetch, Scope: ScopePartition, Class: ClassRetriable,
			Java: "CommitRequestManager.OffsetFetchRequestState.onSuccess: UnstableOffsetCommitException (retriable), retried until the deadline"},
			kerr.UnstableOffsetCommit),
		rowsFor(Row{API: kmsg.OffsetFetch, Scope: ScopePartition, Class: ClassRetriable,
			Java: "CommitRequestManager.OffsetFetchRequestState.onSuccess: retriablePartitionErrors, retried while the deadline allows"},
			kerr.UnknownTopicOrPartition, kerr.UnknownTopicID),
		rowsFor(Row{API: kmsg.OffsetFetch, Scope: ScopePartition, Class: ClassAuthorization,
			Java: "CommitRequestManager.OffsetFetchRequestState.onSuccess: fails with TopicAuthorizationException, raised from poll"},
			kerr.TopicAuthorizationFailed),
		rowsFor(Row{API: kmsg.OffsetFetch, Scope: ScopePartition, Class: ClassAuthorization,
			Java:    "CommitRequestManager.OffsetFetchRequestState.onSuccess: KafkaException (\"Unexpected error in fetch offset response for partition\"), raised from poll",
			Differs: "only OffsetFetch v0-v1 carry the group's error per partition (we send v8+): handled as the group-level error"},
			kerr.GroupAuthorizationFailed),
		rowsFor(Row{API: kmsg.OffsetFetch, Scope: ScopePartition, Class: ClassCoordinator,
			Java:    "CommitRequestManager.OffsetFetchRequestState.onSuccess: KafkaException, raised from poll",
			Differs: "only OffsetFetch v0-v1 carry the group's error per partition (we send v8+): handled as the group-level error"},
			kerr.NotCoordinator, kerr.CoordinatorNotAvailable),
		rowsFor(Row{API: kmsg.OffsetFetch, Scope: ScopePartition, Class: ClassRetriable,
			Java:    "CommitRequestManager.OffsetFetchRequestState.onSuccess: KafkaException, raised from poll",
			Differs: "only OffsetFetch v0-v1 carry the group's error per partition (we send v8+): handled as the group-level error"},
			kerr.CoordinatorLoadInProgress),
		rowsFor(Row{API: kmsg.OffsetFetch, Scope: ScopePartition, Class: ClassFailed,
			Java: "CommitRequestManager.OffsetFetchRequestState.onSuccess: KafkaException, raised from poll"},
			kerr.InvalidGroupID),
		other(kmsg.OffsetFetch, ScopePartition,
			Row{Class: ClassFailed, Java: "CommitRequestManager.OffsetFetchRequestState.onSuccess: KafkaException (\"Unexpected error in fetch offset response for partition\"), raised from poll"},
			Row{Class: ClassFailed, Java: "CommitRequestManager.OffsetFetchRequestState.onSuccess: KafkaException (\"Unexpected error in fetch offset response for partition\"), raised from poll"}),
	)
}

// ListOffsets (key 2): OffsetsRequestManager and OffsetFetcherUtils
// (resetting positions by auto.offset.reset).
func listOffsetsRows() []Row {
	return slices.Concat(
		rowsFor(Row{API: kmsg.ListOffsets, Scope: ScopePartition, Class: ClassMetadata, Java: javaListRetry, Differs: differsList},
			kerr.NotLeaderForPartition, kerr.ReplicaNotAvailable, kerr.KafkaStorageError, kerr.OffsetNotAvailable,
			kerr.LeaderNotAvailable, kerr.FencedLeaderEpoch, kerr.UnknownLeaderEpoch, kerr.UnknownTopicOrPartition),
		rowsFor(Row{API: kmsg.ListOffsets, Scope: ScopePartition, Class: ClassRetriable,
			Java: "OffsetFetcherUtils.handleListOffsetResponse: logged, no offset; the partition is reset again at the next attempt", Differs: differsList},
			kerr.UnsupportedForMessageFormat),
		rowsFor(Row{API: kmsg.ListOffsets, Scope: ScopePartition, Class: ClassAuthorization,
			Java: "OffsetFetcherUtils.handleListOffsetResponse: TopicAuthorizationException, cached and raised from poll; the reset is retried after retry.backoff.ms"},
			kerr.TopicAuthorizationFailed),
		rowsFor(Row{API: kmsg.ListOffsets, Scope: ScopePartition, Class: ClassMetadata,
			Java: "OffsetFetcherUtils.handleListOffsetResponse, default branch: \"unexpected exception, retrying\"; retried after retry.backoff.ms with a metadata update", Differs: differsList},
			kerr.InvalidRequest),
		other(kmsg.ListOffsets, ScopePartition,
			Row{Class: ClassMetadata, Java: "OffsetFetcherUtils.handleListOffsetResponse, default branch: retried after retry.backoff.ms with a metadata update", Differs: differsList},
			Row{Class: ClassMetadata, Java: "OffsetFetcherUtils.handleListOffsetResponse, default branch: retried after retry.backoff.ms with a metadata update", Differs: differsList}),
		[]Row{transport(kmsg.ListOffsets, Row{Class: ClassMetadata,
			Java: "OffsetFetcherUtils.onFailedResponseForResettingPositions: retried after retry.backoff.ms with a metadata update", Differs: differsList})},
	)
}

// Fetch (key 1): AbstractFetch and FetchCollector.
func fetchRows() []Row {
	return slices.Concat(
		rowsFor(Row{API: kmsg.Fetch, Scope: ScopeResponse, Class: ClassSessionReset,
			Java:    "FetchSessionHandler.handleResponse: FETCH_SESSION_ID_NOT_FOUND: the next fetch is a full fetch opening a new session (INITIAL); other errors: a full fetch that closes the session and opens a new one (nextCloseExisting); the partitions are fetched again at the next poll",
			Differs: differsSession},
			kerr.FetchSessionIDNotFound, kerr.InvalidFetchSessionEpoch),
		rowsFor(Row{API: kmsg.Fetch, Scope: ScopeResponse, Class: ClassMetadata,
			Java: "AbstractFetch.handleFetchSuccess: metadata.requestUpdate"},
			kerr.FetchSessionTopicIDError),
		other(kmsg.Fetch, ScopeResponse,
			Row{Class: ClassMetadata, Java: "FetchSessionHandler.handleResponse: no data, the partitions are fetched again at the next poll", Differs: differsFetch},
			Row{Class: ClassMetadata, Java: "FetchSessionHandler.handleResponse: no data, the partitions are fetched again at the next poll", Differs: differsFetch}),
		[]Row{transport(kmsg.Fetch, Row{Class: ClassMetadata,
			Java:    "AbstractFetch.handleFetchFailure: the session handler notes the error; the node is skipped while in reconnect backoff (isUnavailable)",
			Differs: differsFetch})},

		rowsFor(Row{API: kmsg.Fetch, Scope: ScopePartition, Class: ClassMetadata, Java: javaFetchMeta, Differs: differsFetch},
			kerr.NotLeaderForPartition, kerr.ReplicaNotAvailable, kerr.KafkaStorageError, kerr.FencedLeaderEpoch,
			kerr.OffsetNotAvailable, kerr.UnknownTopicOrPartition, kerr.UnknownTopicID, kerr.InconsistentTopicID),
		rowsFor(Row{API: kmsg.Fetch, Scope: ScopePartition, Class: ClassMetadata,
			Java:    "FetchCollector.handleInitializeErrors: not expected, IllegalStateException thrown from poll",
			Differs: "a leader that is not available is stale metadata: refresh and retry, as for NOT_LEADER_OR_FOLLOWER"},
			kerr.LeaderNotAvailable),
		rowsFor(Row{API: kmsg.Fetch, Scope: ScopePartition, Class: ClassOffsetReset,
			Java: "FetchCollector.handleInitializeErrors: requestOffsetResetIfPartitionAssigned; OffsetOutOfRangeException thrown from poll without a reset policy"},
			kerr.OffsetOutOfRange),
		rowsFor(Row{API: kmsg.Fetch, Scope: ScopePartition, Class: ClassAuthorization, Java: javaFetchThrown + " (TopicAuthorizationException)"},
			kerr.TopicAuthorizationFailed),
		rowsFor(Row{API: kmsg.Fetch, Scope: ScopePartition, Class: ClassRetriable,
			Java: "FetchCollector.handleInitializeErrors: logged; the partition is fetched again at the next poll", Differs: differsFetch},
			kerr.UnknownLeaderEpoch, kerr.UnknownServerError),
		rowsFor(Row{API: kmsg.Fetch, Scope: ScopePartition, Class: ClassFailed, Java: javaFetchThrown + " (KafkaException: corrupt message)"},
			kerr.CorruptMessage),
		rowsFor(Row{API: kmsg.Fetch, Scope: ScopePartition, Class: ClassFailed, Java: javaFetchThrown + " (IllegalStateException: unexpected error code)"},
			kerr.UnsupportedCompressionType, kerr.UnsupportedVersion, kerr.OffsetMovedToTieredStorage),
		other(kmsg.Fetch, ScopePartition,
			Row{Class: ClassFailed, Java: javaFetchThrown + " (IllegalStateException: unexpected error code)"},
			Row{Class: ClassFailed, Java: javaFetchThrown + " (IllegalStateException: unexpected error code)"}),
	)
}

// Metadata (key 3): org.apache.kafka.clients.Metadata and NetworkClient.
func metadataRows() []Row {
	return slices.Concat(
		rowsFor(Row{API: kmsg.Metadata, Scope: ScopeResponse, Class: ClassRetriable,
			Java:    "NetworkClient: REBOOTSTRAP_REQUIRED (KIP-1102) makes the client rebootstrap from bootstrap.servers",
			Differs: "retried after the backoff against the known brokers and then the bootstrap addresses; no rebootstrap"},
			kerr.RebootstrapRequired),
		other(kmsg.Metadata, ScopeResponse,
			Row{Class: ClassIgnored, Java: "Metadata.handleMetadataResponse: the top-level code is not read; topics and brokers are applied"},
			Row{Class: ClassIgnored, Java: "Metadata.handleMetadataResponse: the top-level code is not read; topics and brokers are applied"}),
		[]Row{transport(kmsg.Metadata, Row{Class: ClassRetriable, Java: "NetworkClient.DefaultMetadataUpdater: the update failed, retried after the exponential metadata backoff"})},

		rowsFor(Row{API: kmsg.Metadata, Scope: ScopeTopic, Class: ClassAuthorization,
			Java: "Metadata.checkUnauthorizedTopics: TopicAuthorizationException raised from poll; refreshes go on"},
			kerr.TopicAuthorizationFailed),
		rowsFor(Row{API: kmsg.Metadata, Scope: ScopeTopic, Class: ClassFailed,
			Java: "Metadata.checkInvalidTopics: InvalidTopicException raised from poll"},
			kerr.InvalidTopicException),
		rowsFor(Row{API: kmsg.Metadata, Scope: ScopeTopic, Class: ClassRetriable,
			Java: "Metadata.handleMetadataResponse: InvalidMetadataException, requestUpdate (refreshed after the metadata backoff)"},
			kerr.UnknownTopicOrPartition, kerr.LeaderNotAvailable, kerr.UnknownTopicID),
		other(kmsg.Metadata, ScopeTopic,
			Row{Class: ClassRetriable, Java: "Metadata.handleMetadataResponse: InvalidMetadataException, requestUpdate"},
			Row{Class: ClassFailed, Java: "Metadata.handleMetadataResponse: the topic has no partitions",
				Differs: "the error is raised from Poll like an authorization error, so an unusable topic is not silent"}),

		rowsFor(Row{API: kmsg.Metadata, Scope: ScopePartition, Class: ClassRetriable,
			Java: "Metadata.handleMetadataResponse: InvalidMetadataException, requestUpdate; the partition has no usable leader meanwhile"},
			kerr.LeaderNotAvailable, kerr.ListenerNotFound, kerr.NotLeaderForPartition, kerr.UnknownTopicID, kerr.KafkaStorageError),
		rowsFor(Row{API: kmsg.Metadata, Scope: ScopePartition, Class: ClassIgnored,
			Java: "Metadata.updateLatestMetadata: the partition's leader is used (REPLICA_NOT_AVAILABLE only says a follower is offline; Metadata v0 only)"},
			kerr.ReplicaNotAvailable),
		other(kmsg.Metadata, ScopePartition,
			Row{Class: ClassRetriable, Java: "Metadata.handleMetadataResponse: InvalidMetadataException, requestUpdate"},
			Row{Class: ClassIgnored, Java: "Metadata.updateLatestMetadata: the partition is kept as answered"}),
	)
}

// ShareFetch (key 78): ShareConsumeRequestManager, ShareSessionHandler,
// ShareFetchCollector.
func shareFetchRows() []Row {
	return slices.Concat(
		rowsFor(Row{API: kmsg.ShareFetch, Scope: ScopeResponse, Class: ClassSessionReset, Java: javaShareSession, Differs: differsSession},
			kerr.ShareSessionNotFound, kerr.InvalidShareSessionEpoch, kerr.ShareSessionLimitReached),
		rowsFor(Row{API: kmsg.ShareFetch, Scope: ScopeResponse, Class: ClassAuthorization,
			Java:    "ShareConsumeRequestManager.handleShareFetchSuccess: acknowledgements in flight complete with the error; no records",
			Differs: "also raised from Poll (Java raises it only through the share heartbeat's fatal error)"},
			kerr.GroupAuthorizationFailed, kerr.TopicAuthorizationFailed),
		rowsFor(Row{API: kmsg.ShareFetch, Scope: ScopeResponse, Class: ClassMetadata,
			Java:    "ShareConsumeRequestManager.handleShareFetchSuccess: metadata.requestUpdate (UNKNOWN_TOPIC_ID); acknowledgements in flight complete with the error",
			Differs: differsShareFetch},
			kerr.UnknownTopicID, kerr.UnknownTopicOrPartition, kerr.NotLeaderForPartition, kerr.KafkaStorageError),
		rowsFor(Row{API: kmsg.ShareFetch, Scope: ScopeResponse, Class: ClassFailed,
			Java:    "ShareConsumeRequestManager.handleShareFetchSuccess: acknowledgements in flight complete with the error; no records",
			Differs: "also raised from Poll: a malformed or corrupt request is a bug to report, not to retry silently"},
			kerr.InvalidRequest, kerr.CorruptMessage),
		rowsFor(Row{API: kmsg.ShareFetch, Scope: ScopeResponse, Class: ClassRetriable,
			Java: "ShareConsumeRequestManager.handleShareFetchSuccess: acknowledgements in flight complete with the error; fetched again at the next poll", Differs: differsShareFetch},
			kerr.UnknownServerError),
		other(kmsg.ShareFetch, ScopeResponse,
			Row{Class: ClassRetriable, Java: "ShareConsumeRequestManager.handleShareFetchSuccess: acknowledgements in flight complete with the error", Differs: differsShareFetch},
			Row{Class: ClassFailed, Java: "ShareConsumeRequestManager.handleShareFetchSuccess: acknowledgements in flight complete with the error",
				Differs: "also raised from Poll"}),
		[]Row{transport(kmsg.ShareFetch, Row{Class: ClassMetadata,
			Java:    "ShareConsumeRequestManager.handleShareFetchFailure: acknowledgements in flight fail; ShareSessionHandler.handleError makes the next request close the session and open a new one",
			Differs: "the session keeps its epoch and backs off (a session the broker moved on answers INVALID_SHARE_SESSION_EPOCH and is reset then)"})},

		rowsFor(Row{API: kmsg.ShareFetch, Scope: ScopePartition, Class: ClassMetadata,
			Java: javaShareCollect + ": requestMetadataUpdate (leader cache updated from CurrentLeader)", Differs: differsShareFetch},
			kerr.NotLeaderForPartition, kerr.FencedLeaderEpoch, kerr.ReplicaNotAvailable, kerr.KafkaStorageError,
			kerr.OffsetNotAvailable, kerr.UnknownTopicOrPartition, kerr.UnknownTopicID, kerr.InconsistentTopicID),
		rowsFor(Row{API: kmsg.ShareFetch, Scope: ScopePartition, Class: ClassAuthorization,
			Java: javaShareCollect + ": TopicAuthorizationException thrown from poll"},
			kerr.TopicAuthorizationFailed),
		rowsFor(Row{API: kmsg.ShareFetch, Scope: ScopePartition, Class: ClassAuthorization,
			Java: javaShareCollect + ": KafkaException (\"Unexpected error code\") thrown from poll"},
			kerr.GroupAuthorizationFailed),
		rowsFor(Row{API: kmsg.ShareFetch, Scope: ScopePartition, Class: ClassRetriable,
			Java: javaShareCollect + ": logged; fetched again at the next poll", Differs: differsShareFetch},
			kerr.UnknownLeaderEpoch, kerr.UnknownServerError),
		rowsFor(Row{API: kmsg.ShareFetch, Scope: ScopePartition, Class: ClassFailed,
			Java: javaShareCollect + ": KafkaException thrown from poll"},
			kerr.CorruptMessage, kerr.InvalidRequest),
		other(kmsg.ShareFetch, ScopePartition,
			Row{Class: ClassFailed, Java: javaShareCollect + ": KafkaException (\"Unexpected error code\") thrown from poll"},
			Row{Class: ClassFailed, Java: javaShareCollect + ": KafkaException (\"Unexpected error code\") thrown from poll"}),
	)
}

// acknowledgeRows classify acknowledgement error codes: ShareFetch's
// AcknowledgeErrorCode and ShareAcknowledge's partition ErrorCode. Every
// class here ends with the acknowledgements reported to the callback.
func acknowledgeRows(api kmsg.Key) []Row {
	return slices.Concat(
		rowsFor(Row{API: api, Scope: ScopeAcknowledge, Class: ClassFailed, Java: javaShareAck},
			kerr.InvalidRecordState, kerr.InvalidRequest, kerr.UnknownServerError),
		rowsFor(Row{API: api, Scope: ScopeAcknowledge, Class: ClassFailed,
			Java: "ShareConsumeRequestManager.handlePartitionError: the acknowledgements fail with the error; the leader cache is updated"},
			kerr.NotLeaderForPartition, kerr.FencedLeaderEpoch, kerr.UnknownTopicOrPartition, kerr.UnknownTopicID),
		rowsFor(Row{API: api, Scope: ScopeAcknowledge, Class: ClassAuthorization, Java: javaShareAck},
			kerr.GroupAuthorizationFailed, kerr.TopicAuthorizationFailed),
		rowsFor(Row{API: api, Scope: ScopeAcknowledge, Class: ClassFailed,
			Java: "ShareConsumeRequestManager.handlePartitionError: retriable, the acknowledgements are sent again (ShareAcknowledge) until the deadline", Differs: differsAckRetry},
			kerr.KafkaStorageError),
		other(api, ScopeAcknowledge,
			Row{Class: ClassFailed, Java: "ShareConsumeRequestManager.handlePartitionError: retriable, sent again until the deadline", Differs: differsAckRetry},
			Row{Class: ClassFailed, Java: javaShareAck}),
	)
}

// ShareAcknowledge (key 79) top-level codes:
// ShareConsumeRequestManager.handleShareAcknowledgeSuccess.
func shareAcknowledgeRows() []Row {
	return slices.Concat(
		rowsFor(Row{API: kmsg.ShareAcknowledge, Scope: ScopeResponse, Class: ClassSessionReset,
			Java:    "ShareSessionHandler.handleResponse: the next request opens a new share session; ShareConsumeRequestManager retries the acknowledgements (retriable) until the deadline",
			Differs: "the acknowledgements are reported failed (the broker redelivers when the locks expire); " + differsSession},
			kerr.ShareSessionNotFound, kerr.InvalidShareSessionEpoch),
		rowsFor(Row{API: kmsg.ShareAcknowledge, Scope: ScopeResponse, Class: ClassAuthorization,
			Java:    "ShareConsumeRequestManager.handleShareAcknowledgeSuccess: the acknowledgements fail with the error",
			Differs: "also raised from Poll (Java raises it only through the share heartbeat's fatal error)"},
			kerr.GroupAuthorizationFailed, kerr.TopicAuthorizationFailed),
		rowsFor(Row{API: kmsg.ShareAcknowledge, Scope: ScopeResponse, Class: ClassMetadata,
			Java:    "ShareConsumeRequestManager.handleShareAcknowledgeSuccess: retriable, the acknowledgements are sent again until the deadline",
			Differs: "the acknowledgements are reported failed, metadata is refreshed and the session backs off"},
			kerr.NotLeaderForPartition, kerr.UnknownTopicOrPartition, kerr.UnknownTopicID, kerr.KafkaStorageError),
		rowsFor(Row{API: kmsg.ShareAcknowledge, Scope: ScopeResponse, Class: ClassFailed,
			Java:    "ShareConsumeRequestManager.handleShareAcknowledgeSuccess: the acknowledgements fail with the error",
			Differs: "also raised from Poll"},
			kerr.InvalidRecordState, kerr.InvalidRequest, kerr.UnknownServerError),
		other(kmsg.ShareAcknowledge, ScopeResponse,
			Row{Class: ClassRetriable, Java: "ShareConsumeRequestManager.handleShareAcknowledgeSuccess: retriable, the acknowledgements are sent again until the deadline",
				Differs: "the acknowledgements are reported failed and the session backs off"},
			Row{Class: ClassFailed, Java: "ShareConsumeRequestManager.handleShareAcknowledgeSuccess: the acknowledgements fail with the error", Differs: "also raised from Poll"}),
		[]Row{transport(kmsg.ShareAcknowledge, Row{Class: ClassMetadata,
			Java:    "ShareConsumeRequestManager.handleShareAcknowledgeFailure: the acknowledgements fail with the error; the next request opens a new session",
			Differs: "the session keeps its epoch and backs off"})},
	)
}
