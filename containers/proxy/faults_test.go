package proxy

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/wire"
)

func TestCoordinatorUnavailable(t *testing.T) {
	const group = "g-cu"
	b, ctx, cl := rawBed(t)
	coord := b.kf.CoordinatorFor(group)

	f, err := b.p.CoordinatorUnavailable(group)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := findCoordinator(ctx, cl, 0, group)
	if err != nil {
		t.Fatal(err)
	}
	if cs[0].code != kerr.CoordinatorNotAvailable.Code || cs[0].node != -1 {
		t.Errorf("faulted FindCoordinator = %+v, want COORDINATOR_NOT_AVAILABLE, node -1", cs[0])
	}

	// A batched FindCoordinator (v4+) fails only the group's key; the other
	// key is the broker's answer with the proxy's address.
	cs, err = findCoordinator(ctx, cl, 0, group, "other")
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) == 2 {
		want, _ := b.p.Addr(b.kf.CoordinatorFor("other"))
		if cs[0].code != kerr.CoordinatorNotAvailable.Code || cs[1].code != 0 || cs[1].addr != want {
			t.Errorf("batched FindCoordinator = %+v, want [COORDINATOR_NOT_AVAILABLE, ok at %s]", cs, want)
		}
	}

	// The group's heartbeats and offset fetches answer NOT_COORDINATOR.
	hb := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	hb.Group, hb.MemberEpoch, hb.SubscribedTopicNames, hb.RebalanceTimeoutMillis = group, 0, []string{"t"}, 5000
	hresp, err := hb.RequestWith(ctx, cl.Broker(int(coord)))
	if err != nil {
		t.Fatal(err)
	}
	if hresp.ErrorCode != kerr.NotCoordinator.Code {
		t.Errorf("heartbeat code %d, want NOT_COORDINATOR", hresp.ErrorCode)
	}
	of := kmsg.NewPtrOffsetFetchRequest()
	of.Group = group
	of.Groups = []kmsg.OffsetFetchRequestGroup{{Group: group}}
	ofr, err := of.RequestWith(ctx, cl.Broker(int(coord)))
	if err != nil {
		t.Fatal(err)
	}
	code := ofr.ErrorCode
	if ofr.Version >= 8 {
		code = ofr.Groups[0].ErrorCode
	}
	if code != kerr.NotCoordinator.Code {
		t.Errorf("offset fetch code %d, want NOT_COORDINATOR", code)
	}
	if hits := f.Hits(); hits < 4 {
		t.Errorf("Hits = %d, want >= 4", hits)
	}

	f.Heal()
	f.Heal() // idempotent
	cs, err = findCoordinator(ctx, cl, 0, group)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := b.p.Addr(coord)
	if cs[0].code != 0 || cs[0].node != coord || cs[0].addr != want {
		t.Errorf("healed FindCoordinator = %+v, want ok, node %d at %s", cs[0], coord, want)
	}
	if _, err := b.p.CoordinatorUnavailable(""); err == nil {
		t.Error("CoordinatorUnavailable(\"\") succeeded")
	}
}

func TestDelay(t *testing.T) {
	const d = 300 * time.Millisecond
	b, ctx, cl := rawBed(t)
	f, err := b.p.Delay(kmsg.FindCoordinator, d)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := findCoordinator(ctx, cl, 0, "g"); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < d {
		t.Errorf("delayed request answered after %s, want >= %s", el, d)
	}
	if f.Hits() != 1 {
		t.Errorf("Hits = %d, want 1", f.Hits())
	}
	f.Heal()
	if _, err := findCoordinator(ctx, cl, 0, "g"); err != nil {
		t.Fatal(err)
	}
	if f.Hits() != 1 {
		t.Errorf("Hits after heal = %d, want 1", f.Hits())
	}
	if _, err := b.p.Delay(kmsg.FindCoordinator, 0); err == nil {
		t.Error("Delay(0) succeeded")
	}
}

func TestHold(t *testing.T) {
	b, ctx, cl := rawBed(t)
	f, err := b.p.Hold(kmsg.FindCoordinator)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := findCoordinator(ctx, cl, 1, "g")
		done <- err
	}()
	if err := f.Wait(ctx, 1); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Fatalf("held request answered (err %v)", err)
	case <-time.After(300 * time.Millisecond):
	}
	// The broker has not seen it: the proxy holds the request, not the answer.
	f.Heal()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("released request: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("released request not answered")
	}
	if err := f.Wait(ctx, 2); !errors.Is(err, ErrHealed) {
		t.Errorf("Wait after heal = %v, want ErrHealed", err)
	}
}

func TestDropConnectionsAndBrokersDown(t *testing.T) {
	b, ctx, cl := rawBed(t)
	req := func(node int32) error {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_, err := findCoordinator(rctx, cl, node, "g")
		return err
	}

	f, err := b.p.DropConnections(1)
	if err != nil {
		t.Fatal(err)
	}
	if err := req(1); err == nil {
		t.Error("request to a dropped node succeeded")
	}
	if err := req(0); err != nil {
		t.Errorf("request to node 0 while node 1 drops: %v", err)
	}
	if f.Hits() == 0 || b.p.Stats().Dropped == 0 {
		t.Errorf("Hits %d, Stats.Dropped %d: want > 0", f.Hits(), b.p.Stats().Dropped)
	}
	f.Heal()
	if err := req(1); err != nil {
		t.Errorf("request after heal: %v", err)
	}
	if _, err := b.p.DropConnections(7); err == nil {
		t.Error("DropConnections(7) succeeded for an unknown node")
	}

	down, err := b.p.BrokersDown()
	if err != nil {
		t.Fatal(err)
	}
	for node := range int32(3) {
		if err := req(node); err == nil {
			t.Errorf("request to node %d succeeded with brokers down", node)
		}
	}
	down.Heal()
	for node := range int32(3) {
		if err := req(node); err != nil {
			t.Errorf("request to node %d after heal: %v", node, err)
		}
	}
}

func TestMetadataTopicError(t *testing.T) {
	b := newBed(t, Config{}, kfake.SeedTopics(2, "u"))
	ctx := testCtx(t)
	cl, _ := b.newClient(t, "raw")
	f, err := b.p.AnswerError(ErrorSpec{Key: kmsg.Metadata, Err: kerr.LeaderNotAvailable, Topic: "t"})
	if err != nil {
		t.Fatal(err)
	}
	for _, topics := range [][]string{{"t", "u"}, nil} { // named, then all topics
		req := kmsg.NewPtrMetadataRequest()
		for _, tn := range topics {
			rt := kmsg.NewMetadataRequestTopic()
			rt.Topic = kmsg.StringPtr(tn)
			req.Topics = append(req.Topics, rt)
		}
		resp, err := req.RequestWith(ctx, cl.Broker(0))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]kmsg.MetadataResponseTopic{}
		for _, rt := range resp.Topics {
			got[*rt.Topic] = rt
		}
		if rt := got["t"]; rt.ErrorCode != kerr.LeaderNotAvailable.Code || len(rt.Partitions) != 0 {
			t.Errorf("topics %v: t = code %d, %d partitions; want LEADER_NOT_AVAILABLE, none", topics, rt.ErrorCode, len(rt.Partitions))
		}
		if rt := got["u"]; rt.ErrorCode != 0 || len(rt.Partitions) != 2 {
			t.Errorf("topics %v: u = code %d, %d partitions; want ok, 2", topics, rt.ErrorCode, len(rt.Partitions))
		}
		if len(resp.Brokers) != 3 {
			t.Errorf("%d brokers, want 3", len(resp.Brokers))
		}
		for _, br := range resp.Brokers {
			b.expectProxied(t, br.NodeID, br.Host, br.Port)
		}
	}
	if f.Hits() != 2 {
		t.Errorf("Hits = %d, want 2", f.Hits())
	}
}

// TestFetchErrorWithSessions faults Fetch for a consumer that already uses
// incremental fetch sessions (its requests name no partitions): the proxy
// answers for the session's partitions, at once.
func TestFetchErrorWithSessions(t *testing.T) {
	b := newBed(t, Config{})
	ctx := testCtx(t)
	prod, _ := b.newClient(t, "producer", kgo.DefaultProduceTopic("t"), kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))
	produce := func(n int) {
		t.Helper()
		recs := make([]*kgo.Record, n)
		for i := range recs {
			recs[i] = &kgo.Record{Value: []byte("v")}
		}
		if err := prod.ProduceSync(ctx, recs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	produce(30)
	cons, _ := b.newClient(t, "consumer", kgo.ConsumeTopics("t"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(5*time.Second))
	consume := func(n int) {
		t.Helper()
		for got := 0; got < n; {
			fs := cons.PollFetches(ctx)
			if ctx.Err() != nil {
				t.Fatalf("consumed %d of %d", got, n)
			}
			got += fs.NumRecords()
		}
	}
	consume(30)

	f, err := b.p.AnswerError(ErrorSpec{Key: kmsg.Fetch, Err: kerr.UnknownServerError, Topic: "t"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var fetchErrs int
	for fetchErrs == 0 {
		fs := cons.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatal("no fetch error while faulted")
		}
		fs.EachError(func(string, int32, error) { fetchErrs++ })
	}
	if el := time.Since(start); el > 4*time.Second {
		t.Errorf("first faulted fetch answered after %s; MaxWait should be forced to 0", el)
	}
	if f.Hits() == 0 {
		t.Error("Hits = 0")
	}
	f.Heal()
	produce(30)
	consume(30)
}

func TestErrorFaultFilters(t *testing.T) {
	b, ctx, cl := rawBed(t)

	// When selects by body: only FindCoordinator for "w" is faulted.
	f, err := b.p.AnswerError(ErrorSpec{Key: kmsg.FindCoordinator, Err: kerr.GroupAuthorizationFailed, When: func(r kmsg.Request) bool {
		req := r.(*kmsg.FindCoordinatorRequest)
		return req.CoordinatorKey == "w" || len(req.CoordinatorKeys) > 0 && req.CoordinatorKeys[0] == "w"
	}})
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]int16{"w": kerr.GroupAuthorizationFailed.Code, "x": 0} {
		cs, err := findCoordinator(ctx, cl, 0, key)
		if err != nil {
			t.Fatal(err)
		}
		if cs[0].code != want {
			t.Errorf("FindCoordinator(%s) code %d, want %d", key, cs[0].code, want)
		}
	}
	f.Heal()

	// Generic top-level ErrorCode: ListGroups.
	g, err := b.p.AnswerError(ErrorSpec{Key: kmsg.ListGroups, Err: kerr.CoordinatorLoadInProgress, Nodes: []int32{2}})
	if err != nil {
		t.Fatal(err)
	}
	for node, want := range map[int32]int16{2: kerr.CoordinatorLoadInProgress.Code, 1: 0} {
		resp, err := kmsg.NewPtrListGroupsRequest().RequestWith(ctx, cl.Broker(int(node)))
		if err != nil {
			t.Fatal(err)
		}
		if resp.ErrorCode != want {
			t.Errorf("ListGroups on node %d: code %d, want %d", node, resp.ErrorCode, want)
		}
	}
	if g.Hits() != 1 {
		t.Errorf("Hits = %d, want 1", g.Hits())
	}
	if s := b.p.Stats(); s.Local < 2 {
		t.Errorf("Stats.Local = %d, want >= 2", s.Local)
	}

	for _, bad := range []ErrorSpec{
		{Key: kmsg.Produce, Err: kerr.NotLeaderForPartition},                     // no helper, no top-level code
		{Key: kmsg.ConsumerGroupHeartbeat, Err: kerr.NotCoordinator, Topic: "t"}, // no topics
		{Key: kmsg.ListOffsets, Err: kerr.NotCoordinator, Group: "g"},            // no groups
		{Key: kmsg.Key(9999), Err: kerr.NotCoordinator},                          // unknown
		{Key: kmsg.Metadata}, // no error
	} {
		if _, err := b.p.AnswerError(bad); err == nil {
			t.Errorf("AnswerError(%+v) succeeded", bad)
		}
	}
	if n := b.p.Recorder().Count(wire.Filter{Keys: []kmsg.Key{kmsg.ListGroups}, ClientID: "raw"}); n != 2 {
		t.Errorf("recorded %d ListGroups, want 2 (faulted requests are recorded too)", n)
	}
}

// TestFetchErrorIncrementalSession creates a fetch session with a full raw
// Fetch, then sends an incremental Fetch that names no partition under a
// Fetch fault: the answer carries the fault's error for every session
// partition, at once although MaxWaitMillis is 5 s and there is no data.
func TestFetchErrorIncrementalSession(t *testing.T) {
	b, ctx, cl := rawBed(t)
	meta, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl.Broker(0)) // all topics; teaches the proxy t's id
	if err != nil {
		t.Fatal(err)
	}
	var id [16]byte
	for _, rt := range meta.Topics {
		if *rt.Topic == "t" {
			id = rt.TopicID
		}
	}
	leader := b.kf.LeaderFor("t", 0)
	var parts []int32
	for p := range int32(3) {
		if b.kf.LeaderFor("t", p) == leader {
			parts = append(parts, p)
		}
	}
	fetch := func(sessionID, epoch int32, named bool) (*kmsg.FetchResponse, time.Duration) {
		t.Helper()
		req := kmsg.NewPtrFetchRequest()
		req.ReplicaID, req.MinBytes, req.MaxBytes = -1, 1, 1<<20
		req.MaxWaitMillis = 5000 // the incremental fetch would long-poll: no new data
		if named {
			req.MaxWaitMillis = 0 // the session-creating fetch answers at once
		}
		req.SessionID, req.SessionEpoch = sessionID, epoch
		if named {
			rt := kmsg.NewFetchRequestTopic()
			rt.Topic, rt.TopicID = "t", id
			for _, p := range parts {
				rp := kmsg.NewFetchRequestTopicPartition()
				rp.Partition, rp.PartitionMaxBytes = p, 1<<20
				rt.Partitions = append(rt.Partitions, rp)
			}
			req.Topics = append(req.Topics, rt)
		}
		start := time.Now()
		resp, err := req.RequestWith(ctx, cl.Broker(int(leader)))
		if err != nil {
			t.Fatal(err)
		}
		return resp, time.Since(start)
	}
	full, _ := fetch(0, 0, true)
	if full.ErrorCode != 0 || full.SessionID <= 0 {
		t.Fatalf("full fetch: code %d, session %d", full.ErrorCode, full.SessionID)
	}
	f, err := b.p.AnswerError(ErrorSpec{Key: kmsg.Fetch, Err: kerr.NotLeaderForPartition, Topic: "t"})
	if err != nil {
		t.Fatal(err)
	}
	resp, el := fetch(full.SessionID, 1, false)
	if el > 4*time.Second {
		t.Errorf("faulted incremental fetch answered after %s, want at once", el)
	}
	got := map[int32]int16{}
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			got[rp.Partition] = rp.ErrorCode
		}
	}
	for _, p := range parts {
		if got[p] != kerr.NotLeaderForPartition.Code {
			t.Errorf("session partition t/%d: code %d, want NOT_LEADER_OR_FOLLOWER (got %v)", p, got[p], got)
		}
	}
	if resp.ErrorCode != 0 || resp.SessionID != full.SessionID || f.Hits() != 1 {
		t.Errorf("code %d session %d hits %d; want 0, %d, 1", resp.ErrorCode, resp.SessionID, f.Hits(), full.SessionID)
	}
}
