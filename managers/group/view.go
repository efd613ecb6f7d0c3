package group

import (
	"github.com/kreactor/kreactor/managers"
)

// View is what every regular-consumer manager sees in one poll round
// (managers.View). InGroup says the member takes part in a KIP-848 group
// (subscribed; epoch 0 while joining); the Assignment is the reconciled
// group assignment or the manual one. Polling is Poll activity for
// max.poll.interval.ms (the reactor; the baseline reports each poll event
// through Membership.OnPoll instead).
type View managers.View

// CommitIdentity returns the member id and epoch an OffsetCommit or
// OffsetFetch must carry: the member's when in a group, else "" and -1 (a
// simple commit for a manually assigned consumer).
func (v View) CommitIdentity() (string, int32) {
	if v.InGroup {
		return v.MemberID, v.MemberEpoch
	}
	return "", -1
}
