package wire

import "github.com/twmb/franz-go/pkg/kmsg"

// GroupCoordinatorKeys are the requests a KIP-848 or KIP-932 consumer sends
// to its group coordinator after FindCoordinator: ConsumerGroupHeartbeat,
// ShareGroupHeartbeat, OffsetCommit, OffsetFetch. Both targets' coordinator
// fault (fakebroker.Broker.CoordinatorUnavailable and
// containers/proxy.Proxy.CoordinatorUnavailable) answers these with
// NOT_COORDINATOR. Read-only.
var GroupCoordinatorKeys = []kmsg.Key{
	kmsg.ConsumerGroupHeartbeat,
	kmsg.ShareGroupHeartbeat,
	kmsg.OffsetCommit,
	kmsg.OffsetFetch,
}
