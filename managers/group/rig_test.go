package group_test

// A fixed-clock rig for driving the regular consumer's managers one poll and
// one answer at a time (no loop, no network): time moves only when a test
// moves it. When the clock-free core lands, tx() is the one place to port.

import (
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	"go.uber.org/goleak"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
	"github.com/kreactor/kreactor/reactor"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	ms          = time.Millisecond
	coordNode   = int32(1)
	topic       = "t"
	groupID     = "g"
	rebalanceTO = 30 * time.Second
)

var topicID = [16]byte{1, 2, 3}

// errTransport stands for a request that got no answer.
var errTransport = errors.New("read tcp 127.0.0.1:9092: connection reset by peer")

type rig struct {
	t     *testing.T
	now   time.Time
	host  *reactor.RecordingHost
	back  managers.Backoff
	coord *managers.Coordinator
	meta  *managers.Metadata
}

// newRig has a known coordinator (node 1) and metadata for topic "t" (3
// partitions led by node 1); the backoff has no jitter, so waits are exact.
func newRig(t *testing.T) *rig {
	t.Helper()
	r := &rig{t: t, now: time.Unix(1_000_000, 0), host: &reactor.RecordingHost{},
		back: managers.Backoff{Initial: 100 * ms, Max: time.Second}}
	r.coord = managers.NewCoordinator(groupID, managers.KeyTypeGroup, r.back)
	r.meta = managers.NewMetadata([]string{"127.0.0.1:9092"}, time.Hour, r.back)
	r.findCoordinator(nil)
	res := r.meta.Poll(r.tx(), []string{topic})
	r.only(res).OnComplete(r.tx(), metadataAnswer(), nil)
	return r
}

func (r *rig) tx() *reactor.Tx { return reactor.NewTx(r.now, 1, 0, r.host) }

func (r *rig) advance(d time.Duration) { r.now = r.now.Add(d) }

// only returns the one request of a Ready result.
func (r *rig) only(res reactor.Result) *reactor.Request {
	r.t.Helper()
	if res.Kind != reactor.KindReady || len(res.Requests) != 1 {
		r.t.Fatalf("want Ready with one request, got %s", res)
	}
	return res.Requests[0]
}

// findCoordinator answers a FindCoordinator with err (nil: node 1).
func (r *rig) findCoordinator(err *kerr.Error) {
	r.t.Helper()
	r.answerFind(r.only(r.coord.Poll(r.tx(), true, r.meta.Addrs())), err)
}

// answerFind answers a FindCoordinator request with err (nil: node 1).
func (r *rig) answerFind(req *reactor.Request, err *kerr.Error) {
	resp := kmsg.NewPtrFindCoordinatorResponse()
	c := kmsg.NewFindCoordinatorResponseCoordinator()
	c.Key, c.NodeID, c.Host, c.Port = groupID, coordNode, "127.0.0.1", 9092
	if err != nil {
		c.ErrorCode, c.NodeID, c.Host, c.Port = err.Code, -1, "", -1
	}
	resp.Coordinators = append(resp.Coordinators, c)
	req.OnComplete(r.tx(), resp, nil)
}

func metadataAnswer() *kmsg.MetadataResponse {
	resp := kmsg.NewPtrMetadataResponse()
	b := kmsg.NewMetadataResponseBroker()
	b.NodeID, b.Host, b.Port = coordNode, "127.0.0.1", 9092
	resp.Brokers = append(resp.Brokers, b)
	mt := kmsg.NewMetadataResponseTopic()
	mt.Topic, mt.TopicID = kmsg.StringPtr(topic), topicID
	for p := range int32(3) {
		mp := kmsg.NewMetadataResponseTopicPartition()
		mp.Partition, mp.Leader = p, coordNode
		mt.Partitions = append(mt.Partitions, mp)
	}
	resp.Topics = append(resp.Topics, mt)
	return resp
}

// view is the view of a member (or, with m nil, of a manually assigned
// consumer owning assigned).
func (r *rig) view(m *group.Membership, assigned ...managers.TopicPartition) group.View {
	coord, known := r.coord.Known()
	v := group.View{Coordinator: coord, CoordinatorKnown: known, Meta: r.meta, GroupID: groupID,
		Assignment: assigned, AssignmentVersion: uint64(len(assigned))}
	if m != nil {
		owned, ver := m.Owned()
		v.InGroup, v.MemberID, v.MemberEpoch = m.InGroup(), m.MemberID(), m.Epoch()
		v.Assignment, v.AssignmentVersion = owned, ver
	}
	return v
}

// errorCases are the ways an API can fail at a scope: one per row of the
// error table for it (a code row's own code; a code the scope does not
// name for the other-code rows; a transport error for the transport row).
type errorCase struct {
	row managers.Row
	err error
}

func errorCases(t *testing.T, api kmsg.Key, scope managers.Scope) []errorCase {
	t.Helper()
	named := map[int16]bool{}
	var out []errorCase
	for _, row := range managers.ErrorTable() {
		if row.API != api {
			continue
		}
		switch {
		case row.Match == managers.MatchTransport:
			out = append(out, errorCase{row, errTransport})
		case row.Scope != scope:
		case row.Match == managers.MatchCode:
			named[row.Code()] = true
			out = append(out, errorCase{row, row.Err})
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
			out = append(out, errorCase{row, e})
			break
		}
	}
	if len(out) < 3 {
		t.Fatalf("%s %s: only %d error cases", kmsg.NameForKey(int16(api)), scope, len(out))
	}
	return out
}

// code is the error code to answer with, and whether the case is a
// transport failure instead.
func (c errorCase) code() (int16, bool) {
	var ke *kerr.Error
	if errors.As(c.err, &ke) {
		return ke.Code, false
	}
	return 0, true
}

func (c errorCase) name() string { return c.row.ErrorName() + "/" + c.err.Error() }
