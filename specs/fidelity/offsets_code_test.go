package fidelity

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// offsetFetchCode must see a coordinator still loading wherever the answer
// carries it: a v1 answer has no group-level error, so Kafka puts
// COORDINATOR_LOAD_IN_PROGRESS on each partition (seen on Kafka 4.4 in a
// CI run: the spec compared that answer instead of retrying it).
func TestOffsetFetchCodeSeesPartitionErrors(t *testing.T) {
	loading := kerr.CoordinatorLoadInProgress.Code
	part := func(code int16) kmsg.OffsetFetchResponseTopicPartition {
		p := kmsg.NewOffsetFetchResponseTopicPartition()
		p.Offset, p.ErrorCode = -1, code
		return p
	}
	v1 := kmsg.NewPtrOffsetFetchResponse()
	v1.Version = 1
	t1 := kmsg.NewOffsetFetchResponseTopic()
	t1.Topic, t1.Partitions = "t", []kmsg.OffsetFetchResponseTopicPartition{part(loading), part(loading)}
	v1.Topics = append(v1.Topics, t1)

	v8 := kmsg.NewPtrOffsetFetchResponse()
	v8.Version = 8
	g := kmsg.NewOffsetFetchResponseGroup()
	gt := kmsg.NewOffsetFetchResponseGroupTopic()
	gp := kmsg.NewOffsetFetchResponseGroupTopicPartition()
	gp.Offset, gp.ErrorCode = -1, loading
	gt.Topic, gt.Partitions = "t", append(gt.Partitions, gp)
	g.Group, g.Topics = "g", append(g.Topics, gt)
	v8.Groups = append(v8.Groups, g)

	v8group := kmsg.NewPtrOffsetFetchResponse()
	v8group.Version = 8
	ng := kmsg.NewOffsetFetchResponseGroup()
	ng.Group, ng.ErrorCode = "g", kerr.NotCoordinator.Code
	v8group.Groups = append(v8group.Groups, ng)

	clean := kmsg.NewPtrOffsetFetchResponse()
	clean.Version = 1
	ct := kmsg.NewOffsetFetchResponseTopic()
	ct.Topic, ct.Partitions = "t", []kmsg.OffsetFetchResponseTopicPartition{part(0)}
	clean.Topics = append(clean.Topics, ct)

	for name, tc := range map[string]struct {
		resp *kmsg.OffsetFetchResponse
		want int16
	}{
		"v1, loading on every partition":  {v1, loading},
		"v8, loading on a partition":      {v8, loading},
		"v8, group-level NOT_COORDINATOR": {v8group, kerr.NotCoordinator.Code},
		"v1, no error":                    {clean, 0},
	} {
		if got := offsetFetchCode(tc.resp); got != tc.want {
			t.Errorf("%s: code %d, want %d", name, got, tc.want)
		}
	}
}
