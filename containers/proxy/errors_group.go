package proxy

import (
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Error helpers for group-keyed APIs (see errAPIs).

func findCoordinatorSkeleton(p *Proxy, kreq kmsg.Request) kmsg.Response {
	req := kreq.(*kmsg.FindCoordinatorRequest)
	resp := newResponse(p, req).(*kmsg.FindCoordinatorResponse)
	if req.Version >= 4 {
		for _, k := range req.CoordinatorKeys {
			c := kmsg.NewFindCoordinatorResponseCoordinator()
			c.Key, c.NodeID, c.Port = k, -1, -1
			resp.Coordinators = append(resp.Coordinators, c)
		}
	} else {
		resp.NodeID, resp.Port = -1, -1
	}
	return resp
}

func findCoordinatorSet(_ *Proxy, kreq kmsg.Request, kresp kmsg.Response, m match) int {
	req, resp := kreq.(*kmsg.FindCoordinatorRequest), kresp.(*kmsg.FindCoordinatorResponse)
	isGroup := req.CoordinatorType == 0 // v0 has no type: groups only
	sel := func(key string) bool { return !m.byTopic && (m.all || m.group == "" || isGroup && key == m.group) }
	if req.Version < 4 {
		if !sel(req.CoordinatorKey) {
			return 0
		}
		resp.ErrorCode, resp.NodeID, resp.Host, resp.Port = m.code, -1, "", -1
		return 1
	}
	n := 0
	for i := range resp.Coordinators {
		c := &resp.Coordinators[i]
		if sel(c.Key) {
			c.ErrorCode, c.NodeID, c.Host, c.Port = m.code, -1, "", -1
			n++
		}
	}
	return n
}

func consumerHeartbeatSet(_ *Proxy, kreq kmsg.Request, kresp kmsg.Response, m match) int {
	if !m.wholeGroup(kreq.(*kmsg.ConsumerGroupHeartbeatRequest).Group) {
		return 0
	}
	kresp.(*kmsg.ConsumerGroupHeartbeatResponse).ErrorCode = m.code
	return 1
}

func shareHeartbeatSet(_ *Proxy, kreq kmsg.Request, kresp kmsg.Response, m match) int {
	if !m.wholeGroup(kreq.(*kmsg.ShareGroupHeartbeatRequest).GroupID) {
		return 0
	}
	kresp.(*kmsg.ShareGroupHeartbeatResponse).ErrorCode = m.code
	return 1
}

func offsetCommitSkeleton(p *Proxy, kreq kmsg.Request) kmsg.Response {
	req := kreq.(*kmsg.OffsetCommitRequest)
	resp := newResponse(p, req).(*kmsg.OffsetCommitResponse)
	for _, t := range req.Topics {
		rt := kmsg.NewOffsetCommitResponseTopic()
		rt.Topic, rt.TopicID = t.Topic, t.TopicID
		for _, tp := range t.Partitions {
			rp := kmsg.NewOffsetCommitResponseTopicPartition()
			rp.Partition = tp.Partition
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

func offsetCommitSet(p *Proxy, kreq kmsg.Request, kresp kmsg.Response, m match) int {
	req, resp := kreq.(*kmsg.OffsetCommitRequest), kresp.(*kmsg.OffsetCommitResponse)
	if !m.groupOK(req.Group) {
		return 0
	}
	n := 0
	for i := range resp.Topics {
		t := &resp.Topics[i]
		if !m.topicOK(p.name(t.Topic, t.TopicID)) {
			continue
		}
		for j := range t.Partitions {
			t.Partitions[j].ErrorCode = m.code
			n++
		}
	}
	return n
}

func offsetFetchSkeleton(p *Proxy, kreq kmsg.Request) kmsg.Response {
	req := kreq.(*kmsg.OffsetFetchRequest)
	resp := newResponse(p, req).(*kmsg.OffsetFetchResponse)
	if req.Version < 8 {
		for _, t := range req.Topics {
			rt := kmsg.NewOffsetFetchResponseTopic()
			rt.Topic = t.Topic
			for _, part := range t.Partitions {
				rp := kmsg.NewOffsetFetchResponseTopicPartition()
				rp.Partition, rp.Offset, rp.LeaderEpoch = part, -1, -1
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp
	}
	for _, g := range req.Groups {
		rg := kmsg.NewOffsetFetchResponseGroup()
		rg.Group = g.Group
		for _, t := range g.Topics {
			rt := kmsg.NewOffsetFetchResponseGroupTopic()
			rt.Topic, rt.TopicID = t.Topic, t.TopicID
			for _, part := range t.Partitions {
				rp := kmsg.NewOffsetFetchResponseGroupTopicPartition()
				rp.Partition, rp.Offset, rp.LeaderEpoch = part, -1, -1
				rt.Partitions = append(rt.Partitions, rp)
			}
			rg.Topics = append(rg.Topics, rt)
		}
		resp.Groups = append(resp.Groups, rg)
	}
	return resp
}

func offsetFetchSet(p *Proxy, kreq kmsg.Request, kresp kmsg.Response, m match) int {
	req, resp := kreq.(*kmsg.OffsetFetchRequest), kresp.(*kmsg.OffsetFetchResponse)
	if req.Version < 8 {
		if !m.groupOK(req.Group) {
			return 0
		}
		n := 0
		if !m.byTopic {
			if req.Version >= 2 {
				resp.ErrorCode = m.code
			}
			n = 1
		}
		for i := range resp.Topics {
			t := &resp.Topics[i]
			if m.byTopic && !m.topicOK(t.Topic) {
				continue
			}
			for j := range t.Partitions {
				t.Partitions[j].ErrorCode, t.Partitions[j].Offset = m.code, -1
				if m.byTopic {
					n++
				}
			}
		}
		return n
	}
	n := 0
	for i := range resp.Groups {
		g := &resp.Groups[i]
		if !m.groupOK(g.Group) {
			continue
		}
		if !m.byTopic {
			g.ErrorCode, g.Topics = m.code, nil
			n++
			continue
		}
		for j := range g.Topics {
			t := &g.Topics[j]
			if !m.topicOK(p.name(t.Topic, t.TopicID)) {
				continue
			}
			for k := range t.Partitions {
				t.Partitions[k].ErrorCode, t.Partitions[k].Offset = m.code, -1
				n++
			}
		}
	}
	return n
}
