package group

// Static membership (KIP-345 over KIP-848): a member with group.instance.id
// sends it as InstanceId in every ConsumerGroupHeartbeat (Java's
// ConsumerHeartbeatRequestManager.HeartbeatState.buildRequestData: "set if
// present") and leaves with member epoch -2
// (LEAVE_GROUP_STATIC_MEMBER_EPOCH, AbstractMembershipManager
// .leaveGroupEpoch), so that the coordinator keeps its assignment for the
// member that joins again with the same instance id. A leave because
// max.poll.interval.ms passed is a dynamic leave (epoch -1) for a static
// member too: its partitions must move (Java's
// transitionToSendingLeaveGroup(true)).

import "github.com/kreactor/kreactor/internal/mutant"

// Member epochs of a ConsumerGroupHeartbeat that leaves the group.
const (
	leaveEpoch       int32 = -1 // LEAVE_GROUP_MEMBER_EPOCH
	leaveStaticEpoch int32 = -2 // LEAVE_GROUP_STATIC_MEMBER_EPOCH
)

// UseInstanceID makes the member static with instance id id
// (group.instance.id; "" keeps it dynamic). Call it before the manager is
// first polled.
func (m *Membership) UseInstanceID(id string) { m.instanceID = id }

// InstanceID returns the member's group.instance.id ("" for a dynamic
// member).
func (m *Membership) InstanceID() string { return m.instanceID }

// instanceIDField is the heartbeat's InstanceId: nil for a dynamic member.
func (m *Membership) instanceIDField() *string {
	if m.instanceID == "" {
		return nil
	}
	id := m.instanceID
	return &id
}

// leavingEpoch is the member epoch of the leave heartbeat.
func (m *Membership) leavingEpoch() int32 {
	if m.instanceID != "" && !m.life.StaleLeave() && !mutant.On("static-leave-dynamic") {
		return leaveStaticEpoch
	}
	return leaveEpoch
}
