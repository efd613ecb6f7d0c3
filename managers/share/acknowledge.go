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
	// A commit's partitions answered with a retriable error go back to it
	// to be sent again until its deadline (commit.go); the close's and
	// other acknowledgements are reported as answered.
	owner := map[managers.TopicPartition]*commitReq{}
	for _, sh := range shares {
		for _, tp := range sh.tps {
			owner[tp] = sh.cr
		}
	}
	retry := func(tx *reactor.Tx, tp managers.TopicPartition, scope managers.Scope, err error) (error, bool) {
		if cr := owner[tp]; cr != nil && epoch != -1 {
			return cr.retryAck(tx, tp, acks[tp], scope, err)
		}
		return err, false
	}
	s.inFlight, s.carrying = true, acks
	c.sentAck++
	return &reactor.Request{
		Payload: &managers.Call{Node: node, Addr: addr, Req: req},
		OnComplete: func(tx *reactor.Tx, resp any, err error) {
			results := c.onShareAcknowledge(tx, node, s, epoch, acks, resp, err, retry)
			for _, sh := range shares {
				if sh.cr.finished {
					continue // failed by FailAll while this was in flight: already reported and completed
				}
				for _, tp := range sh.tps {
					delete(sh.cr.sent, tp)
					if res, answered := results[tp]; answered {
						sh.cr.results[tp] = res
					}
				}
				sh.cr.waiting--
				if sh.cr.waiting == 0 && len(sh.cr.acks) == 0 {
					c.finishCommit(tx, sh.cr)
				}
			}
		},
	}
}

// onShareAcknowledge applies a ShareAcknowledge answer: the session moves
// on or fails by the answer's class, and each partition's acknowledgements
// are reported with their outcome unless retry keeps them to send again
// (a commit's retriable answer). It returns the outcome of each partition
// reported.
func (c *Consume) onShareAcknowledge(tx *reactor.Tx, node int32, s *session, epoch int32, sent map[managers.TopicPartition][]ackEntry, resp any, err error,
	retry func(tx *reactor.Tx, tp managers.TopicPartition, scope managers.Scope, err error) (error, bool)) map[managers.TopicPartition]error {
	r, err := managers.Reply(kmsg.ShareAcknowledge, node, resp, err, func(r *kmsg.ShareAcknowledgeResponse) int16 { return r.ErrorCode })
	if err != nil {
		c.fail(tx, kmsg.ShareAcknowledge, s, err)
		out, results := c.answered(tx, sent, managers.ScopeResponse, func(managers.TopicPartition) error { return err }, retry)
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
	out, results := c.answered(tx, sent, managers.ScopeAcknowledge, func(tp managers.TopicPartition) error { return answeredOr(perTP, tp, kmsg.ShareAcknowledge, node) }, retry)
	c.report(tx, out)
	return results
}

// answered is outcomes for the partitions of an answer that retry does
// not keep to send again; scope is where errFor's errors come from.
func (c *Consume) answered(tx *reactor.Tx, sent map[managers.TopicPartition][]ackEntry, scope managers.Scope, errFor func(managers.TopicPartition) error,
	retry func(tx *reactor.Tx, tp managers.TopicPartition, scope managers.Scope, err error) (error, bool)) ([]AckOutcome, map[managers.TopicPartition]error) {
	reported := make(map[managers.TopicPartition][]ackEntry, len(sent))
	errs := make(map[managers.TopicPartition]error, len(sent))
	for tp, es := range sent {
		err, kept := retry(tx, tp, scope, errFor(tp))
		if !kept {
			reported[tp], errs[tp] = es, err
		}
	}
	return c.outcomes(reported, func(tp managers.TopicPartition) error { return errs[tp] })
}
