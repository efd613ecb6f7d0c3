package fakebroker

import (
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// OffsetForLeaderEpoch (key 23, KIP-320), as Kafka 4.4 answers it
// (measured by specs/fidelity against 4.4.0): a leader that took over adds
// its epoch to the leader epoch cache at its log end offset
// (LeaderEpochFileCache), so asked for an earlier epoch whose records are
// the last in the log, it answers that epoch and the log end offset. kfake
// keeps no cache entry for a leader change and answers -1/-1 when no batch
// of a later epoch exists, which kafka-clients and kgo read as "epoch
// unknown" and answer by resetting the partition (auto.offset.reset)
// instead of continuing from their position.
//
// The correction answers the requested epoch and the high watermark (the
// log end offset: kfake has no replication lag) where kfake answered -1/-1
// without an error for an epoch below the partition's current one. Kafka
// answers the largest epoch with records at or below the requested one;
// the two agree whenever the requested epoch is one that records carry,
// which is what a consumer asks for (the epoch of the last record it
// consumed, or of its committed offset).
func answerOffsetForLeaderEpoch(b *Broker, kreq kmsg.Request, kresp kmsg.Response) bool {
	req := kreq.(*kmsg.OffsetForLeaderEpochRequest)
	resp := kresp.(*kmsg.OffsetForLeaderEpochResponse)
	asked := map[string]map[int32]int32{}
	for _, t := range req.Topics {
		m := map[int32]int32{}
		for _, p := range t.Partitions {
			m[p.Partition] = p.LeaderEpoch
		}
		asked[t.Topic] = m
	}
	changed := false
	for i := range resp.Topics {
		t := &resp.Topics[i]
		for j := range t.Partitions {
			p := &t.Partitions[j]
			epoch, ok := asked[t.Topic][p.Partition]
			if !ok || p.ErrorCode != 0 || p.LeaderEpoch != -1 || p.EndOffset != -1 || epoch < 0 {
				continue
			}
			var info *kfake.PartitionInfo
			b.lookup(func(c *kfake.Cluster) { info = c.PartitionInfo(t.Topic, p.Partition) })
			if info == nil || epoch >= info.Epoch {
				continue // an epoch the partition has not reached: -1/-1 is Kafka's answer too
			}
			p.LeaderEpoch, p.EndOffset = epoch, info.HighWatermark
			changed = true
		}
	}
	return changed
}
