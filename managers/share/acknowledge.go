package share

// ShareAcknowledge.
//
// Kafka API: ShareAcknowledge (key 79) v1+ (KIP-932; IsRenewAck, KIP-1222)
// to a partition's leader in that broker's share session: for commits, for
// acknowledgements of partitions the next ShareFetch will not carry
// (buffered or no longer assigned), and at close with epoch -1. Each
// partition's outcome is the answer's error code; a partition the broker
// left out is failed, never reported accepted.

import (
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

func (c *Consume) shareAcknowledge(tx *reactor.Tx, v View, node int32, addr string, s *session, epoch int32, acks map[managers.TopicPartition][]ackEntry, commits []*commitReq) *reactor.Request {
	req := kmsg.NewPtrShareAcknowledgeRequest()
	req.GroupID = kmsg.StringPtr(c.group)
	req.MemberID = kmsg.StringPtr(v.MemberID)
	req.ShareSessionEpoch = epoch
	req.IsRenewAck = hasRenew(acks)
	byID := map[[16]byte]int{}
	for _, tp := range slices.SortedFunc(maps.Keys(acks), managers.CompareTopicPartition) {
		i := topicIndex(byID, &req.Topics, c.topicID(tp), func(id [16]byte) kmsg.ShareAcknowledgeRequestTopic {
			t := kmsg.NewShareAcknowledgeRequestTopic()
			t.TopicID = id
			return t
		})
		p := kmsg.NewShareAcknowledgeRequestTopicPartition()
		p.Partition = tp.Partition
		for _, b := range toBatches(acks[tp]) {
			p.AcknowledgementBatches = append(p.AcknowledgementBatches, kmsg.ShareAcknowledgeRequestTopicPartitionAcknowledgementBatch{FirstOffset: b.first, LastOffset: b.last, AcknowledgeTypes: []int8{int8(b.typ)}})
		}
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, p)
	}
	// What this request answers: the pending acknowledgements of these
	// partitions and each commit's share on this broker.
	type commitShare struct {
		cr  *commitReq
		tps []managers.TopicPartition
	}
	var shares []commitShare
	for _, cr := range commits {
		var tps []managers.TopicPartition
		for tp := range acks {
			if _, ok := cr.acks[tp]; ok {
				tps = append(tps, tp)
				delete(cr.acks, tp)
				cr.sent[tp] = true
			}
		}
		cr.waiting++
		shares = append(shares, commitShare{cr, tps})
	}
	for tp := range acks {
		delete(c.pending, tp)
	}
	s.inFlight, s.carrying = true, acks
	c.sentAck++
	return &reactor.Request{
		Payload: &managers.Call{Node: node, Addr: addr, Req: req},
		OnComplete: func(tx *reactor.Tx, resp any, err error) {
			results := c.onShareAcknowledge(tx, node, s, epoch, acks, resp, err)
			for _, sh := range shares {
				if sh.cr.finished {
					continue // failed by FailAll while this was in flight: already reported and completed
				}
				for _, tp := range sh.tps {
					sh.cr.results[tp] = results[tp]
					delete(sh.cr.sent, tp)
				}
				sh.cr.waiting--
				if sh.cr.waiting == 0 && len(sh.cr.acks) == 0 {
					c.finishCommit(tx, sh.cr)
				}
			}
		},
	}
}

func (c *Consume) onShareAcknowledge(tx *reactor.Tx, node int32, s *session, epoch int32, sent map[managers.TopicPartition][]ackEntry, resp any, err error) map[managers.TopicPartition]error {
	r, err := managers.Reply(kmsg.ShareAcknowledge, node, resp, err, func(r *kmsg.ShareAcknowledgeResponse) int16 { return r.ErrorCode })
	if err != nil {
		c.fail(tx, kmsg.ShareAcknowledge, s, err)
		out, results := c.outcomes(sent, func(managers.TopicPartition) error { return err })
		c.report(tx, out)
		return results
	}
	s.advance(epoch)
	perTP := map[managers.TopicPartition]error{}
	for _, t := range r.Topics {
		name, ok := c.meta.TopicName(t.TopicID)
		if !ok {
			continue
		}
		for _, p := range t.Partitions {
			perTP[managers.TopicPartition{Topic: name, Partition: p.Partition}] = kerr.ErrorForCode(p.ErrorCode)
		}
	}
	out, results := c.outcomes(sent, func(tp managers.TopicPartition) error { return answeredOr(perTP, tp, kmsg.ShareAcknowledge, node) })
	c.report(tx, out)
	return results
}
