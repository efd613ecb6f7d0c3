package proxy

import (
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/wire"
)

// testProxy is a Proxy with no listeners, for the per-API helpers.
func testProxy() *Proxy {
	p := &Proxy{topics: map[[16]byte]string{}}
	p.rules.Store(&[]*rule{})
	return p
}

// frameOf encodes req at version v as a client would and parses it back.
func frameOf(t *testing.T, req kmsg.Request, v int16) *request {
	t.Helper()
	req.SetVersion(v)
	raw := kmsg.NewRequestFormatter(kmsg.FormatterClientID("c")).AppendRequest(nil, req, 7)
	f, err := wire.ParseRequestFrame(raw)
	if err != nil {
		t.Fatalf("parse %T v%d: %v", req, v, err)
	}
	return &request{RequestFrame: f, at: testNow}
}

// decide runs applyErrors for rules (installed as one fault each).
func decide(t *testing.T, p *Proxy, rq *request, rules ...*rule) *slot {
	t.Helper()
	for _, r := range rules {
		if _, err := p.install("test", r); err != nil {
			t.Fatal(err)
		}
	}
	s := &slot{rq: rq}
	p.applyErrors(0, rq, s, p.activeRules())
	return s
}

// localAnswer parses s.local as the response to s.rq.
func localAnswer(t *testing.T, s *slot) kmsg.Response {
	t.Helper()
	if s.local == nil {
		t.Fatalf("not answered locally (errRules %d)", len(s.errRules))
	}
	if corr, _ := wire.ResponseCorrelationID(s.local); corr != s.rq.CorrelationID {
		t.Fatalf("local answer correlation id %d, want %d", corr, s.rq.CorrelationID)
	}
	resp, _, err := s.rq.ParseResponse(s.local)
	if err != nil {
		t.Fatalf("local answer does not parse: %v", err)
	}
	return resp
}

func errRule(key kmsg.Key, err *kerr.Error, topic, group string) *rule {
	return &rule{kind: ruleError, keys: []kmsg.Key{key}, topic: topic, group: group, err: err}
}

func TestOffsetCommitLocal(t *testing.T) {
	for _, v := range []int16{2, 8, 9} {
		p := testProxy()
		req := kmsg.NewPtrOffsetCommitRequest()
		req.Group = "g"
		for _, tn := range []string{"t", "u"} {
			rt := kmsg.NewOffsetCommitRequestTopic()
			rt.Topic = tn
			for part := range int32(2) {
				rp := kmsg.NewOffsetCommitRequestTopicPartition()
				rp.Partition, rp.Offset = part, 10
				rt.Partitions = append(rt.Partitions, rp)
			}
			req.Topics = append(req.Topics, rt)
		}
		s := decide(t, p, frameOf(t, req, v), errRule(kmsg.OffsetCommit, kerr.NotCoordinator, "", "g"))
		resp := localAnswer(t, s).(*kmsg.OffsetCommitResponse)
		n := 0
		for _, rt := range resp.Topics {
			for _, rp := range rt.Partitions {
				if rp.ErrorCode != kerr.NotCoordinator.Code {
					t.Errorf("v%d %s/%d code %d", v, rt.Topic, rp.Partition, rp.ErrorCode)
				}
				n++
			}
		}
		if n != 4 {
			t.Errorf("v%d: %d partitions answered, want 4", v, n)
		}

		// Another group is not selected; a topic filter on a mixed
		// request means forward and rewrite.
		if s := decide(t, testProxy(), frameOf(t, req, v), errRule(kmsg.OffsetCommit, kerr.NotCoordinator, "", "h")); s.local != nil || len(s.errRules) != 0 {
			t.Errorf("v%d: group h selected a commit for g", v)
		}
		s = decide(t, testProxy(), frameOf(t, req, v), errRule(kmsg.OffsetCommit, kerr.UnknownTopicOrPartition, "t", ""))
		if s.local != nil || len(s.errRules) != 1 {
			t.Fatalf("v%d: mixed topics: local %v, errRules %d; want rewrite", v, s.local != nil, len(s.errRules))
		}
		up := offsetCommitSkeleton(p, s.rq.Body).(*kmsg.OffsetCommitResponse)
		if !testProxy().applyResponseErrors(s, up) {
			t.Fatalf("v%d: rewrite changed nothing", v)
		}
		for _, rt := range up.Topics {
			want := int16(0)
			if rt.Topic == "t" {
				want = kerr.UnknownTopicOrPartition.Code
			}
			for _, rp := range rt.Partitions {
				if rp.ErrorCode != want {
					t.Errorf("v%d rewrite %s/%d code %d, want %d", v, rt.Topic, rp.Partition, rp.ErrorCode, want)
				}
			}
		}
	}
}

func TestOffsetFetchGroups(t *testing.T) {
	// v8+: two groups, one faulted: forward and rewrite that group only.
	req := kmsg.NewPtrOffsetFetchRequest()
	for _, g := range []string{"g", "h"} {
		rg := kmsg.NewOffsetFetchRequestGroup()
		rg.Group = g
		rt := kmsg.NewOffsetFetchRequestGroupTopic()
		rt.Topic, rt.Partitions = "t", []int32{0, 1}
		rg.Topics = append(rg.Topics, rt)
		req.Groups = append(req.Groups, rg)
	}
	p := testProxy()
	s := decide(t, p, frameOf(t, req, 8), errRule(kmsg.OffsetFetch, kerr.NotCoordinator, "", "g"))
	if s.local != nil || len(s.errRules) != 1 {
		t.Fatalf("two groups: local %v, errRules %d; want rewrite", s.local != nil, len(s.errRules))
	}
	up := offsetFetchSkeleton(p, s.rq.Body).(*kmsg.OffsetFetchResponse)
	p.applyResponseErrors(s, up)
	if up.Groups[0].ErrorCode != kerr.NotCoordinator.Code || up.Groups[0].Topics != nil || up.Groups[1].ErrorCode != 0 || len(up.Groups[1].Topics) != 1 {
		t.Errorf("rewritten groups %+v", up.Groups)
	}
	// v5: single group, top-level code.
	old := kmsg.NewPtrOffsetFetchRequest()
	old.Group = "g"
	old.Topics = []kmsg.OffsetFetchRequestTopic{{Topic: "t", Partitions: []int32{0}}}
	resp := localAnswer(t, decide(t, testProxy(), frameOf(t, old, 5), errRule(kmsg.OffsetFetch, kerr.NotCoordinator, "", "g"))).(*kmsg.OffsetFetchResponse)
	if resp.ErrorCode != kerr.NotCoordinator.Code {
		t.Errorf("v5 top-level code %d", resp.ErrorCode)
	}
}

func TestFindCoordinatorHelpers(t *testing.T) {
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.CoordinatorKey = "g"
	resp := localAnswer(t, decide(t, testProxy(), frameOf(t, req, 3), errRule(kmsg.FindCoordinator, kerr.CoordinatorNotAvailable, "", "g"))).(*kmsg.FindCoordinatorResponse)
	if resp.ErrorCode != kerr.CoordinatorNotAvailable.Code || resp.NodeID != -1 {
		t.Errorf("v3: %+v", resp)
	}
	// A transaction key is not a group.
	req.CoordinatorType = 1
	if s := decide(t, testProxy(), frameOf(t, req, 3), errRule(kmsg.FindCoordinator, kerr.CoordinatorNotAvailable, "", "g")); s.local != nil || len(s.errRules) > 0 {
		t.Error("group fault selected a transaction key")
	}
	req.CoordinatorType = 0
	req.CoordinatorKeys = []string{"g"}
	resp = localAnswer(t, decide(t, testProxy(), frameOf(t, req, 4), errRule(kmsg.FindCoordinator, kerr.CoordinatorNotAvailable, "", "g"))).(*kmsg.FindCoordinatorResponse)
	if len(resp.Coordinators) != 1 || resp.Coordinators[0].ErrorCode != kerr.CoordinatorNotAvailable.Code || resp.Coordinators[0].Key != "g" {
		t.Errorf("v4: %+v", resp.Coordinators)
	}
}

func TestShareAndListOffsetsHelpers(t *testing.T) {
	p := testProxy()
	id := [16]byte{1}
	p.topics[id] = "t"
	sf := kmsg.NewPtrShareFetchRequest()
	sf.GroupID = kmsg.StringPtr("sg")
	sf.Topics = []kmsg.ShareFetchRequestTopic{{TopicID: id, Partitions: []kmsg.ShareFetchRequestTopicPartition{{Partition: 0}}}}
	v := sf.MaxVersion()
	resp := localAnswer(t, decide(t, p, frameOf(t, sf, v), errRule(kmsg.ShareFetch, kerr.GroupAuthorizationFailed, "", ""))).(*kmsg.ShareFetchResponse)
	if resp.ErrorCode != kerr.GroupAuthorizationFailed.Code || len(resp.Topics) != 0 {
		t.Errorf("share fetch top-level: %+v", resp)
	}
	resp = localAnswer(t, decide(t, testProxyWith(id, "t"), frameOf(t, sf, v), errRule(kmsg.ShareFetch, kerr.NotLeaderForPartition, "t", ""))).(*kmsg.ShareFetchResponse)
	if resp.ErrorCode != 0 || resp.Topics[0].Partitions[0].ErrorCode != kerr.NotLeaderForPartition.Code {
		t.Errorf("share fetch by topic: %+v", resp)
	}
	sa := kmsg.NewPtrShareAcknowledgeRequest()
	sa.GroupID = kmsg.StringPtr("sg")
	ar := localAnswer(t, decide(t, testProxy(), frameOf(t, sa, sa.MaxVersion()), errRule(kmsg.ShareAcknowledge, kerr.InvalidShareSessionEpoch, "", "sg"))).(*kmsg.ShareAcknowledgeResponse)
	if ar.ErrorCode != kerr.InvalidShareSessionEpoch.Code {
		t.Errorf("share ack: %+v", ar)
	}

	lo := kmsg.NewPtrListOffsetsRequest()
	lo.Topics = []kmsg.ListOffsetsRequestTopic{{Topic: "t", Partitions: []kmsg.ListOffsetsRequestTopicPartition{{Partition: 0}, {Partition: 1}}}}
	lr := localAnswer(t, decide(t, testProxy(), frameOf(t, lo, 7), errRule(kmsg.ListOffsets, kerr.OffsetNotAvailable, "t", ""))).(*kmsg.ListOffsetsResponse)
	for _, rp := range lr.Topics[0].Partitions {
		if rp.ErrorCode != kerr.OffsetNotAvailable.Code || rp.Offset != -1 {
			t.Errorf("list offsets %+v", rp)
		}
	}
	hb := kmsg.NewPtrShareGroupHeartbeatRequest()
	hb.GroupID = "sg"
	hr := localAnswer(t, decide(t, testProxy(), frameOf(t, hb, 1), errRule(kmsg.ShareGroupHeartbeat, kerr.NotCoordinator, "", "sg"))).(*kmsg.ShareGroupHeartbeatResponse)
	if hr.ErrorCode != kerr.NotCoordinator.Code {
		t.Errorf("share heartbeat %+v", hr)
	}
}

func testProxyWith(id [16]byte, name string) *Proxy {
	p := testProxy()
	p.topics[id] = name
	return p
}

func TestFetchSessionCodeTopLevel(t *testing.T) {
	p := testProxy()
	resp := &kmsg.FetchResponse{Version: 12}
	parts := []wire.FetchPart{{Topic: "t", Partition: 0}}
	if n := p.setFetch(resp, parts, match{code: kerr.InvalidFetchSessionEpoch.Code}); n != 1 || resp.ErrorCode != kerr.InvalidFetchSessionEpoch.Code || resp.Topics != nil {
		t.Errorf("session code: n %d, %+v", n, resp)
	}
	resp = &kmsg.FetchResponse{Version: 12}
	if n := p.setFetch(resp, parts, match{code: kerr.NotLeaderForPartition.Code}); n != 1 || resp.Topics[0].Partitions[0].ErrorCode != kerr.NotLeaderForPartition.Code {
		t.Errorf("partition code: n %d, %+v", n, resp)
	}
}

func TestApiVersionsCapped(t *testing.T) {
	p := testProxy()
	rq := frameOf(t, kmsg.NewPtrApiVersionsRequest(), 3)
	up := kmsg.NewPtrApiVersionsResponse()
	up.SetVersion(3)
	meta := kmsg.NewApiVersionsResponseApiKey()
	meta.ApiKey, meta.MaxVersion = int16(kmsg.Metadata), 99
	unknown := kmsg.NewApiVersionsResponseApiKey()
	unknown.ApiKey, unknown.MaxVersion = 999, 5
	up.ApiKeys = []kmsg.ApiVersionsResponseApiKey{meta, unknown}
	out, err := p.processResponse(0, &slot{rq: rq}, rq.Response(up))
	if err != nil {
		t.Fatal(err)
	}
	resp, _, err := rq.ParseResponse(out)
	if err != nil {
		t.Fatal(err)
	}
	got := resp.(*kmsg.ApiVersionsResponse).ApiKeys
	if got[0].MaxVersion != kmsg.NewPtrMetadataRequest().MaxVersion() || got[1].MaxVersion != 5 {
		t.Errorf("capped keys %+v", got)
	}
	// An answer that does not parse at the request's version (a v0
	// UNSUPPORTED_VERSION body) is relayed as is.
	v0 := []byte{0, 0, 0, 10, 0, 0, 0, byte(rq.CorrelationID), 0, 35, 0xff, 0xff, 0xff, 0xff}
	if out, err := p.processResponse(0, &slot{rq: rq}, v0); err != nil || !slices.Equal(out, v0) {
		t.Errorf("v0 answer: %v, changed %v", err, !slices.Equal(out, v0))
	}
}
