package group_test

// The regular consumer's managers on the fixed-clock rig (managers/internal/testrig).

import (
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
	"github.com/kreactor/kreactor/managers/internal/testrig"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	ms          = time.Millisecond
	coordNode   = testrig.Node
	topic       = testrig.Topic
	groupID     = testrig.GroupID
	rebalanceTO = 30 * time.Second
)

type rig struct{ *testrig.Rig }

func newRig(t *testing.T) *rig { return &rig{testrig.New(t, managers.KeyTypeGroup)} }

// view is the view of a member (or, with m nil, of a manually assigned
// consumer owning assigned).
func (r *rig) view(m *group.Membership, assigned ...managers.TopicPartition) group.View {
	coord, known := r.Coord.Known()
	v := group.View{Coordinator: coord, CoordinatorKnown: known, Meta: r.Meta, GroupID: groupID,
		Assignment: assigned, AssignmentVersion: uint64(len(assigned))}
	if m != nil {
		owned, ver := m.Owned()
		v.InGroup, v.MemberID, v.MemberEpoch = m.InGroup(), m.MemberID(), m.Epoch()
		v.Assignment, v.AssignmentVersion = owned, ver
	}
	return v
}
