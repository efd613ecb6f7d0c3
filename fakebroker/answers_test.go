package fakebroker

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kreactor/kreactor/wire"
)

// The corrections are checked here against kfake with and without them
// (Config.KfakeAnswers): with them each answer is Kafka 4.4's (as
// specs/fidelity measures it on a real broker), without them kfake's own,
// so every test below also shows the difference it removes.

// pinnedClient returns a client of b that sends key at version v (and
// everything else at the newest version both sides know), with metadata
// loaded.
func pinnedClient(t *testing.T, b *Broker, key kmsg.Key, v int16) *kgo.Client {
	t.Helper()
	vs := kversion.Stable()
	vs.SetMaxKeyVersion(int16(key), v)
	return newClient(t, b, "answers", kgo.MaxVersions(vs))
}

// offsetFetch sends one OffsetFetch for group (topic's partitions ps, or
// all topics when topic is "") to the group's coordinator and returns the
// group's error code and partitions as (partition, offset, error) triples.
func offsetFetch(ctx context.Context, t *testing.T, b *Broker, cl *kgo.Client, group, topic string, id [16]byte, ps ...int32) (int16, [][3]int64) {
	t.Helper()
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Group = group
	rg := kmsg.NewOffsetFetchRequestGroup()
	rg.Group = group
	if topic != "" {
		rt := kmsg.NewOffsetFetchRequestTopic()
		rt.Topic, rt.Partitions = topic, ps
		req.Topics = append(req.Topics, rt)
		gt := kmsg.NewOffsetFetchRequestGroupTopic()
		gt.Topic, gt.TopicID, gt.Partitions = topic, id, ps
		rg.Topics = append(rg.Topics, gt)
	}
	req.Groups = append(req.Groups, rg)
	kresp, err := cl.Broker(int(b.CoordinatorFor(group))).Request(ctx, req)
	if err != nil {
		t.Fatalf("OffsetFetch: %v", err)
	}
	resp := kresp.(*kmsg.OffsetFetchResponse)
	var parts [][3]int64
	add := func(partition int32, offset int64, code int16, metadata *string) {
		if metadata == nil {
			t.Errorf("v%d partition %d: metadata null, want \"\"", resp.Version, partition)
		}
		parts = append(parts, [3]int64{int64(partition), offset, int64(code)})
	}
	if resp.Version <= 7 {
		for _, rt := range resp.Topics {
			for _, p := range rt.Partitions {
				add(p.Partition, p.Offset, p.ErrorCode, p.Metadata)
			}
		}
		return resp.ErrorCode, parts
	}
	g := resp.Groups[0]
	for _, rt := range g.Topics {
		for _, p := range rt.Partitions {
			add(p.Partition, p.Offset, p.ErrorCode, p.Metadata)
		}
	}
	return g.ErrorCode, parts
}

func topicID(t *testing.T, b *Broker, topic string) [16]byte {
	t.Helper()
	ti := b.Cluster().TopicInfo(topic)
	if ti == nil {
		t.Fatalf("no topic %q", topic)
	}
	return ti.TopicID
}

func TestOffsetFetchForAGroupThatNeverCommitted(t *testing.T) {
	fixed := startBroker(t, Config{Brokers: 1, Topics: map[string]int32{"t": 2}})
	raw := startBroker(t, Config{Brokers: 1, Topics: map[string]int32{"t": 2}, KfakeAnswers: true})
	ctx := testCtx(t)
	noCommit := [][3]int64{{0, -1, 0}, {1, -1, 0}}
	for v := int16(1); v <= 10; v++ {
		cl := pinnedClient(t, fixed, kmsg.OffsetFetch, v)
		code, parts := offsetFetch(ctx, t, fixed, cl, "never-committed", "t", topicID(t, fixed, "t"), 0, 1)
		if code != 0 || !slices.Equal(parts, noCommit) {
			t.Errorf("v%d: error %d, partitions %v; want no error and %v (offset -1, no error)", v, code, parts, noCommit)
		}
		code, parts = offsetFetch(ctx, t, fixed, cl, "never-committed", "", [16]byte{})
		if code != 0 || len(parts) != 0 {
			t.Errorf("v%d all topics: error %d, partitions %v; want no error and none", v, code, parts)
		}
		rcl := pinnedClient(t, raw, kmsg.OffsetFetch, v)
		code, parts = offsetFetch(ctx, t, raw, rcl, "never-committed", "t", topicID(t, raw, "t"), 0, 1)
		if v >= 2 && code != kerr.GroupIDNotFound.Code || len(parts) != 0 {
			t.Errorf("v%d with KfakeAnswers: error %d, partitions %v; want kfake's GROUP_ID_NOT_FOUND (v2+) and no partitions", v, code, parts)
		}
	}
}

func TestOffsetFetchKeepsCommitsFaultsAndCoordinatorErrors(t *testing.T) {
	b := startBroker(t, Config{Brokers: 1, Topics: map[string]int32{"t": 2}})
	ctx := testCtx(t)
	cl := pinnedClient(t, b, kmsg.OffsetFetch, 10)
	id := topicID(t, b, "t")

	commit := kmsg.NewPtrOffsetCommitRequest()
	commit.Group, commit.Generation = "committed", -1
	ct := kmsg.NewOffsetCommitRequestTopic()
	ct.Topic, ct.TopicID = "t", id
	cp := kmsg.NewOffsetCommitRequestTopicPartition()
	cp.Offset = 7
	ct.Partitions = append(ct.Partitions, cp)
	commit.Topics = append(commit.Topics, ct)
	if _, err := cl.Broker(0).Request(ctx, commit); err != nil {
		t.Fatal(err)
	}
	if code, parts := offsetFetch(ctx, t, b, cl, "committed", "t", id, 0, 1); code != 0 || !slices.Equal(parts, [][3]int64{{0, 7, 0}, {1, -1, 0}}) {
		t.Fatalf("committed group: error %d, partitions %v; want offset 7 on partition 0, -1 on 1", code, parts)
	}

	// v10 by an id no topic has: UNKNOWN_TOPIC_ID per partition, known
	// group or not.
	for _, g := range []string{"committed", "never-committed"} {
		if code, parts := offsetFetch(ctx, t, b, cl, g, "", [16]byte{}); code != 0 {
			t.Fatalf("%s all topics: error %d (%v)", g, code, parts)
		}
		if code, parts := offsetFetch(ctx, t, b, cl, g, "gone", [16]byte{9}, 0); code != 0 || !slices.Equal(parts, [][3]int64{{0, -1, int64(kerr.UnknownTopicID.Code)}}) {
			t.Errorf("%s, unknown topic id: error %d, partitions %v; want UNKNOWN_TOPIC_ID on the partition", g, code, parts)
		}
	}

	// An injected GROUP_ID_NOT_FOUND stays; so does NOT_COORDINATOR.
	h, err := b.AnswerKeyWithError(kmsg.OffsetFetch, kerr.GroupIDNotFound, 0)
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := offsetFetch(ctx, t, b, cl, "never-committed", "t", id, 0); code != kerr.GroupIDNotFound.Code {
		t.Errorf("injected GROUP_ID_NOT_FOUND answered %d", code)
	}
	h.Remove()
	cu, err := b.CoordinatorUnavailable("never-committed")
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := offsetFetch(ctx, t, b, cl, "never-committed", "t", id, 0); code != kerr.NotCoordinator.Code {
		t.Errorf("coordinator unavailable: OffsetFetch answered %d, want NOT_COORDINATOR", code)
	}
	cu.Heal()
}

func TestOffsetCommitWithAnEpochForAnUnknownGroup(t *testing.T) {
	b := startBroker(t, Config{Brokers: 1, Topics: map[string]int32{"t": 1}})
	raw := startBroker(t, Config{Brokers: 1, Topics: map[string]int32{"t": 1}, KfakeAnswers: true})
	ctx := testCtx(t)
	commit := func(b *Broker, v int16, group string, gen int32) int16 {
		t.Helper()
		cl := pinnedClient(t, b, kmsg.OffsetCommit, v)
		req := kmsg.NewPtrOffsetCommitRequest()
		req.Group, req.Generation, req.MemberID = group, gen, "member-1"
		rt := kmsg.NewOffsetCommitRequestTopic()
		rt.Topic, rt.TopicID = "t", topicID(t, b, "t")
		rt.Partitions = append(rt.Partitions, kmsg.NewOffsetCommitRequestTopicPartition())
		req.Topics = append(req.Topics, rt)
		kresp, err := cl.Broker(0).Request(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return kresp.(*kmsg.OffsetCommitResponse).Topics[0].Partitions[0].ErrorCode
	}
	for _, c := range []struct {
		v         int16
		gen       int32
		want, raw int16
	}{
		{8, 5, kerr.IllegalGeneration.Code, kerr.IllegalGeneration.Code},
		{9, 5, kerr.GroupIDNotFound.Code, kerr.IllegalGeneration.Code},
		{10, 5, kerr.GroupIDNotFound.Code, kerr.IllegalGeneration.Code},
		{10, -1, 0, 0},
	} {
		group := fmt.Sprintf("unknown-v%d-gen%d", c.v, c.gen)
		if got := commit(b, c.v, group, c.gen); got != c.want {
			t.Errorf("v%d generation %d: error %d, want %d", c.v, c.gen, got, c.want)
		}
		if got := commit(raw, c.v, group, c.gen); got != c.raw {
			t.Errorf("v%d generation %d with KfakeAnswers: error %d, want kfake's %d", c.v, c.gen, got, c.raw)
		}
	}
	// A group that exists (its simple commit above created it) keeps
	// kfake's ILLEGAL_GENERATION, as Kafka's classic group does.
	if got := commit(b, 10, "unknown-v10-gen-1", 5); got != kerr.IllegalGeneration.Code {
		t.Errorf("existing group, wrong generation: error %d, want ILLEGAL_GENERATION", got)
	}
}

func TestFindCoordinatorErrorNamesNoNode(t *testing.T) {
	for _, raw := range []bool{false, true} {
		b := startBroker(t, Config{Brokers: 1, KfakeAnswers: raw})
		ctx := testCtx(t)
		h, err := b.CoordinatorUnavailable("g")
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []int16{3, 6} {
			cl := pinnedClient(t, b, kmsg.FindCoordinator, v)
			req := kmsg.NewPtrFindCoordinatorRequest()
			req.CoordinatorKey, req.CoordinatorKeys = "g", []string{"g"}
			kresp, err := cl.Broker(0).Request(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			resp := kresp.(*kmsg.FindCoordinatorResponse)
			code, node, port := resp.ErrorCode, resp.NodeID, resp.Port
			if v >= 4 {
				code, node, port = resp.Coordinators[0].ErrorCode, resp.Coordinators[0].NodeID, resp.Coordinators[0].Port
			}
			want := int32(-1)
			if raw {
				want = 0 // kfake's
			}
			if code != kerr.CoordinatorNotAvailable.Code || node != want || port != want {
				t.Errorf("KfakeAnswers %v, v%d: error %d node %d port %d; want COORDINATOR_NOT_AVAILABLE, node and port %d", raw, v, code, node, port, want)
			}
		}
		h.Heal()
	}
}

func TestHeartbeatLeaveAndErrorAnswersHandOutNoInterval(t *testing.T) {
	for _, raw := range []bool{false, true} {
		_, cl, ctx := brokerClient(t, Config{Brokers: 1, Topics: map[string]int32{"t": 1}, KfakeAnswers: raw}, "hb")
		beat := func(member string, epoch int32) *kmsg.ConsumerGroupHeartbeatResponse {
			req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
			req.Group, req.MemberID, req.MemberEpoch = "g", member, epoch
			if epoch == 0 {
				req.RebalanceTimeoutMillis, req.SubscribedTopicNames = 5000, []string{"t"}
				req.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
			}
			kresp, err := cl.Broker(0).Request(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			return kresp.(*kmsg.ConsumerGroupHeartbeatResponse)
		}
		interval := int32(DefaultHeartbeatInterval.Milliseconds())
		want := func(w int32) int32 {
			if raw {
				return interval // kfake hands it out on every answer
			}
			return w
		}
		if r := beat("member-abcdefghijklmnop", 0); r.ErrorCode != 0 || r.HeartbeatIntervalMillis != interval {
			t.Fatalf("join: error %d interval %d, want none and %d", r.ErrorCode, r.HeartbeatIntervalMillis, interval)
		}
		if r := beat("member-abcdefghijklmnop", -1); r.ErrorCode != 0 || r.MemberEpoch != -1 || r.HeartbeatIntervalMillis != want(0) {
			t.Errorf("KfakeAnswers %v, leave: error %d epoch %d interval %d; want none, -1, %d", raw, r.ErrorCode, r.MemberEpoch, r.HeartbeatIntervalMillis, want(0))
		}
		if r := beat("member-abcdefghijklmnop", 3); r.ErrorCode != kerr.UnknownMemberID.Code || r.HeartbeatIntervalMillis != want(0) {
			t.Errorf("KfakeAnswers %v, unknown member: error %d interval %d; want UNKNOWN_MEMBER_ID, %d", raw, r.ErrorCode, r.HeartbeatIntervalMillis, want(0))
		}
	}
}

// TestAnswersSplitWrites: a response arriving over several writes is
// corrected once whole, and other frames pass byte for byte in any split.
func TestAnswersSplitWrites(t *testing.T) {
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.Version, req.CoordinatorKeys = 6, []string{"g"}
	reqFrame := appendFrame(func(b []byte) []byte {
		b = binary.BigEndian.AppendUint16(b, uint16(kmsg.FindCoordinator))
		b = binary.BigEndian.AppendUint16(b, 6)
		b = binary.BigEndian.AppendUint32(b, 42)
		b = binary.BigEndian.AppendUint16(b, 0xffff) // null client id
		b = append(b, 0)                             // header tags
		return req.AppendTo(b)
	})
	resp := kmsg.NewPtrFindCoordinatorResponse()
	resp.Version = 6
	c := kmsg.NewFindCoordinatorResponseCoordinator()
	c.Key, c.ErrorCode = "g", kerr.CoordinatorNotAvailable.Code
	resp.Coordinators = append(resp.Coordinators, c)
	respFrame := responseFrame(42, true, resp)
	other := responseFrame(7, false, kmsg.NewPtrApiVersionsResponse())
	stream := append(append(append([]byte{}, other...), respFrame...), other...)

	want := kmsg.NewPtrFindCoordinatorResponse()
	want.Version = 6
	wc := c
	wc.NodeID, wc.Port = -1, -1
	want.Coordinators = append(want.Coordinators, wc)
	wantStream := append(append(append([]byte{}, other...), responseFrame(42, true, want)...), other...)

	for _, step := range []int{1, 3, 8, 13, len(stream)} {
		b := &Broker{handles: map[*Handle]struct{}{}}
		a := newConnAnswers(b, 0)
		s := &wire.RequestStream{OnRequest: func(wire.RequestHeader, time.Time) {}, Keep: a.keep,
			OnFrame: func(_ wire.RequestHeader, f []byte, _ time.Time) {
				rf, _ := wire.ParseRequestFrame(f)
				a.onFrame(rf)
			}}
		s.Feed(reqFrame, time.Now())
		var out recordConn
		for i := 0; i < len(stream); i += step {
			n, err := a.write(&out, stream[i:min(i+step, len(stream))])
			if err != nil || n != min(step, len(stream)-i) {
				t.Fatalf("write: %d, %v", n, err)
			}
		}
		if !bytes.Equal(out.Bytes(), wantStream) {
			t.Fatalf("step %d: wrote\n%x\nwant\n%x", step, out.Bytes(), wantStream)
		}
	}
}

func appendFrame(body func([]byte) []byte) []byte {
	b := body(make([]byte, 4))
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

func responseFrame(corr int32, flexible bool, resp kmsg.Response) []byte {
	return appendFrame(func(b []byte) []byte {
		b = binary.BigEndian.AppendUint32(b, uint32(corr))
		if flexible {
			b = append(b, 0)
		}
		return resp.AppendTo(b)
	})
}

// recordConn is a net.Conn that keeps what is written.
type recordConn struct {
	net.Conn
	buf bytes.Buffer
}

func (c *recordConn) Write(b []byte) (int, error) { return c.buf.Write(b) }
func (c *recordConn) Bytes() []byte               { return c.buf.Bytes() }
