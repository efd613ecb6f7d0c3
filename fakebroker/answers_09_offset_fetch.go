package fakebroker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// OffsetFetch (key 9), v1-10, as Kafka 4.4 answers it (measured by
// specs/fidelity against 4.4.0):
//
//   - A group with no committed offsets that the coordinator does not know
//     (it never committed, or it is a share group) is no error: every
//     requested partition answers offset -1, leader epoch -1, metadata ""
//     and no error, and a request for all topics (null) answers none. kfake
//     answers GROUP_ID_NOT_FOUND (v2+; at v0-1, where that code has no field,
//     no partitions at all), which the Java consumer treats as fatal on every
//     poll: a consumer with a group id and manual assignment cannot start.
//   - v10 (topics by id): a topic id the cluster does not know answers
//     UNKNOWN_TOPIC_ID on each of its partitions; kfake answers offset -1 and
//     no error.
//   - Metadata is "" where nothing or a null metadata was committed; kfake
//     answers null.
//
// A GROUP_ID_NOT_FOUND a fault installed through the Broker injects is kept.
func answerOffsetFetch(b *Broker, kreq kmsg.Request, kresp kmsg.Response) bool {
	req, resp := kreq.(*kmsg.OffsetFetchRequest), kresp.(*kmsg.OffsetFetchResponse)
	if req.Version <= 7 {
		return answerOffsetFetchSingle(b, req, resp)
	}
	changed := false
	for i := range resp.Groups {
		g := &resp.Groups[i]
		rg := offsetFetchRequestGroup(req, i, g.Group)
		if rg != nil && g.ErrorCode == kerr.GroupIDNotFound.Code && !b.injects(kmsg.OffsetFetch, kerr.GroupIDNotFound.Code) {
			g.ErrorCode = 0
			g.Topics = noCommitTopics(rg.Topics)
			changed = true
		}
		for j := range g.Topics {
			t := &g.Topics[j]
			unknownID := req.Version >= 10 && b.topicIDUnknown(t.TopicID)
			for k := range t.Partitions {
				p := &t.Partitions[k]
				if unknownID && p.ErrorCode == 0 {
					p.ErrorCode, p.Offset, p.LeaderEpoch = kerr.UnknownTopicID.Code, -1, -1
					changed = true
				}
				if p.Metadata == nil {
					p.Metadata = kmsg.StringPtr("")
					changed = true
				}
			}
		}
	}
	return changed
}

// answerOffsetFetchSingle is answerOffsetFetch for v1-7 (one group, fields
// at the top level).
func answerOffsetFetchSingle(b *Broker, req *kmsg.OffsetFetchRequest, resp *kmsg.OffsetFetchResponse) bool {
	changed := false
	var unknown bool
	if req.Version >= 2 {
		unknown = resp.ErrorCode == kerr.GroupIDNotFound.Code && !b.injects(kmsg.OffsetFetch, kerr.GroupIDNotFound.Code)
	} else {
		// v0-1 carry no top-level error: kfake's GROUP_ID_NOT_FOUND shows
		// only as no partitions for the topics asked for, and so would an
		// injected group error, so only without injected faults.
		unknown = len(req.Topics) > 0 && len(resp.Topics) == 0 && !b.injectsAny(kmsg.OffsetFetch)
	}
	if unknown {
		resp.ErrorCode = 0
		resp.Topics = resp.Topics[:0]
		for _, rt := range req.Topics {
			t := kmsg.NewOffsetFetchResponseTopic()
			t.Topic = rt.Topic
			for _, p := range rt.Partitions {
				t.Partitions = append(t.Partitions, noCommitPartitionLegacy(p))
			}
			resp.Topics = append(resp.Topics, t)
		}
		changed = true
	}
	for i := range resp.Topics {
		for j := range resp.Topics[i].Partitions {
			if p := &resp.Topics[i].Partitions[j]; p.Metadata == nil {
				p.Metadata = kmsg.StringPtr("")
				changed = true
			}
		}
	}
	return changed
}

// offsetFetchRequestGroup returns the request group answered by the i-th
// response group, named name (kfake answers groups in request order).
func offsetFetchRequestGroup(req *kmsg.OffsetFetchRequest, i int, name string) *kmsg.OffsetFetchRequestGroup {
	if i < len(req.Groups) && req.Groups[i].Group == name {
		return &req.Groups[i]
	}
	for j := range req.Groups {
		if req.Groups[j].Group == name {
			return &req.Groups[j]
		}
	}
	return nil
}

// noCommitTopics is the v8+ answer for topics with nothing committed: each
// requested topic (by name, and by id for v10) with each requested
// partition at offset -1; nil for a request for all topics.
func noCommitTopics(req []kmsg.OffsetFetchRequestGroupTopic) []kmsg.OffsetFetchResponseGroupTopic {
	if len(req) == 0 {
		return nil
	}
	out := make([]kmsg.OffsetFetchResponseGroupTopic, 0, len(req))
	for _, rt := range req {
		t := kmsg.NewOffsetFetchResponseGroupTopic()
		t.Topic, t.TopicID = rt.Topic, rt.TopicID
		for _, p := range rt.Partitions {
			sp := kmsg.NewOffsetFetchResponseGroupTopicPartition()
			sp.Partition, sp.Offset, sp.LeaderEpoch, sp.Metadata = p, -1, -1, kmsg.StringPtr("")
			t.Partitions = append(t.Partitions, sp)
		}
		out = append(out, t)
	}
	return out
}

// noCommitPartitionLegacy is the v0-7 answer for a partition with nothing
// committed.
func noCommitPartitionLegacy(p int32) kmsg.OffsetFetchResponseTopicPartition {
	sp := kmsg.NewOffsetFetchResponseTopicPartition()
	sp.Partition, sp.Offset, sp.LeaderEpoch, sp.Metadata = p, -1, -1, kmsg.StringPtr("")
	return sp
}
