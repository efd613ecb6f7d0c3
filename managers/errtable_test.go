package managers_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
)

// definitionFiles are franz-go's copies of Kafka's protocol definitions for
// the ten APIs the managers speak (generate/definitions in the franz-go
// module pinned by go.mod): the independent source of the errors each API
// lists.
var definitionFiles = map[kmsg.Key]string{
	kmsg.Fetch:                  "01_fetch",
	kmsg.ListOffsets:            "02_list_offsets",
	kmsg.Metadata:               "03_metadata",
	kmsg.OffsetCommit:           "08_offset_commit",
	kmsg.OffsetFetch:            "09_offset_fetch",
	kmsg.FindCoordinator:        "10_find_coordinator",
	kmsg.ConsumerGroupHeartbeat: "68_consumer_group_heartbeat",
	kmsg.ShareGroupHeartbeat:    "76_share_group_heartbeat",
	kmsg.ShareFetch:             "78_share_fetch",
	kmsg.ShareAcknowledge:       "79_share_acknowledge",
}

// Error names the definitions spell otherwise than kerr does.
var nameAliases = map[string]string{
	"NOT_LEADER_FOR_PARTITION": "NOT_LEADER_OR_FOLLOWER",
	"KAFKA_STORAGE_EXCEPTION":  "KAFKA_STORAGE_ERROR",
}

// listed matches "// - NAME (version N+)" and "// NAME is returned ...".
var listed = regexp.MustCompile(`//\s+(?:- )?([A-Z][A-Z_]{3,})(?: \(version| is returned)`)

func kerrByName() map[string]*kerr.Error {
	out := map[string]*kerr.Error{}
	for code := int16(-1); code < 200; code++ {
		if e := kerr.TypedErrorForCode(code); e != nil && (e != kerr.UnknownServerError || code == -1) {
			out[managers.KafkaName(e)] = e
		}
	}
	return out
}

func franzDefinitions(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", "github.com/twmb/franz-go").Output()
	if err != nil {
		t.Fatalf("locating the franz-go module (go list -m): %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "generate", "definitions")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("franz-go protocol definitions: %v", err)
	}
	return dir
}

func rowsOf(api kmsg.Key) map[int16]bool {
	out := map[int16]bool{}
	for _, r := range managers.ErrorTable() {
		if r.API == api && r.Match == managers.MatchCode {
			out[r.Code()] = true
		}
	}
	return out
}

// Every error Kafka's protocol definitions list for an API has a row of
// its own in the table (in some scope): no listed error falls to a default.
func TestErrorTableCoversProtocolLists(t *testing.T) {
	dir := franzDefinitions(t)
	byName := kerrByName()
	for api, file := range definitionFiles {
		text, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		// Only the response's definition lists errors.
		resp := string(text)
		if i := strings.Index(resp, "Response =>"); i >= 0 {
			resp = resp[i:]
		}
		have := rowsOf(api)
		names := listed.FindAllStringSubmatch(resp, -1)
		if len(names) == 0 {
			t.Fatalf("%s: no errors found in %s: the definitions' format changed", kmsg.NameForKey(int16(api)), file)
		}
		for _, m := range names {
			name := m[1]
			if alias, ok := nameAliases[name]; ok {
				name = alias
			}
			if name == "READ_COMMITTED" || name == "READ_UNCOMMITTED" {
				continue
			}
			e, ok := byName[name]
			if !ok {
				t.Errorf("%s lists %s, which kerr does not know", kmsg.NameForKey(int16(api)), name)
				continue
			}
			if !have[e.Code] {
				t.Errorf("%s lists %s (%d) but the error table has no row for it", kmsg.NameForKey(int16(api)), name, e.Code)
			}
		}
	}
}

// javaHandled are the codes the Java 4.4.0 request managers handle by name
// for each API (read from kafka-clients 4.4.0): each must have its own row,
// so the table says what Java says for it.
var javaHandled = map[kmsg.Key][]*kerr.Error{
	kmsg.FindCoordinator: {kerr.GroupAuthorizationFailed},
	kmsg.ConsumerGroupHeartbeat: {kerr.NotCoordinator, kerr.CoordinatorNotAvailable, kerr.CoordinatorLoadInProgress,
		kerr.GroupAuthorizationFailed, kerr.TopicAuthorizationFailed, kerr.InvalidRequest, kerr.GroupMaxSizeReached,
		kerr.UnsupportedAssignor, kerr.FencedMemberEpoch, kerr.UnknownMemberID, kerr.InvalidRegularExpression,
		kerr.GroupIDNotFound, kerr.UnsupportedVersion, kerr.UnreleasedInstanceID, kerr.FencedInstanceID},
	kmsg.ShareGroupHeartbeat: {kerr.NotCoordinator, kerr.CoordinatorNotAvailable, kerr.CoordinatorLoadInProgress,
		kerr.GroupAuthorizationFailed, kerr.TopicAuthorizationFailed, kerr.InvalidRequest, kerr.GroupMaxSizeReached,
		kerr.FencedMemberEpoch, kerr.UnknownMemberID, kerr.GroupIDNotFound, kerr.UnsupportedVersion},
	kmsg.OffsetCommit: {kerr.GroupAuthorizationFailed, kerr.CoordinatorNotAvailable, kerr.NotCoordinator, kerr.RequestTimedOut,
		kerr.OffsetMetadataTooLarge, kerr.InvalidCommitOffsetSize, kerr.CoordinatorLoadInProgress, kerr.UnknownTopicOrPartition,
		kerr.UnknownTopicID, kerr.UnknownMemberID, kerr.StaleMemberEpoch, kerr.TopicAuthorizationFailed},
	kmsg.OffsetFetch: {kerr.CoordinatorLoadInProgress, kerr.UnknownMemberID, kerr.StaleMemberEpoch, kerr.NotCoordinator,
		kerr.CoordinatorNotAvailable, kerr.GroupAuthorizationFailed, kerr.UnknownTopicOrPartition, kerr.UnknownTopicID,
		kerr.TopicAuthorizationFailed, kerr.UnstableOffsetCommit},
	kmsg.ListOffsets: {kerr.UnsupportedForMessageFormat, kerr.NotLeaderForPartition, kerr.ReplicaNotAvailable,
		kerr.KafkaStorageError, kerr.OffsetNotAvailable, kerr.LeaderNotAvailable, kerr.FencedLeaderEpoch,
		kerr.UnknownLeaderEpoch, kerr.UnknownTopicOrPartition, kerr.TopicAuthorizationFailed},
	kmsg.Fetch: {kerr.NotLeaderForPartition, kerr.ReplicaNotAvailable, kerr.KafkaStorageError, kerr.FencedLeaderEpoch,
		kerr.OffsetNotAvailable, kerr.UnknownTopicOrPartition, kerr.UnknownTopicID, kerr.InconsistentTopicID,
		kerr.OffsetOutOfRange, kerr.TopicAuthorizationFailed, kerr.UnknownLeaderEpoch, kerr.UnknownServerError,
		kerr.CorruptMessage, kerr.FetchSessionTopicIDError},
	kmsg.Metadata: {kerr.InvalidTopicException, kerr.TopicAuthorizationFailed, kerr.RebootstrapRequired},
	kmsg.ShareFetch: {kerr.ShareSessionNotFound, kerr.InvalidShareSessionEpoch, kerr.ShareSessionLimitReached,
		kerr.UnknownTopicID, kerr.NotLeaderForPartition, kerr.FencedLeaderEpoch, kerr.UnknownTopicOrPartition,
		kerr.ReplicaNotAvailable, kerr.KafkaStorageError, kerr.OffsetNotAvailable, kerr.InconsistentTopicID,
		kerr.TopicAuthorizationFailed, kerr.UnknownLeaderEpoch, kerr.UnknownServerError, kerr.CorruptMessage},
	kmsg.ShareAcknowledge: {kerr.ShareSessionNotFound, kerr.InvalidShareSessionEpoch, kerr.NotLeaderForPartition,
		kerr.FencedLeaderEpoch, kerr.UnknownTopicOrPartition, kerr.UnknownTopicID},
}

func TestErrorTableCoversJavaHandledCodes(t *testing.T) {
	for api, errs := range javaHandled {
		have := rowsOf(api)
		for _, e := range errs {
			if !have[e.Code] {
				t.Errorf("Java 4.4.0 handles %s for %s by name, but the table has no row for it", managers.KafkaName(e), kmsg.NameForKey(int16(api)))
			}
		}
	}
}

// usedScopes are the (API, scope) pairs the managers classify at.
var usedScopes = map[kmsg.Key][]managers.Scope{
	kmsg.FindCoordinator:        {managers.ScopeResponse},
	kmsg.ConsumerGroupHeartbeat: {managers.ScopeResponse},
	kmsg.ShareGroupHeartbeat:    {managers.ScopeResponse},
	kmsg.OffsetCommit:           {managers.ScopePartition},
	kmsg.OffsetFetch:            {managers.ScopeResponse, managers.ScopePartition},
	kmsg.ListOffsets:            {managers.ScopePartition},
	kmsg.Fetch:                  {managers.ScopeResponse, managers.ScopePartition},
	kmsg.Metadata:               {managers.ScopeResponse, managers.ScopeTopic, managers.ScopePartition},
	kmsg.ShareFetch:             {managers.ScopeResponse, managers.ScopePartition, managers.ScopeAcknowledge},
	kmsg.ShareAcknowledge:       {managers.ScopeResponse, managers.ScopeAcknowledge},
}

// Every Kafka error code, and a transport failure, classifies to a valid
// class at every (API, scope) a manager reads: Classify never panics and
// never returns the zero class for an error.
func TestClassifyIsTotal(t *testing.T) {
	transportErrs := []error{
		errors.New("dial tcp 127.0.0.1:1: connect: connection refused"),
		context.DeadlineExceeded,
		&managers.ResponseError{Key: kmsg.Fetch, Node: 1, Detail: "got *kmsg.MetadataResponse"},
	}
	for api, scopes := range usedScopes {
		for _, scope := range scopes {
			for code := int16(-1); code < 200; code++ {
				err := kerr.ErrorForCode(code)
				if err == nil {
					continue
				}
				if c := managers.Class(api, scope, fmt.Errorf("wrapped: %w", err)); c < managers.ClassRetriable || c > managers.ClassIgnored {
					t.Fatalf("%s %s code %d: class %v", kmsg.NameForKey(int16(api)), scope, code, c)
				}
			}
			for _, err := range transportErrs {
				r := managers.Classify(api, scope, err)
				if r.Match != managers.MatchTransport {
					t.Fatalf("%s %s %v: matched %v, want the transport row", kmsg.NameForKey(int16(api)), scope, err, r.Match)
				}
			}
		}
	}
	if r := managers.Classify(kmsg.Fetch, managers.ScopePartition, nil); r.Class != 0 {
		t.Fatalf("nil error classified as %v", r.Class)
	}
}

// Every row is well formed, names a kerr error that round-trips through
// its code, and cites Java.
func TestErrorTableRows(t *testing.T) {
	if err := managers.CheckErrorTable(); err != nil {
		t.Fatal(err)
	}
	rows := managers.ErrorTable()
	if len(rows) < 150 {
		t.Fatalf("%d rows: the table lost rows", len(rows))
	}
	apis := managers.ErrorTableAPIs()
	if len(apis) != len(definitionFiles) {
		t.Fatalf("table covers %d APIs, want %d", len(apis), len(definitionFiles))
	}
	for _, r := range rows {
		if r.Match == managers.MatchCode && kerr.ErrorForCode(r.Code()) != error(r.Err) {
			t.Errorf("%s %s: code %d does not round-trip", kmsg.NameForKey(int16(r.API)), r.ErrorName(), r.Code())
		}
		if r.Java == "" || r.ClassName() == "" || strings.HasPrefix(r.ClassName(), "invalid") {
			t.Errorf("%s %s: incomplete row %+v", kmsg.NameForKey(int16(r.API)), r.ErrorName(), r)
		}
	}
}

// The decisions the contract items (CONTRACT-*) name, and the ones most easily got wrong.
func TestErrorTableDecisions(t *testing.T) {
	for _, tc := range []struct {
		api   kmsg.Key
		scope managers.Scope
		err   error
		class managers.ErrorClass
		fatal bool
	}{
		// Item 2: surfaced, discovery goes on (Java keeps it as the
		// coordinator's fatal error, not the consumer's).
		{kmsg.FindCoordinator, managers.ScopeResponse, kerr.GroupAuthorizationFailed, managers.ClassAuthorization, false},
		{kmsg.FindCoordinator, managers.ScopeResponse, kerr.CoordinatorNotAvailable, managers.ClassRetriable, false},
		{kmsg.ConsumerGroupHeartbeat, managers.ScopeResponse, kerr.GroupAuthorizationFailed, managers.ClassAuthorization, true},
		{kmsg.ConsumerGroupHeartbeat, managers.ScopeResponse, kerr.TopicAuthorizationFailed, managers.ClassAuthorization, false},
		// Item 4.
		{kmsg.ConsumerGroupHeartbeat, managers.ScopeResponse, kerr.UnknownMemberID, managers.ClassFenced, false},
		{kmsg.ShareGroupHeartbeat, managers.ScopeResponse, kerr.UnknownMemberID, managers.ClassFenced, false},
		{kmsg.ConsumerGroupHeartbeat, managers.ScopeResponse, kerr.NotCoordinator, managers.ClassCoordinator, false},
		{kmsg.ConsumerGroupHeartbeat, managers.ScopeResponse, kerr.RebalanceInProgress, managers.ClassFatal, true},
		{kmsg.ConsumerGroupHeartbeat, managers.ScopeResponse, errors.New("connection reset"), managers.ClassCoordinator, false},
		{kmsg.OffsetCommit, managers.ScopePartition, kerr.RequestTimedOut, managers.ClassCoordinator, false},
		{kmsg.OffsetCommit, managers.ScopePartition, kerr.StaleMemberEpoch, managers.ClassFailed, false},
		{kmsg.OffsetCommit, managers.ScopePartition, kerr.NotEnoughReplicas, managers.ClassFailed, false},
		{kmsg.OffsetFetch, managers.ScopeResponse, kerr.StaleMemberEpoch, managers.ClassRetriable, false},
		{kmsg.OffsetFetch, managers.ScopeResponse, kerr.GroupIDNotFound, managers.ClassIgnored, false},
		{kmsg.Fetch, managers.ScopePartition, kerr.OffsetOutOfRange, managers.ClassOffsetReset, false},
		{kmsg.Fetch, managers.ScopePartition, kerr.NotLeaderForPartition, managers.ClassMetadata, false},
		{kmsg.Fetch, managers.ScopePartition, kerr.TopicAuthorizationFailed, managers.ClassAuthorization, false},
		{kmsg.ListOffsets, managers.ScopePartition, kerr.InvalidRequest, managers.ClassMetadata, false},
		{kmsg.Metadata, managers.ScopeTopic, kerr.TopicAuthorizationFailed, managers.ClassAuthorization, false},
		{kmsg.Metadata, managers.ScopeTopic, kerr.UnknownTopicOrPartition, managers.ClassRetriable, false},
		{kmsg.ShareFetch, managers.ScopeResponse, kerr.InvalidShareSessionEpoch, managers.ClassSessionReset, false},
		{kmsg.ShareFetch, managers.ScopeAcknowledge, kerr.InvalidRecordState, managers.ClassFailed, false},
		{kmsg.ShareAcknowledge, managers.ScopeResponse, kerr.ShareSessionNotFound, managers.ClassSessionReset, false},
	} {
		r := managers.Classify(tc.api, tc.scope, tc.err)
		if r.Class != tc.class || r.Fatal != tc.fatal {
			t.Errorf("%s %s %v: %s (fatal %v), want %s (fatal %v)", kmsg.NameForKey(int16(tc.api)), tc.scope, tc.err, r.Class, r.Fatal, tc.class, tc.fatal)
		}
	}
}
