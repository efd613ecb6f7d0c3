package share

// ShareFetch.
//
// Kafka API: ShareFetch (key 78) v1+ (KIP-932) to each assigned partition's
// leader in that broker's share session: MaxRecords and BatchSize from
// max.poll.records, the partitions new to the session (or carrying
// acknowledgements) named, those no longer fetched forgotten, the pending
// acknowledgements of fetched partitions piggy-backed (IsRenewAck for
// KIP-1222 renewals). Partition errors back fetching off (not acknowledging)
// and are raised from Poll by their class in the error table
// (managers/errtable.go).

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

func (c *Consume) shareFetch(tx *reactor.Tx, v View, node int32, addr string, s *session, fetch []managers.TopicPartition, acks map[managers.TopicPartition][]ackEntry) *reactor.Request {
	req := kmsg.NewPtrShareFetchRequest()
	req.GroupID = kmsg.StringPtr(c.group)
	req.MemberID = kmsg.StringPtr(v.MemberID)
	req.ShareSessionEpoch = s.epoch
	req.MaxWaitMillis = int32(c.cfg.MaxWait.Milliseconds())
	req.MinBytes = 1
	req.MaxBytes = c.cfg.MaxBytes
	req.MaxRecords = c.cfg.MaxRecords
	req.BatchSize = c.cfg.MaxRecords
	req.IsRenewAck = hasRenew(acks)
	byID := map[[16]byte]int{}
	add := func(tp managers.TopicPartition) *kmsg.ShareFetchRequestTopicPartition {
		i := topicIndex(byID, &req.Topics, c.topicID(tp), func(id [16]byte) kmsg.ShareFetchRequestTopic {
			t := kmsg.NewShareFetchRequestTopic()
			t.TopicID = id
			return t
		})
		p := kmsg.NewShareFetchRequestTopicPartition()
		p.Partition = tp.Partition
		p.PartitionMaxBytes = c.cfg.PartitionMaxBytes
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, p)
		return &req.Topics[i].Partitions[len(req.Topics[i].Partitions)-1]
	}
	want := map[managers.TopicPartition]bool{}
	for _, tp := range fetch {
		want[tp] = true
		if !s.parts[tp] || len(acks[tp]) > 0 {
			p := add(tp)
			for _, b := range toBatches(acks[tp]) {
				p.AcknowledgementBatches = append(p.AcknowledgementBatches, kmsg.ShareFetchRequestTopicPartitionAcknowledgementBatch{FirstOffset: b.first, LastOffset: b.last, AcknowledgeTypes: []int8{int8(b.typ)}})
			}
		}
	}
	sentAcks := map[managers.TopicPartition][]ackEntry{}
	for tp := range acks {
		if want[tp] {
			sentAcks[tp] = acks[tp]
			delete(c.pending, tp)
		}
	}
	var forgotten []managers.TopicPartition
	for tp := range s.parts {
		if !want[tp] {
			forgotten = append(forgotten, tp)
			f := kmsg.NewShareFetchRequestForgottenTopicsData()
			f.TopicID = c.topicID(tp)
			f.Partitions = []int32{tp.Partition}
			req.ForgottenTopicsData = append(req.ForgottenTopicsData, f)
		}
	}
	s.inFlight, s.carrying = true, sentAcks
	c.sentFetch++
	epoch := s.epoch
	return &reactor.Request{
		Payload: &managers.Call{Node: node, Addr: addr, Req: req},
		OnComplete: func(tx *reactor.Tx, resp any, err error) {
			c.onShareFetch(tx, node, s, epoch, fetch, forgotten, sentAcks, resp, err)
		},
	}
}

func (c *Consume) onShareFetch(tx *reactor.Tx, node int32, s *session, epoch int32, fetch, forgotten []managers.TopicPartition, sent map[managers.TopicPartition][]ackEntry, resp any, err error) {
	r, err := managers.Reply(kmsg.ShareFetch, node, resp, err, func(r *kmsg.ShareFetchResponse) int16 { return r.ErrorCode })
	if err != nil {
		c.fail(tx, kmsg.ShareFetch, s, err)
		out, _ := c.outcomes(sent, func(managers.TopicPartition) error { return err })
		c.report(tx, out)
		return
	}
	s.advance(epoch)
	for _, tp := range fetch {
		s.parts[tp] = true
	}
	for _, tp := range forgotten {
		delete(s.parts, tp)
	}
	ackErr := map[managers.TopicPartition]error{}
	partErrs := false
	for i := range r.Topics {
		t := &r.Topics[i]
		name, ok := c.meta.TopicName(t.TopicID)
		if !ok {
			continue
		}
		for j := range t.Partitions {
			p := &t.Partitions[j]
			tp := managers.TopicPartition{Topic: name, Partition: p.Partition}
			ackErr[tp] = kerr.ErrorForCode(p.AcknowledgeErrorCode)
			if perr := kerr.ErrorForCode(p.ErrorCode); perr != nil {
				partErrs = true
				switch managers.Class(kmsg.ShareFetch, managers.ScopePartition, perr) {
				case managers.ClassMetadata:
					c.meta.RequestRefresh(tx)
				case managers.ClassRetriable, managers.ClassIgnored:
				default: // authorization, failed: raised from Poll
					c.owed.Report(&PartitionError{TP: tp, Err: perr})
				}
				continue
			}
			c.buf.acquire(tp, p)
		}
	}
	if partErrs {
		s.fetchRetry.Fail(tx.Now, nil)
	} else if len(fetch) > 0 {
		s.fetchRetry.Succeed()
	}
	out, _ := c.outcomes(sent, func(tp managers.TopicPartition) error { return answeredOr(ackErr, tp, kmsg.ShareFetch, node) })
	c.report(tx, out)
}

// PartitionError is a share fetch error for one partition, for the
// application.
type PartitionError struct {
	TP  managers.TopicPartition
	Err error
}

func (e *PartitionError) Error() string { return "share fetch " + e.TP.String() + ": " + e.Err.Error() }

func (e *PartitionError) Unwrap() error { return e.Err }
