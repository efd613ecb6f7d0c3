package managers

import (
	"fmt"
	"slices"

	"github.com/kreactor/kreactor/reactor"
)

// TopicPartition names one partition.
type TopicPartition struct {
	Topic     string
	Partition int32
}

func (tp TopicPartition) String() string { return fmt.Sprintf("%s/%d", tp.Topic, tp.Partition) }

// NamePartitions returns an assignment received by topic id (a heartbeat
// answer's) as named partitions, sorted, once meta has a name for every
// topic id in it. Until then it asks meta for a refresh and reports false:
// the fetch path cannot use a partition it cannot name.
func NamePartitions(tx *reactor.Tx, meta *Metadata, byID map[[16]byte][]int32) ([]TopicPartition, bool) {
	var tps []TopicPartition
	for id, ps := range byID {
		name, ok := meta.TopicName(id)
		if !ok {
			meta.RequestRefresh(tx)
			return nil, false
		}
		for _, p := range ps {
			tps = append(tps, TopicPartition{Topic: name, Partition: p})
		}
	}
	slices.SortFunc(tps, CompareTopicPartition)
	return tps, true
}

// Position is a fetch or commit position: the next offset to read and the
// leader epoch of the last record read (-1 if unknown). Matches
// OffsetCommit's CommittedOffset / CommittedLeaderEpoch.
type Position struct {
	Offset      int64
	LeaderEpoch int32
}
