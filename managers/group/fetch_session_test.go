package group_test

import (
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
	"github.com/kreactor/kreactor/managers/internal/testrig"
	"github.com/kreactor/kreactor/reactor"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// batchAt encodes n records at offsets base.. as one v2 record batch.
func batchAt(base int64, n int) []byte {
	var recs []byte
	for i := range n {
		r := kmsg.Record{OffsetDelta: int32(i), Value: fmt.Appendf(nil, "r-%d", base+int64(i))}
		r.Length = int32(len(r.AppendTo(nil)) - 1)
		recs = r.AppendTo(recs)
	}
	b := kmsg.RecordBatch{FirstOffset: base, Magic: 2, LastOffsetDelta: int32(n - 1), ProducerID: -1, ProducerEpoch: -1,
		FirstSequence: -1, NumRecords: int32(n), Records: recs}
	b.Length = int32(len(b.AppendTo(nil)) - 12)
	raw := b.AppendTo(nil)
	b.CRC = int32(crc32.Checksum(raw[21:], castagnoli))
	return b.AppendTo(nil)
}

// sessionAnswer is a Fetch answer with session id and, for each partition
// in recs, records [base, base+n) (n 0: the partition named, no records).
func sessionAnswer(id int32, code int16, recs map[int32][2]int64) *kmsg.FetchResponse {
	resp := kmsg.NewPtrFetchResponse()
	resp.ErrorCode, resp.SessionID = code, id
	if len(recs) == 0 {
		return resp
	}
	rt := kmsg.NewFetchResponseTopic()
	rt.TopicID = testrig.TopicID // v13+: by id only
	for _, p := range slices.Sorted(mapKeys(recs)) {
		rp := kmsg.NewFetchResponseTopicPartition()
		rp.Partition, rp.HighWatermark = p, recs[p][0]+recs[p][1]
		if recs[p][1] > 0 {
			rp.RecordBatches = batchAt(recs[p][0], int(recs[p][1]))
		}
		rt.Partitions = append(rt.Partitions, rp)
	}
	resp.Topics = append(resp.Topics, rt)
	return resp
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// named renders a Fetch request's session fields, the partitions it names
// with their offsets and the ones it forgets: "id=7 epoch=1 [0@44] forget []".
func named(t *testing.T, req *reactor.Request) string {
	t.Helper()
	fr := req.Payload.(*managers.Call).Req.(*kmsg.FetchRequest)
	var parts, forgot []string
	for _, rt := range fr.Topics {
		for _, p := range rt.Partitions {
			parts = append(parts, fmt.Sprintf("%d@%d", p.Partition, p.FetchOffset))
		}
	}
	for _, ft := range fr.ForgottenTopics {
		for _, p := range ft.Partitions {
			forgot = append(forgot, fmt.Sprint(p))
		}
	}
	return fmt.Sprintf("id=%d epoch=%d %v forget %v", fr.SessionID, fr.SessionEpoch, parts, forgot)
}

// sessionRig is a fetch manager owning t/0 and t/1 at offset 10 each.
func sessionRig(t *testing.T) (*rig, *group.Fetch) {
	t.Helper()
	r := newRig(t)
	tp1 := managers.TopicPartition{Topic: topic, Partition: 1}
	r.assigned = []managers.TopicPartition{tp0, tp1}
	f := newFetch(r)
	r.start(f)
	r.Step()
	r.Do("positions", func(*reactor.Tx) {
		for _, n := range f.NeedingPosition() {
			f.SetPosition(n.TP, managers.Position{Offset: 10, LeaderEpoch: -1}, n.Gen)
		}
	})
	return r, f
}

// A fetch session (KIP-227): the first Fetch is full (epoch 0), the broker's
// session id is kept and each good answer moves the epoch on; an
// incremental Fetch names only partitions whose fetch offset changed, and
// none when nothing changed; a paused partition is forgotten; session
// errors start over with a full Fetch, at once the first time and after the
// backoff when it happens again.
func TestFetchSession(t *testing.T) {
	r, f := sessionRig(t)
	expect := func(want string) *reactor.Request {
		t.Helper()
		r.Elapse(r.Back.Initial) // an empty answer paces the next Fetch to retry.backoff.ms
		req := r.Request(f)
		if got := named(t, req); got != want {
			t.Fatalf("Fetch %s, want %s", got, want)
		}
		return req
	}
	take := func() {
		r.Do("take", func(*reactor.Tx) { f.Take(1000) })
	}

	req := expect("id=0 epoch=0 [0@10 1@10] forget []")
	r.Answer(req, sessionAnswer(7, 0, map[int32][2]int64{0: {10, 3}, 1: {10, 0}}), nil)
	take()
	// t/0 moved to 13: named; t/1 unchanged at 10: omitted.
	req = expect("id=7 epoch=1 [0@13] forget []")
	r.Answer(req, sessionAnswer(7, 0, nil), nil)
	req = expect("id=7 epoch=2 [] forget []")
	r.Answer(req, sessionAnswer(7, 0, map[int32][2]int64{1: {10, 2}}), nil)
	take()
	req = expect("id=7 epoch=3 [1@12] forget []")
	r.Answer(req, sessionAnswer(7, 0, nil), nil)

	r.Do("pause", func(*reactor.Tx) { _ = f.Pause([]managers.TopicPartition{tp0}) })
	req = expect("id=7 epoch=4 [] forget [0]")
	r.Answer(req, sessionAnswer(7, 0, nil), nil)
	r.Do("resume", func(*reactor.Tx) { _ = f.Resume([]managers.TopicPartition{tp0}) })
	req = expect("id=7 epoch=5 [0@13] forget []")

	// INVALID_FETCH_SESSION_EPOCH: close session 7 and open a new one, at once.
	r.Answer(req, sessionAnswer(0, kerr.InvalidFetchSessionEpoch.Code, nil), nil)
	req = expect("id=7 epoch=0 [0@13 1@12] forget []")
	// Again before a good answer (FETCH_SESSION_ID_NOT_FOUND): a new
	// session, after the backoff.
	r.Answer(req, sessionAnswer(0, kerr.FetchSessionIDNotFound.Code, nil), nil)
	st := r.Step()
	if res := r.Result(st, f); res.Kind != reactor.KindRetryAt {
		t.Fatalf("after a second session reset: %s, want a backoff", testrig.Describe(res, r.Now))
	} else {
		r.Now = res.At
	}
	req = expect("id=0 epoch=0 [0@13 1@12] forget []")
	// The broker keeps no session (SessionID 0): full fetches again.
	r.Answer(req, sessionAnswer(0, 0, nil), nil)
	req = expect("id=0 epoch=0 [0@13 1@12] forget []")
	r.Answer(req, sessionAnswer(9, 0, nil), nil)
	req = expect("id=9 epoch=1 [] forget []")
	r.Answer(req, sessionAnswer(9, 0, nil), nil)

	// Close: no new Fetch; the session ends with epoch -1, once.
	r.closing = true
	expect("id=9 epoch=-1 [] forget []")
	if res := r.Result(r.Step(), f); res.Kind != reactor.KindIdle {
		t.Fatalf("closing after the session's final Fetch: %s, want Idle", testrig.Describe(res, r.Now))
	}
}

// Take returns a partition answer's records without a copy while one answer
// fills the Poll (capacity ends at the length, so appending copies), copies
// when a Poll spans answers or partitions, and gives each partition's
// position after its last record taken.
func TestFetchTake(t *testing.T) {
	r, f := sessionRig(t)
	tp1 := managers.TopicPartition{Topic: topic, Partition: 1}
	r.Answer(r.Request(f), sessionAnswer(7, 0, map[int32][2]int64{0: {10, 3}, 1: {10, 2}}), nil)
	take := func(n int) (recs []managers.Record, pos map[managers.TopicPartition]managers.Position) {
		r.Do("take", func(*reactor.Tx) { recs, pos = f.Take(n) })
		return recs, pos
	}
	recs, pos := take(2)
	if len(recs) != 2 || cap(recs) != 2 || recs[0].Offset != 10 || recs[1].Offset != 11 || pos[tp0].Offset != 12 || len(pos) != 1 {
		t.Fatalf("first take: %d records (cap %d) %v, positions %v; want t/0 10-11 without a copy, position 12", len(recs), cap(recs), offsets(recs), pos)
	}
	if f.Buffered() != 3 {
		t.Fatalf("buffered %d, want 3", f.Buffered())
	}
	recs, pos = take(10)
	if got := offsets(recs); len(recs) != 3 || got != "t/1@10 t/1@11 t/0@12" || pos[tp0].Offset != 13 || pos[tp1].Offset != 12 {
		t.Fatalf("second take: %s, positions %v; want t/1 10-11 then t/0 12 (round-robin), positions 13 and 12", got, pos)
	}
	// The copy is sized by what was buffered (3), not by the Poll's max
	// (10): max.poll.records 500 would be a 68 KB slice for a few records.
	if cap(recs) != 3 {
		t.Fatalf("second take: capacity %d for 3 records of a take(10), want 3", cap(recs))
	}
	if f.Buffered() != 0 || f.Fetchable() {
		t.Fatalf("buffered %d after taking everything", f.Buffered())
	}
	if recs, pos = take(5); recs != nil || pos != nil {
		t.Fatalf("take from an empty buffer: %v %v", recs, pos)
	}
}

func offsets(recs []managers.Record) string {
	var out []string
	for _, r := range recs {
		out = append(out, fmt.Sprintf("%s/%d@%d", r.Topic, r.Partition, r.Offset))
	}
	return strings.Join(out, " ")
}
