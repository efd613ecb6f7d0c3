package brokerconn

import (
	"strconv"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Lane is which of a broker's connections a request goes on. Kafka answers a
// connection's requests one at a time, in order, so a request that the
// broker may hold (a Fetch long-poll for up to fetch.max.wait.ms, a
// JoinGroup for the rebalance) gets a connection of its own rather than
// delaying the heartbeats and commits behind it.
type Lane uint8

const (
	// Normal carries everything not below: heartbeats, commits, metadata,
	// ListOffsets, coordinator lookups.
	Normal Lane = iota
	// Fetch carries Fetch, ShareFetch and ShareAcknowledge. The share
	// requests share one connection: the broker ties a share session to
	// it (KIP-932) and releases the member's records when it closes.
	Fetch
	// Group carries JoinGroup and SyncGroup (the classic protocol), which
	// the coordinator holds until the rebalance ends.
	Group
	// Slow carries requests with a timeout field of their own
	// (kmsg.TimeoutRequest), which the broker may hold that long.
	Slow
	// Produce carries Produce (acks=0, which brokers never answer, is not
	// supported).
	Produce
)

// String returns the lane's name, for errors and logs.
func (l Lane) String() string {
	switch l {
	case Normal:
		return "normal"
	case Fetch:
		return "fetch"
	case Group:
		return "group"
	case Slow:
		return "slow"
	case Produce:
		return "produce"
	}
	return "lane(" + strconv.Itoa(int(l)) + ")"
}

// LaneOf returns the lane req goes on. ListOffsets has a timeout field from
// v10 but is answered at once, so it stays on Normal.
func LaneOf(req kmsg.Request) Lane {
	switch kmsg.Key(req.Key()) {
	case kmsg.Produce:
		return Produce
	case kmsg.Fetch, kmsg.ShareFetch, kmsg.ShareAcknowledge:
		return Fetch
	case kmsg.JoinGroup, kmsg.SyncGroup:
		return Group
	case kmsg.ListOffsets:
		return Normal
	}
	if _, ok := req.(kmsg.TimeoutRequest); ok {
		return Slow
	}
	return Normal
}
