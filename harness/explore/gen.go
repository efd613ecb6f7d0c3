package explore

import (
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	"pgregory.net/rapid"
)

// Bounds of generated schedules.
const (
	MaxLength   = 8 * time.Second // the timeline, virtual time
	MaxMembers  = 3
	MaxActions  = 10 // per member
	MaxFaults   = 4
	MaxInitial  = 300 // records before any member starts
	MaxBatch    = 20  // records per producer tick and topic
	MaxFaultFor = 4 * time.Second
)

// faultCodes are the Kafka errors an error fault may answer, per API key:
// the retriable ones a broker sends during failover and leader moves, and
// the membership errors (fenced, unknown member) that force a rejoin.
// OFFSET_OUT_OF_RANGE is left out on purpose: its answer (a reset to
// earliest) redelivers records by design, which the checker would call a
// duplicate.
var faultCodes = map[kmsg.Key][]*kerr.Error{
	kmsg.FindCoordinator:        {kerr.CoordinatorNotAvailable, kerr.CoordinatorLoadInProgress, kerr.GroupAuthorizationFailed},
	kmsg.Metadata:               {kerr.LeaderNotAvailable, kerr.UnknownTopicOrPartition},
	kmsg.Fetch:                  {kerr.NotLeaderForPartition, kerr.UnknownTopicOrPartition, kerr.FencedLeaderEpoch},
	kmsg.ListOffsets:            {kerr.NotLeaderForPartition, kerr.LeaderNotAvailable},
	kmsg.OffsetCommit:           {kerr.CoordinatorNotAvailable, kerr.NotCoordinator, kerr.CoordinatorLoadInProgress, kerr.RequestTimedOut, kerr.UnknownMemberID, kerr.FencedMemberEpoch, kerr.StaleMemberEpoch},
	kmsg.OffsetFetch:            {kerr.CoordinatorNotAvailable, kerr.NotCoordinator, kerr.CoordinatorLoadInProgress},
	kmsg.ConsumerGroupHeartbeat: {kerr.CoordinatorNotAvailable, kerr.NotCoordinator, kerr.CoordinatorLoadInProgress, kerr.FencedMemberEpoch, kerr.UnknownMemberID},
	kmsg.ShareGroupHeartbeat:    {kerr.CoordinatorNotAvailable, kerr.NotCoordinator, kerr.UnknownMemberID},
	kmsg.ShareFetch:             {kerr.NotLeaderForPartition, kerr.UnknownTopicOrPartition},
	kmsg.ShareAcknowledge:       {kerr.NotLeaderForPartition, kerr.UnknownTopicOrPartition},
}

// membershipError reports whether code, on a heartbeat API, fences the
// member or says it is unknown (it must rejoin at member epoch 0).
func membershipError(k kmsg.Key, code int16) bool {
	return (k == kmsg.ConsumerGroupHeartbeat || k == kmsg.ShareGroupHeartbeat) &&
		(code == kerr.UnknownMemberID.Code || code == kerr.FencedMemberEpoch.Code)
}

// regularKeys and shareKeys are the API keys faults pick from.
var (
	regularKeys = []kmsg.Key{kmsg.FindCoordinator, kmsg.Metadata, kmsg.Fetch, kmsg.ListOffsets, kmsg.OffsetCommit, kmsg.OffsetFetch, kmsg.ConsumerGroupHeartbeat}
	shareKeys   = []kmsg.Key{kmsg.FindCoordinator, kmsg.Metadata, kmsg.ShareGroupHeartbeat, kmsg.ShareFetch, kmsg.ShareAcknowledge}
)

// GenOptions narrows what Gen draws.
type GenOptions struct {
	// Regular and Share say which kinds of group schedules may have (both
	// false means regular only).
	Regular, Share bool
}

// Gen is the schedule generator: Gen(o).Example(seed) is schedule seed,
// the same in every process; shrinking drives it toward fewer members,
// actions and faults, shorter times and smaller counts.
func Gen(o GenOptions) *rapid.Generator[Schedule] {
	if !o.Regular && !o.Share {
		o.Regular = true
	}
	return rapid.Custom(func(t *rapid.T) Schedule { return draw(t, o) })
}

func ms(t *rapid.T, lo, hi int, label string) time.Duration {
	return time.Duration(rapid.IntRange(lo, hi).Draw(t, label)) * time.Millisecond
}

func draw(t *rapid.T, o GenOptions) Schedule {
	var s Schedule
	switch {
	case o.Regular && o.Share:
		s.Share = rapid.Bool().Draw(t, "share")
	default:
		s.Share = o.Share
	}
	s.Brokers = rapid.IntRange(1, 3).Draw(t, "brokers")
	nt := rapid.IntRange(1, 2).Draw(t, "topics")
	for i := range nt {
		s.Topics = append(s.Topics, Topic{Name: fmt.Sprintf("t%d", i), Partitions: int32(rapid.IntRange(1, 4).Draw(t, "partitions"))})
	}
	s.Length = ms(t, 1000, int(MaxLength/time.Millisecond), "length")
	s.Produce = ProduceWorkload{
		Initial: rapid.IntRange(0, MaxInitial).Draw(t, "initial"),
		Batch:   rapid.IntRange(0, MaxBatch).Draw(t, "batch"),
		Every:   ms(t, 50, 500, "every"),
	}
	nm := rapid.IntRange(1, MaxMembers).Draw(t, "members")
	for i := range nm {
		s.Members = append(s.Members, drawMember(t, s, i))
	}
	nf := rapid.IntRange(0, MaxFaults).Draw(t, "faults")
	for range nf {
		s.Faults = append(s.Faults, drawFault(t, s))
	}
	slices.SortStableFunc(s.Faults, func(a, b Fault) int { return int(a.At - b.At) })
	return s
}

func drawMember(t *rapid.T, s Schedule, i int) Member {
	m := Member{
		Name:            fmt.Sprintf("c%d", i+1),
		Start:           ms(t, 0, int(s.Length/time.Millisecond/2), "start"),
		AutoCommit:      rapid.Bool().Draw(t, "auto_commit"),
		MaxPollInterval: ms(t, 1000, 5000, "max_poll_interval"),
		PollTimeout:     ms(t, 0, 1000, "poll_timeout"),
	}
	kinds := []ActionKind{ActPoll, ActCommitSync, ActCommitAsync, ActPause, ActResume, ActWakeup, ActSubscribe, ActStall, ActClose}
	if s.Share {
		kinds = []ActionKind{ActPoll, ActCommitSync, ActCommitAsync, ActWakeup, ActSubscribe, ActStall, ActClose, ActAckRelease}
	}
	na := rapid.IntRange(0, MaxActions).Draw(t, "actions")
	for range na {
		a := Action{At: ms(t, 0, int(s.Length/time.Millisecond), "at"), Kind: rapid.SampledFrom(kinds).Draw(t, "action")}
		switch a.Kind {
		case ActPoll:
			a.Timeout = ms(t, 0, 2000, "poll_timeout")
		case ActCommitSync:
			a.Timeout = ms(t, 0, 3000, "commit_timeout")
		case ActStall:
			a.Timeout = ms(t, 100, 6000, "stall")
		case ActClose:
			a.Timeout = ms(t, 0, 3000, "close_timeout")
		case ActSubscribe:
			for j := range s.Topics {
				if rapid.Bool().Draw(t, "subscribe_topic") {
					a.Topics = append(a.Topics, j)
				}
			}
			if len(a.Topics) == 0 {
				a.Topics = []int{0}
			}
		}
		m.Actions = append(m.Actions, a)
	}
	slices.SortStableFunc(m.Actions, func(a, b Action) int { return int(a.At - b.At) })
	return m
}

func drawFault(t *rapid.T, s Schedule) Fault {
	// FaultRefuse and FaultBlackHole are left out: on the in-memory network
	// healing a refuse (fakebroker's Refuse re-listening), or installing a
	// black hole on a node that had one before, blocks a bubble goroutine in
	// a way synctest does not count as durable, and the clock freezes (seen:
	// every run of a 500 ms refuse froze at its heal; a second black hole on
	// node 1, 800 ms after the first healed, froze seed 132). They run on
	// the wall clock, in schedules written by hand.
	kinds := []FaultKind{FaultError, FaultDelay, FaultHold, FaultDrop, FaultStop, FaultCoordinatorDown, FaultCoordinatorMove, FaultBrokersDown}
	f := Fault{
		At:   ms(t, 0, int(s.Length/time.Millisecond), "fault_at"),
		For:  ms(t, 1, int(MaxFaultFor/time.Millisecond), "fault_for"),
		Kind: rapid.SampledFrom(kinds).Draw(t, "fault"),
	}
	keys := regularKeys
	if s.Share {
		keys = shareKeys
	}
	switch f.Kind {
	case FaultError:
		k := rapid.SampledFrom(keys).Draw(t, "key")
		f.Key = int16(k)
		f.Code = rapid.SampledFrom(faultCodes[k]).Draw(t, "code").Code
		counts := []int{-1, 1, 2, 3}
		if membershipError(k, f.Code) {
			// A fenced or unknown member rejoins at member epoch 0, and
			// Kafka never answers a join with these: until healed, the
			// fault would answer every join with them, a broker no client
			// has to survive (kgo's share consumer rejoined without
			// pause and froze the bubble). A few requests: a fencing.
			counts = []int{1, 2, 3}
		}
		f.Count = rapid.SampledFrom(counts).Draw(t, "count")
	case FaultDelay:
		f.Key = int16(rapid.SampledFrom(keys).Draw(t, "key"))
		f.Delay = ms(t, 1, 3000, "delay")
		f.Count = rapid.SampledFrom([]int{-1, 1, 2}).Draw(t, "count")
	case FaultHold:
		f.Key = int16(rapid.SampledFrom(keys).Draw(t, "key"))
	case FaultDrop, FaultStop:
		f.Node = int32(rapid.IntRange(0, s.Brokers-1).Draw(t, "node"))
	}
	return f
}
