package managers

// Error classification: what every request manager does with each error the
// Kafka protocol lists for the API it speaks (the "error
// classification per API"). The decisions live once, as data, in
// errtable.go; every manager asks Classify and switches on the class, so no
// manager keeps its own reading of an error code. Each row cites the Java
// 4.4.0 consumer class and method it follows (kafka-clients 4.4.0,
// org.apache.kafka.clients.consumer.internals) and, where we differ, why.

import (
	"errors"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ErrorClass is what a manager does with an error. The zero value is
// invalid.
type ErrorClass uint8

const (
	// ClassRetriable: retry after the backoff (retry.backoff.ms growing to
	// retry.backoff.max.ms).
	ClassRetriable ErrorClass = 1 + iota
	// ClassMetadata: the leader or topic metadata is stale: ask for a
	// Metadata refresh and retry after the backoff.
	ClassMetadata
	// ClassCoordinator: the coordinator moved or is unavailable: mark it
	// unknown and rediscover it (FindCoordinator backs off), then retry.
	ClassCoordinator
	// ClassFenced: the member is fenced: give up the assignment and rejoin
	// with member epoch 0, at once the first time, after the growing
	// backoff when fenced again before a heartbeat succeeds.
	ClassFenced
	// ClassSessionReset: the share or fetch session is gone: open a new
	// one (share session epoch 0; a full Fetch, KIP-227), at once the
	// first time, after the growing backoff when it happens again before a
	// request succeeds.
	ClassSessionReset
	// ClassOffsetReset: the fetch position is out of range: reset it by
	// auto.offset.reset (surfaced when that is "none").
	ClassOffsetReset
	// ClassFailed: the operation fails with the error, which reaches the
	// application (a Poll error, the commit's result, the acknowledgement
	// callback); the manager goes on, retrying after the backoff where it
	// has something to retry.
	ClassFailed
	// ClassAuthorization: an authorization error that reaches the
	// application; Row.Fatal says whether the manager stops (as
	// ClassFatal) or goes on as ClassFailed.
	ClassAuthorization
	// ClassFatal: the error reaches the application and the manager stops
	// (a member becomes MemberFatal).
	ClassFatal
	// ClassIgnored: not an error for this manager: it proceeds as if the
	// answer carried no error (the row's note says what it does instead).
	ClassIgnored
)

func (c ErrorClass) String() string {
	switch c {
	case ClassRetriable:
		return "retriable"
	case ClassMetadata:
		return "metadata refresh"
	case ClassCoordinator:
		return "coordinator moved"
	case ClassFenced:
		return "fenced"
	case ClassSessionReset:
		return "session reset"
	case ClassOffsetReset:
		return "offset reset"
	case ClassFailed:
		return "failed"
	case ClassAuthorization:
		return "authorization"
	case ClassFatal:
		return "fatal"
	case ClassIgnored:
		return "ignored"
	}
	return fmt.Sprintf("invalid(%d)", uint8(c))
}

// Scope is the level of a response an error code was read from. The zero
// value is invalid.
type Scope uint8

const (
	// ScopeResponse: the response's top-level error code (for
	// FindCoordinator v4+ the coordinator entry's; for OffsetFetch v8+ the
	// group's), and transport failures of the request.
	ScopeResponse Scope = 1 + iota
	// ScopeTopic: a topic's error code (Metadata).
	ScopeTopic
	// ScopePartition: a partition's error code.
	ScopePartition
	// ScopeAcknowledge: an acknowledgement's error code (ShareFetch
	// AcknowledgeErrorCode, ShareAcknowledge partition ErrorCode).
	ScopeAcknowledge
)

func (s Scope) String() string {
	switch s {
	case ScopeResponse:
		return "response"
	case ScopeTopic:
		return "topic"
	case ScopePartition:
		return "partition"
	case ScopeAcknowledge:
		return "acknowledgement"
	}
	return fmt.Sprintf("invalid(%d)", uint8(s))
}

// Match says which errors a Row covers. The zero value is invalid.
type Match uint8

const (
	// MatchCode: the one error code in Row.Err.
	MatchCode Match = 1 + iota
	// MatchOtherRetriable: any retriable Kafka error code the API's scope
	// has no MatchCode row for.
	MatchOtherRetriable
	// MatchOther: any other Kafka error code the scope has no row for.
	MatchOther
	// MatchTransport: no Kafka answer: connection failure, request
	// timeout, cancelled request or malformed response (a ResponseError).
	MatchTransport
)

// Row is one decision of the error table: for API at Scope, the errors
// Match covers get Class.
type Row struct {
	API   kmsg.Key
	Scope Scope
	Match Match
	// Err is the Kafka error of a MatchCode row; nil otherwise.
	Err   *kerr.Error
	Class ErrorClass
	// Fatal is set on ClassAuthorization rows whose error also stops the
	// manager (Java's transitionToFatal), and on every ClassFatal row.
	Fatal bool
	// Java is what the Java 4.4.0 consumer does, with the class and method
	// it does it in.
	Java string
	// Differs is why we depart from Java here; "" when we follow it.
	Differs string
}

// ErrorName is the row's Kafka error name as the protocol spells it today
// (NOT_LEADER_OR_FOLLOWER for code 6), or a description of the errors a
// non-code row covers.
func (r Row) ErrorName() string {
	switch r.Match {
	case MatchCode:
		return KafkaName(r.Err)
	case MatchOtherRetriable:
		return "any other retriable error"
	case MatchOther:
		return "any other error"
	case MatchTransport:
		return "no answer (connection, timeout, malformed)"
	}
	return "invalid"
}

// Code is the row's Kafka error code; 0 for non-code rows.
func (r Row) Code() int16 {
	if r.Err == nil {
		return 0
	}
	return r.Err.Code
}

// ClassName is the class as the report shows it: "authorization (fatal)"
// for an authorization error that stops the manager.
func (r Row) ClassName() string {
	if r.Class == ClassAuthorization && r.Fatal {
		return "authorization (fatal)"
	}
	return r.Class.String()
}

// KafkaName is err's name as Kafka's protocol spells it now; kerr keeps
// the pre-KIP-392 name of code 6.
func KafkaName(err *kerr.Error) string {
	if err == kerr.NotLeaderForPartition {
		return "NOT_LEADER_OR_FOLLOWER"
	}
	return err.Message
}

func (r Row) validate() error {
	name := kmsg.NameForKey(int16(r.API))
	switch {
	case name == "":
		return fmt.Errorf("unknown API key %d", r.API)
	case r.Scope < ScopeResponse || r.Scope > ScopeAcknowledge:
		return fmt.Errorf("%s: invalid scope %d", name, r.Scope)
	case r.Match < MatchCode || r.Match > MatchTransport:
		return fmt.Errorf("%s: invalid match %d", name, r.Match)
	case (r.Match == MatchCode) != (r.Err != nil):
		return fmt.Errorf("%s %s: a code row needs Err, and only a code row has one", name, r.ErrorName())
	case r.Match == MatchTransport && r.Scope != ScopeResponse:
		return fmt.Errorf("%s: the transport row belongs to ScopeResponse", name)
	case r.Class < ClassRetriable || r.Class > ClassIgnored:
		return fmt.Errorf("%s %s: invalid class %d", name, r.ErrorName(), r.Class)
	case r.Class == ClassFatal && !r.Fatal:
		return fmt.Errorf("%s %s: a fatal row must set Fatal", name, r.ErrorName())
	case r.Fatal && r.Class != ClassFatal && r.Class != ClassAuthorization:
		return fmt.Errorf("%s %s: only fatal and authorization rows may set Fatal", name, r.ErrorName())
	case r.Java == "":
		return fmt.Errorf("%s %s: no Java behaviour cited", name, r.ErrorName())
	}
	return nil
}

// Classify returns the row that decides err for api at scope: the row of
// err's code, else the scope's row for other (retriable) codes; a non-Kafka
// error (transport failure, timeout, ResponseError) gets the API's
// transport row. A nil err returns the zero Row. It panics when the table
// has no row for api and scope: every manager's API and scope is in the
// table, and its unit test proves it.
func Classify(api kmsg.Key, scope Scope, err error) Row {
	if err == nil {
		return Row{}
	}
	rows := apiRows(api)
	var ke *kerr.Error
	if !errors.As(err, &ke) {
		return mustFind(rows, api, ScopeResponse, MatchTransport)
	}
	for _, r := range rows {
		if r.Match == MatchCode && r.Scope == scope && r.Err.Code == ke.Code {
			return r
		}
	}
	if ke.Retriable {
		if r, ok := find(rows, scope, MatchOtherRetriable); ok {
			return r
		}
	}
	return mustFind(rows, api, scope, MatchOther)
}

func find(rows []Row, scope Scope, m Match) (Row, bool) {
	for _, r := range rows {
		if r.Scope == scope && r.Match == m {
			return r, true
		}
	}
	return Row{}, false
}

func mustFind(rows []Row, api kmsg.Key, scope Scope, m Match) Row {
	r, ok := find(rows, scope, m)
	if !ok {
		panic(fmt.Sprintf("managers: error table has no %q row for %s %s", Row{Match: m}.ErrorName(), kmsg.NameForKey(int16(api)), scope))
	}
	return r
}

// Class is Classify(api, scope, err).Class.
func Class(api kmsg.Key, scope Scope, err error) ErrorClass {
	return Classify(api, scope, err).Class
}

// ErrorTable returns every row of the error classification, for the
// conformance report's "API x error -> class" table: rows are ordered by
// API key, then scope, then code rows in table order, then the other-code
// and transport rows. Each row gives the API (kmsg.NameForKey(API)), the
// scope, the error (ErrorName, Code), the class (ClassName), what the Java
// 4.4.0 consumer does (Java) and why we differ, if we do (Differs). The
// slice is new on each call: callers may keep or change it.
func ErrorTable() []Row {
	var out []Row
	for _, api := range tableAPIs() {
		out = append(out, apiRows(api)...)
	}
	slices.SortStableFunc(out, func(a, b Row) int {
		switch {
		case a.API != b.API:
			return int(a.API) - int(b.API)
		case a.Scope != b.Scope:
			return int(a.Scope) - int(b.Scope)
		}
		return int(a.Match) - int(b.Match)
	})
	return out
}

// ErrorTableAPIs are the APIs the table classifies, in key order.
func ErrorTableAPIs() []kmsg.Key { return tableAPIs() }

// CheckErrorTable reports the first malformed row, duplicate row (two rows
// for one API, scope and code, or two other-code rows of one kind), or
// scope without an "any other error" row, or API without a transport row;
// nil when the table is well formed. Its unit test keeps it nil.
func CheckErrorTable() error {
	for _, api := range tableAPIs() {
		rows := apiRows(api)
		seen := map[[3]int]bool{}
		scopes := map[Scope]bool{}
		transport := false
		for _, r := range rows {
			if err := r.validate(); err != nil {
				return err
			}
			if r.API != api {
				return fmt.Errorf("%s row listed under %s", kmsg.NameForKey(int16(r.API)), kmsg.NameForKey(int16(api)))
			}
			k := [3]int{int(r.Scope), int(r.Match), int(r.Code())}
			if seen[k] {
				return fmt.Errorf("two rows for %s %s %s", kmsg.NameForKey(int16(api)), r.Scope, r.ErrorName())
			}
			seen[k] = true
			if r.Match == MatchTransport {
				transport = true
			} else {
				scopes[r.Scope] = true
			}
		}
		if !transport {
			return fmt.Errorf("%s has no transport row", kmsg.NameForKey(int16(api)))
		}
		for scope := range scopes {
			if _, ok := find(rows, scope, MatchOther); !ok {
				return fmt.Errorf("%s %s has no \"any other error\" row", kmsg.NameForKey(int16(api)), scope)
			}
		}
	}
	return nil
}
