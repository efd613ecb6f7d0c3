package explore

import (
	"time"

	"github.com/kreactor/kreactor/harness/measure"
	"github.com/kreactor/kreactor/harness/sim"
)

// Trace is everything a run recorded that the checker reads: the broker's
// side (sim.History, heartbeats, acknowledgements) and the application's
// side (each call with its outcome), plus the loop counters sampled over
// time for subjects with a probe.
type Trace struct {
	Subject string
	Bubble  bool // recorded in a synctest bubble (virtual time)
	History *sim.History
	// Ops is every application call in completion order.
	Ops []Op
	// Heartbeats is every group heartbeat a broker read.
	Heartbeats []Heartbeat
	// Acks is every acknowledgement (share) a broker read.
	Acks []Ack
	// Faults is every fault as installed and healed.
	Faults []FaultWindow
	// Samples are each member's loop counters every SampleEvery (probe
	// subjects only).
	Samples []Sample
	// Probed names the members that had a probe.
	Probed map[string]bool
	// Retry is the retry schedule the members were configured with.
	Retry measure.RetrySchedule
	// Leaked is the stack of every goroutine of the consumers' packages
	// still alive after every member closed.
	Leaked []string
	// Commits is the group's committed offsets as the brokers accepted
	// them, read right after each OffsetCommit a broker read and
	// CommitSettle later (and once after the members closed): one
	// CommitPoint per accepted commit seen, in acceptance order. A commit
	// overwritten before a read is missed (the detectors reading it are
	// conservative about that).
	Commits []CommitPoint
	// MemberIDs maps each member id the broker's group listed to the
	// member's client id (the member's name), from the same samples.
	MemberIDs map[string]string
	// Err is the run's own error (a harness failure, not an anomaly).
	Err error
}

// OpKind is an application call kind in a Trace.
type OpKind string

// Op kinds.
const (
	OpPoll        OpKind = "poll"
	OpCommitSync  OpKind = "commit-sync"
	OpCommitAsync OpKind = "commit-async"
	OpCallback    OpKind = "callback" // a CommitAsync callback ran (ID names the commit)
	OpClose       OpKind = "close"
	OpAck         OpKind = "ack"        // share: the application acknowledged Records (AckType)
	OpAckResult   OpKind = "ack-result" // share: the acknowledgement commit callback reported Records with Err
	OpOther       OpKind = "other"
	OpPanic       OpKind = "panic" // an application call panicked (Err: the value and stack)
)

// Rec names one record.
type Rec struct {
	Topic     string
	Partition int32
	Offset    int64
}

// EpochKey identifies one assignment epoch of a member as the application
// sees it: how many times its assignment changed between polls (or a Poll
// returned an error other than a wakeup: the client may have reset its
// positions, as kgo does after detecting lost records) and its member epoch
// (probe subjects; 0 for black-box ones).
type EpochKey struct {
	Changes     int
	MemberEpoch int32
}

// Op is one application call of a member and its outcome.
type Op struct {
	Member     string
	Kind       OpKind
	What       string // for OpOther: the action
	Start, End time.Duration
	Epoch      EpochKey // poll: the epoch after it returned
	// Assigned is the member's assignment as the application read it
	// right after a regular Poll returned (Assignment()).
	Assigned []Rec         // Offset unused (-1)
	Records  []Rec         // poll: delivered; ack: acknowledged
	AckType  int8          // ack: 1 accept, 2 release
	ID       int           // commit-async, callback: the commit's number
	Timeout  time.Duration // close, commit-sync, poll: the deadline given
	// Inside is, for a close, the time the client spent in it as its own
	// process measured it (harness.CallTime; End-Start for in-process
	// subjects).
	Inside time.Duration
	Err    string // "" when nil
	// Failed lists partitions a share CommitSync reported failed.
	Failed []Rec
}

// Heartbeat is one ConsumerGroupHeartbeat / ShareGroupHeartbeat a broker
// read.
type Heartbeat struct {
	At       time.Duration
	MemberID string
	Epoch    int32
	// Owned is the partitions the member said it owns (KIP-848's
	// topic partitions field), when it sent them (OwnedSent): a client
	// sends them when they change, so one without a partition it had is
	// its acknowledgement of that partition's revocation.
	Owned     []Rec // Offset unused (-1)
	OwnedSent bool
	topics    map[int32][16]byte // Owned[i]'s topic id, resolved after the run
}

// Ack is one acknowledged offset a broker read (ShareFetch or
// ShareAcknowledge acknowledgement batches, one Ack per offset).
type Ack struct {
	At       time.Duration
	Key      int16  // the request's API key
	MemberID string // the request's member id (Trace.MemberIDs names its member)
	Rec      Rec
	Type     int8 // 0 gap, 1 accept, 2 release, 3 reject, 4 renew
	topic    [16]byte
}

// FaultWindow is one fault as it happened.
type FaultWindow struct {
	Fault
	From, To time.Duration
	Err      string // the fault could not be installed (then From == To)
}

// Sample is a member's loop counters at At.
type Sample struct {
	At       time.Duration
	Member   string
	Steps    uint64
	Spurious uint64
}

// CommitPoint is one committed offset a broker accepted.
type CommitPoint struct {
	At        time.Duration // when the broker accepted it (kfake's commit time), since the start
	Topic     string
	Partition int32
	Offset    int64
}
