package proxy

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/wire"
)

// Error helpers for topic-keyed APIs (see errAPIs).

func metadataSet(p *Proxy, _ kmsg.Request, kresp kmsg.Response, m match) int {
	resp := kresp.(*kmsg.MetadataResponse)
	if !m.noGroup() {
		return 0
	}
	n := 0
	for i := range resp.Topics {
		t := &resp.Topics[i]
		name := ""
		if t.Topic != nil {
			name = *t.Topic
		}
		if !m.topicOK(p.name(name, t.TopicID)) {
			continue
		}
		t.ErrorCode, t.Partitions = m.code, nil
		n++
	}
	return n
}

func listOffsetsSkeleton(p *Proxy, kreq kmsg.Request) kmsg.Response {
	req := kreq.(*kmsg.ListOffsetsRequest)
	resp := newResponse(p, req).(*kmsg.ListOffsetsResponse)
	for _, t := range req.Topics {
		rt := kmsg.NewListOffsetsResponseTopic()
		rt.Topic = t.Topic
		for _, tp := range t.Partitions {
			rp := kmsg.NewListOffsetsResponseTopicPartition()
			rp.Partition = tp.Partition
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

func listOffsetsSet(_ *Proxy, _ kmsg.Request, kresp kmsg.Response, m match) int {
	resp := kresp.(*kmsg.ListOffsetsResponse)
	if !m.noGroup() {
		return 0
	}
	n := 0
	for i := range resp.Topics {
		t := &resp.Topics[i]
		if !m.topicOK(t.Topic) {
			continue
		}
		for j := range t.Partitions {
			rp := &t.Partitions[j]
			rp.ErrorCode, rp.Timestamp, rp.Offset, rp.LeaderEpoch, rp.OldStyleOffsets = m.code, -1, -1, -1, nil
			n++
		}
	}
	return n
}

func shareFetchSkeleton(p *Proxy, kreq kmsg.Request) kmsg.Response {
	req := kreq.(*kmsg.ShareFetchRequest)
	resp := newResponse(p, req).(*kmsg.ShareFetchResponse)
	for _, t := range req.Topics {
		rt := kmsg.NewShareFetchResponseTopic()
		rt.TopicID = t.TopicID
		for _, tp := range t.Partitions {
			rp := kmsg.NewShareFetchResponseTopicPartition()
			rp.Partition = tp.Partition
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

func shareFetchSet(p *Proxy, kreq kmsg.Request, kresp kmsg.Response, m match) int {
	req, resp := kreq.(*kmsg.ShareFetchRequest), kresp.(*kmsg.ShareFetchResponse)
	if !m.groupOK(deref(req.GroupID)) {
		return 0
	}
	if !m.byTopic {
		resp.ErrorCode, resp.Topics = m.code, nil
		return 1
	}
	n := 0
	for i := range resp.Topics {
		t := &resp.Topics[i]
		if !m.topicOK(p.topicName(t.TopicID)) {
			continue
		}
		for j := range t.Partitions {
			rp := &t.Partitions[j]
			rp.ErrorCode, rp.Records, rp.AcquiredRecords = m.code, nil, nil
			n++
		}
	}
	return n
}

func shareAckSkeleton(p *Proxy, kreq kmsg.Request) kmsg.Response {
	req := kreq.(*kmsg.ShareAcknowledgeRequest)
	resp := newResponse(p, req).(*kmsg.ShareAcknowledgeResponse)
	for _, t := range req.Topics {
		rt := kmsg.NewShareAcknowledgeResponseTopic()
		rt.TopicID = t.TopicID
		for _, tp := range t.Partitions {
			rp := kmsg.NewShareAcknowledgeResponseTopicPartition()
			rp.Partition = tp.Partition
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

func shareAckSet(p *Proxy, kreq kmsg.Request, kresp kmsg.Response, m match) int {
	req, resp := kreq.(*kmsg.ShareAcknowledgeRequest), kresp.(*kmsg.ShareAcknowledgeResponse)
	if !m.groupOK(deref(req.GroupID)) {
		return 0
	}
	if !m.byTopic {
		resp.ErrorCode, resp.Topics = m.code, nil
		return 1
	}
	n := 0
	for i := range resp.Topics {
		t := &resp.Topics[i]
		if !m.topicOK(p.topicName(t.TopicID)) {
			continue
		}
		for j := range t.Partitions {
			t.Partitions[j].ErrorCode = m.code
			n++
		}
	}
	return n
}

// fetchSessionCodes are the Fetch errors a broker puts in the top-level
// ErrorCode.
var fetchSessionCodes = map[int16]bool{
	kerr.FetchSessionIDNotFound.Code:   true,
	kerr.InvalidFetchSessionEpoch.Code: true,
	kerr.FetchSessionTopicIDError.Code: true,
}

// setFetch sets m.code on the partitions of parts m selects in resp, adding
// entries for partitions resp does not carry (an incremental response lists
// only changed partitions), and returns how many it set; see errAPIs.
func (p *Proxy) setFetch(resp *kmsg.FetchResponse, parts []wire.FetchPart, m match) int {
	if !m.noGroup() {
		return 0
	}
	top := fetchSessionCodes[m.code]
	n := 0
	for _, fp := range parts {
		if !m.topicOK(p.name(fp.Topic, fp.TopicID)) {
			continue
		}
		n++
		if !top {
			rp := fetchPartition(resp, fp)
			rp.ErrorCode, rp.HighWatermark, rp.LastStableOffset, rp.LogStartOffset = m.code, -1, -1, -1
			rp.RecordBatches, rp.AbortedTransactions, rp.PreferredReadReplica = nil, nil, -1
		}
	}
	if top && n > 0 {
		resp.ErrorCode, resp.Topics = m.code, nil
		return 1
	}
	return n
}

// fetchPartition returns resp's entry for fp, adding it if missing.
func fetchPartition(resp *kmsg.FetchResponse, fp wire.FetchPart) *kmsg.FetchResponseTopicPartition {
	ti := -1
	for i := range resp.Topics {
		t := &resp.Topics[i]
		if t.Topic == fp.Topic && t.TopicID == fp.TopicID {
			ti = i
			break
		}
	}
	if ti < 0 {
		t := kmsg.NewFetchResponseTopic()
		t.Topic, t.TopicID = fp.Topic, fp.TopicID
		resp.Topics = append(resp.Topics, t)
		ti = len(resp.Topics) - 1
	}
	t := &resp.Topics[ti]
	for j := range t.Partitions {
		if t.Partitions[j].Partition == fp.Partition {
			return &t.Partitions[j]
		}
	}
	rp := kmsg.NewFetchResponseTopicPartition()
	rp.Partition = fp.Partition
	t.Partitions = append(t.Partitions, rp)
	return &t.Partitions[len(t.Partitions)-1]
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
