package managers

import "fmt"

// TopicPartition names one partition.
type TopicPartition struct {
	Topic     string
	Partition int32
}

func (tp TopicPartition) String() string { return fmt.Sprintf("%s/%d", tp.Topic, tp.Partition) }

// Position is a fetch or commit position: the next offset to read and the
// leader epoch of the last record read (-1 if unknown). Matches
// OffsetCommit's CommittedOffset / CommittedLeaderEpoch.
type Position struct {
	Offset      int64
	LeaderEpoch int32
}
