package fakebroker

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestOffsetForLeaderEpochAfterLeaderChange: asked of the new leader for
// the epoch before a leader change with no records since, the answer is
// that epoch and the log end offset (Kafka 4.4's, as specs/fidelity
// measures it); kfake's own answer is -1/-1. An epoch the partition has
// not reached stays -1/-1 with the correction too.
func TestOffsetForLeaderEpochAfterLeaderChange(t *testing.T) {
	for _, raw := range []bool{false, true} {
		b := startBroker(t, Config{Brokers: 3, Topics: map[string]int32{"t": 1}, KfakeAnswers: raw})
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		if _, err := b.Produce(ctx, "t", 5, nil); err != nil {
			t.Fatal(err)
		}
		before := b.Cluster().PartitionInfo("t", 0)
		next := (before.Leader + 1) % 3
		if err := b.Cluster().MoveTopicPartition("t", 0, next); err != nil {
			t.Fatal(err)
		}
		cl := newClient(t, b, "ofle")
		ask := func(epoch int32) (int32, int64, int16) {
			t.Helper()
			req := kmsg.NewPtrOffsetForLeaderEpochRequest()
			req.ReplicaID = -1
			rt := kmsg.NewOffsetForLeaderEpochRequestTopic()
			rt.Topic = "t"
			rp := kmsg.NewOffsetForLeaderEpochRequestTopicPartition()
			rp.CurrentLeaderEpoch, rp.LeaderEpoch = -1, epoch
			rt.Partitions = append(rt.Partitions, rp)
			req.Topics = append(req.Topics, rt)
			kresp, err := cl.Broker(int(next)).Request(ctx, req)
			if err != nil {
				t.Fatalf("OffsetForLeaderEpoch: %v", err)
			}
			p := kresp.(*kmsg.OffsetForLeaderEpochResponse).Topics[0].Partitions[0]
			return p.LeaderEpoch, p.EndOffset, p.ErrorCode
		}
		epoch, end, code := ask(before.Epoch)
		wantEpoch, wantEnd := before.Epoch, int64(5)
		if raw {
			wantEpoch, wantEnd = -1, -1
		}
		if code != 0 || epoch != wantEpoch || end != wantEnd {
			t.Errorf("KfakeAnswers %v: epoch %d asked after a leader change: (%d, %d, error %d), want (%d, %d, 0)", raw, before.Epoch, epoch, end, code, wantEpoch, wantEnd)
		}
		if epoch, end, code := ask(before.Epoch + 5); code != 0 || epoch != -1 || end != -1 {
			t.Errorf("KfakeAnswers %v: an epoch not reached: (%d, %d, error %d), want (-1, -1, 0)", raw, epoch, end, code)
		}
	}
}
