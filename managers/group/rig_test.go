package group_test

// The regular consumer's managers on the fixed-clock rig
// (managers/internal/testrig): a reactor.Core over the probe, the
// coordinator, metadata and the managers under test, in the consumer's
// order (membership, commit, fetch, offsets).

import (
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
	"github.com/kreactor/kreactor/managers/internal/testrig"
	"github.com/kreactor/kreactor/reactor"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	ms          = time.Millisecond
	coordNode   = testrig.Node
	topic       = testrig.Topic
	groupID     = testrig.GroupID
	rebalanceTO = 30 * time.Second
)

// rig is the group consumer's rig. Its view is that of member, or, with
// member nil, of a manually assigned consumer owning assigned; groupID ""
// is a consumer without a group.
type rig struct {
	*testrig.Rig[group.View]
	member   *group.Membership
	assigned []managers.TopicPartition
	groupID  string
	closing  bool // the view's Closing
	polling  bool // an application Poll waits (the view's Polling)
}

func newRig(t *testing.T) *rig {
	return &rig{Rig: testrig.New[group.View](t, managers.KeyTypeGroup), groupID: groupID}
}

// start builds the core over ms.
func (r *rig) start(ms ...reactor.Manager[group.View]) { r.Start(r.view, ms...) }

// startMember builds the core over membership m, whose view it is.
func (r *rig) startMember(m *group.Membership) {
	r.member = m
	r.start(m)
}

// view is the view the consumer builds at every poll round.
func (r *rig) view(time.Time) group.View {
	coord, known := r.Coord.Known()
	v := group.View{Coordinator: coord, CoordinatorKnown: known, Meta: r.Meta, GroupID: r.groupID,
		Assignment: r.assigned, AssignmentVersion: uint64(len(r.assigned)), Closing: r.closing, Polling: r.polling}
	if m := r.member; m != nil {
		owned, ver := m.Owned()
		v.InGroup, v.MemberID, v.MemberEpoch = m.InGroup(), m.MemberID(), m.Epoch()
		v.Assignment, v.AssignmentVersion = owned, ver
	}
	return v
}
