package share_test

// The share consumer's managers on the fixed-clock rig
// (managers/internal/testrig): a reactor.Core over the probe, the
// coordinator, metadata and the managers under test, in the consumer's
// order (membership, share fetch).

import (
	"encoding/binary"
	"hash/crc32"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
	"go.uber.org/goleak"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/internal/testrig"
	"github.com/kreactor/kreactor/managers/share"
	"github.com/kreactor/kreactor/reactor"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const ms = time.Millisecond

var tp0 = managers.TopicPartition{Topic: testrig.Topic, Partition: 0}

// rig is the share consumer's rig. Its view is that of member, or, with
// member nil, of a joined member owning t/0 with an application waiting in
// Poll (unless notPolling).
type rig struct {
	*testrig.Rig[share.View]
	member   *share.Membership
	outcomes []share.AckOutcome
	// notPolling, with member nil, is an application not waiting in Poll
	// (nothing is fetched): a test of acknowledgements alone.
	notPolling bool
}

func newRig(t *testing.T) *rig { return &rig{Rig: testrig.New[share.View](t, managers.KeyTypeShare)} }

// consume returns a rig over a share fetch manager whose acknowledgement
// outcomes are kept in outcomes.
func consumeRig(t *testing.T) (*rig, *share.Consume) {
	r := newRig(t)
	c := share.NewConsume(share.ConsumeConfig{MaxWait: 500 * ms, MaxBytes: 1 << 20, PartitionMaxBytes: 1 << 20,
		MaxRecords: 10, MaxBuffered: 100, Backoff: r.Back}, testrig.GroupID, r.Meta,
		func(_ *reactor.Tx, out []share.AckOutcome) { r.outcomes = append(r.outcomes, out...) })
	r.Start(r.view, c)
	return r, c
}

// view is the view the share consumer builds at every poll round.
func (r *rig) view(time.Time) share.View {
	coord, known := r.Coord.Known()
	if m := r.member; m != nil {
		assigned, ver := m.Assigned()
		return share.View{Coordinator: coord, CoordinatorKnown: known, Meta: r.Meta, GroupID: testrig.GroupID,
			InGroup: m.Joined(), MemberID: m.MemberID(), MemberEpoch: m.Epoch(), Assignment: assigned, AssignmentVersion: ver}
	}
	return share.View{Coordinator: coord, CoordinatorKnown: known, Meta: r.Meta, GroupID: testrig.GroupID,
		InGroup: true, MemberID: "m", MemberEpoch: 1, Assignment: []managers.TopicPartition{tp0}, AssignmentVersion: 1, Polling: !r.notPolling}
}

// batch encodes n one-byte records from offset first as a v2 record batch.
func batch(first int64, n int) []byte {
	var recs []byte
	for i := range n {
		rec := kmsg.Record{OffsetDelta: int32(i), Value: []byte("v")}
		body := rec.AppendTo(nil)
		rec.Length = int32(len(body) - 1) // the body without its zero length varint
		recs = rec.AppendTo(recs)
	}
	b := kmsg.RecordBatch{FirstOffset: first, Magic: 2, LastOffsetDelta: int32(n - 1), ProducerID: -1, ProducerEpoch: -1,
		FirstSequence: -1, NumRecords: int32(n), Records: recs}
	raw := b.AppendTo(nil)
	binary.BigEndian.PutUint32(raw[8:], uint32(len(raw)-12))
	binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))
	return raw
}

// shareFetchAnswer answers for t/0: top-level, partition and
// acknowledgement codes, and n acquired records from offset 0.
func shareFetchAnswer(top, part, ack int16, n int) *kmsg.ShareFetchResponse {
	resp := kmsg.NewPtrShareFetchResponse()
	resp.ErrorCode = top
	rt := kmsg.NewShareFetchResponseTopic()
	rt.TopicID = testrig.TopicID
	p := kmsg.NewShareFetchResponseTopicPartition()
	p.Partition, p.ErrorCode, p.AcknowledgeErrorCode = 0, part, ack
	if n > 0 {
		p.Records = batch(0, n)
		p.AcquiredRecords = []kmsg.ShareFetchResponseTopicPartitionAcquiredRecord{{FirstOffset: 0, LastOffset: int64(n - 1), DeliveryCount: 1}}
	}
	rt.Partitions = append(rt.Partitions, p)
	resp.Topics = append(resp.Topics, rt)
	return resp
}

func shareAckAnswer(top, part int16) *kmsg.ShareAcknowledgeResponse {
	resp := kmsg.NewPtrShareAcknowledgeResponse()
	resp.ErrorCode = top
	rt := kmsg.NewShareAcknowledgeResponseTopic()
	rt.TopicID = testrig.TopicID
	p := kmsg.NewShareAcknowledgeResponseTopicPartition()
	p.Partition, p.ErrorCode = 0, part
	rt.Partitions = append(rt.Partitions, p)
	resp.Topics = append(resp.Topics, rt)
	return resp
}

// delivered opens the session with a ShareFetch that acquires 3 records and
// hands them to the application.
func (r *rig) delivered(t *testing.T, c *share.Consume) []share.Record {
	t.Helper()
	req := r.Request(c)
	if sf := req.Payload.(*managers.Call).Req.(*kmsg.ShareFetchRequest); sf.ShareSessionEpoch != 0 {
		t.Fatalf("first ShareFetch with session epoch %d", sf.ShareSessionEpoch)
	}
	r.Answer(req, shareFetchAnswer(0, 0, 0, 3), nil)
	var recs []share.Record
	r.Do("take", func(*reactor.Tx) { recs = c.Take(10) })
	if len(recs) != 3 {
		t.Fatalf("delivered %d records, want 3", len(recs))
	}
	return recs
}
