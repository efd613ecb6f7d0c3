// Package testrig drives request managers on a fixed clock for their unit
// tests (managers/group, managers/share): one poll and one answer at a
// time, no loop, no network; time moves only when a test moves it. It also
// turns the error table into test cases, one per row. Tests only.
package testrig

import (
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

// The cluster every rig pretends to talk to.
const (
	Node    = int32(1) // the coordinator and every partition's leader
	Topic   = "t"      // 3 partitions
	GroupID = "g"
)

// TopicID is Topic's id.
var TopicID = [16]byte{1, 2, 3}

// ErrTransport stands for a request that got no answer.
var ErrTransport = errors.New("read tcp 127.0.0.1:9092: connection reset by peer")

// Rig holds the clock, the host effects go to, a known coordinator and
// metadata for Topic. Back has no jitter, so every wait is exact.
type Rig struct {
	T     *testing.T
	Now   time.Time
	Host  *reactor.RecordingHost
	Back  managers.Backoff
	Coord *managers.Coordinator
	Meta  *managers.Metadata
}

// New returns a rig whose coordinator (key type keyType) is Node and whose
// metadata knows Topic.
func New(t *testing.T, keyType int8) *Rig {
	t.Helper()
	r := &Rig{T: t, Now: time.Unix(1_000_000, 0), Host: &reactor.RecordingHost{},
		Back: managers.Backoff{Initial: 100 * time.Millisecond, Max: time.Second}}
	r.Coord = managers.NewCoordinator(GroupID, keyType, r.Back)
	r.Meta = managers.NewMetadata([]string{"127.0.0.1:9092"}, time.Hour, r.Back)
	r.FindCoordinator(nil)
	r.Only(r.Meta.Poll(r.Tx(), []string{Topic})).OnComplete(r.Tx(), MetadataAnswer(), nil)
	return r
}

// Tx is a transaction at the rig's time. When the clock-free core lands,
// this is the one line to port.
func (r *Rig) Tx() *reactor.Tx { return reactor.NewTx(r.Now, 1, 0, r.Host) }

// Advance moves the clock.
func (r *Rig) Advance(d time.Duration) { r.Now = r.Now.Add(d) }

// Only returns the one request of a Ready result, failing the test
// otherwise.
func (r *Rig) Only(res reactor.Result) *reactor.Request {
	r.T.Helper()
	if res.Kind != reactor.KindReady || len(res.Requests) != 1 {
		r.T.Fatalf("want Ready with one request, got %s", res)
	}
	return res.Requests[0]
}

// FindCoordinator polls discovery and answers it with err (nil: Node).
func (r *Rig) FindCoordinator(err *kerr.Error) {
	r.T.Helper()
	r.AnswerFind(r.Only(r.Coord.Poll(r.Tx(), true, r.Meta.Addrs())), err)
}

// AnswerFind answers a FindCoordinator request with err (nil: Node).
func (r *Rig) AnswerFind(req *reactor.Request, err *kerr.Error) {
	resp := kmsg.NewPtrFindCoordinatorResponse()
	c := kmsg.NewFindCoordinatorResponseCoordinator()
	c.Key, c.NodeID, c.Host, c.Port = GroupID, Node, "127.0.0.1", 9092
	if err != nil {
		c.ErrorCode, c.NodeID, c.Host, c.Port = err.Code, -1, "", -1
	}
	resp.Coordinators = append(resp.Coordinators, c)
	req.OnComplete(r.Tx(), resp, nil)
}

// MetadataAnswer knows Node as the only broker and Topic with 3 partitions
// led by it.
func MetadataAnswer() *kmsg.MetadataResponse {
	resp := kmsg.NewPtrMetadataResponse()
	b := kmsg.NewMetadataResponseBroker()
	b.NodeID, b.Host, b.Port = Node, "127.0.0.1", 9092
	resp.Brokers = append(resp.Brokers, b)
	mt := kmsg.NewMetadataResponseTopic()
	mt.Topic, mt.TopicID = kmsg.StringPtr(Topic), TopicID
	for p := range int32(3) {
		mp := kmsg.NewMetadataResponseTopicPartition()
		mp.Partition, mp.Leader = p, Node
		mt.Partitions = append(mt.Partitions, mp)
	}
	resp.Topics = append(resp.Topics, mt)
	return resp
}

// Complete answers req with case c: a transport failure, or answer(code).
func (r *Rig) Complete(req *reactor.Request, c ErrorCase, answer func(code int16) any) {
	if code, transport := c.Code(); transport {
		req.OnComplete(r.Tx(), nil, c.Err)
	} else {
		req.OnComplete(r.Tx(), answer(code), nil)
	}
}

// ExpectRetry fails the test unless res retries one backoff step from now
// and, for metadata errors, a refresh was asked for since repolls.
func (r *Rig) ExpectRetry(res reactor.Result, class managers.ErrorClass, repolls int) {
	r.T.Helper()
	if res.Kind != reactor.KindRetryAt || res.At != r.Now.Add(r.Back.Delay(1)) {
		r.T.Fatalf("poll %s, want RetryAt(+%s)", res, r.Back.Delay(1))
	}
	if class == managers.ClassMetadata && r.Host.Repolls == repolls {
		r.T.Fatal("no metadata refresh asked for")
	}
}

// API is the Kafka API a request carries.
func API(req *reactor.Request) kmsg.Key { return kmsg.Key(req.Payload.(*managers.Call).Req.Key()) }

// ErrorCase is one way an API can fail at a scope: Row is the error table's
// row for it, Err what the manager is answered with.
type ErrorCase struct {
	Row managers.Row
	Err error
}

// Code is the error code to answer with, or transport=true for a request
// that gets no answer (Err itself).
func (c ErrorCase) Code() (code int16, transport bool) {
	var ke *kerr.Error
	if errors.As(c.Err, &ke) {
		return ke.Code, false
	}
	return 0, true
}

// Name names the case for t.Run.
func (c ErrorCase) Name() string { return c.Row.ErrorName() + "/" + c.Err.Error() }

// ErrorCases are the cases for api at scope: one per row of the error
// table (a code row's own code; for the other-code rows, a code the scope
// does not name with the row's retriability; ErrTransport for the
// transport row).
func ErrorCases(t *testing.T, api kmsg.Key, scope managers.Scope) []ErrorCase {
	t.Helper()
	named := map[int16]bool{}
	var out []ErrorCase
	for _, row := range managers.ErrorTable() {
		if row.API != api {
			continue
		}
		switch {
		case row.Match == managers.MatchTransport: // at every scope: a request can always go unanswered
			out = append(out, ErrorCase{row, ErrTransport})
		case row.Scope != scope:
		case row.Match == managers.MatchCode:
			named[row.Code()] = true
			out = append(out, ErrorCase{row, row.Err})
		}
	}
	for _, row := range managers.ErrorTable() {
		if row.API != api || row.Scope != scope || row.Match == managers.MatchCode || row.Match == managers.MatchTransport {
			continue
		}
		for code := int16(1); code < 200; code++ {
			e := kerr.TypedErrorForCode(code)
			if e == nil || e == kerr.UnknownServerError || named[code] || e.Retriable != (row.Match == managers.MatchOtherRetriable) {
				continue
			}
			out = append(out, ErrorCase{row, e})
			break
		}
	}
	if len(out) < 3 {
		t.Fatalf("%s %s: only %d error cases", kmsg.NameForKey(int16(api)), scope, len(out))
	}
	return out
}
