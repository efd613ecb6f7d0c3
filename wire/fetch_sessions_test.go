package wire

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// fetchFrame encodes req as a client would at its version and parses it
// back.
func fetchFrame(t *testing.T, req *kmsg.FetchRequest) *RequestFrame {
	t.Helper()
	raw := kmsg.NewRequestFormatter(kmsg.FormatterClientID("c")).AppendRequest(nil, req, 7)
	f, err := ParseRequestFrame(raw)
	if err != nil {
		t.Fatalf("parse fetch v%d: %v", req.Version, err)
	}
	return f
}

// fetchAnswer is a Fetch v12 answer (header v1: one tag byte) with code and
// session id and nothing after them.
func fetchAnswer(code int16, id int32) []byte {
	b := []byte{0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0}
	b = append(b, byte(code>>8), byte(code))
	b = append(b, byte(id>>24), byte(id>>16), byte(id>>8), byte(id))
	b[3] = byte(len(b) - SizeLen)
	return b
}

// fetchReq is a Fetch v12 request in session id at epoch naming the
// partitions of topic t in names and forgetting those in forget.
func fetchReq(id, epoch int32, names, forget []int32) *kmsg.FetchRequest {
	req := kmsg.NewPtrFetchRequest()
	req.Version, req.SessionID, req.SessionEpoch = 12, id, epoch
	if len(names) > 0 {
		rt := kmsg.NewFetchRequestTopic()
		rt.Topic = "t"
		for _, p := range names {
			rp := kmsg.NewFetchRequestTopicPartition()
			rp.Partition = p
			rt.Partitions = append(rt.Partitions, rp)
		}
		req.Topics = append(req.Topics, rt)
	}
	if len(forget) > 0 {
		req.ForgottenTopics = append(req.ForgottenTopics, kmsg.FetchRequestForgottenTopic{Topic: "t", Partitions: forget})
	}
	return req
}

func TestFetchSessionTracking(t *testing.T) {
	var s FetchSessions
	observe := func(req *kmsg.FetchRequest, code int16, id int32) {
		t.Helper()
		if err := s.Observe(1, fetchFrame(t, req), fetchAnswer(code, id)); err != nil {
			t.Fatal(err)
		}
	}
	observe(fetchReq(0, 0, []int32{0, 1}, nil), 0, 5) // epoch 0: opens session 5
	inc := fetchReq(5, 1, nil, []int32{1})
	inc.Topics = []kmsg.FetchRequestTopic{{Topic: "u", Partitions: []kmsg.FetchRequestTopicPartition{{Partition: 3}}}}
	got := s.Parts(1, inc)
	slices.SortFunc(got, func(a, b FetchPart) int { return int(a.Partition - b.Partition) })
	if want := []FetchPart{{Topic: "t", Partition: 0}, {Topic: "u", Partition: 3}}; !slices.Equal(got, want) {
		t.Errorf("parts = %v, want %v", got, want)
	}
	observe(inc, 0, 5)
	inc2 := fetchReq(5, 2, nil, nil)
	if got := s.Parts(1, inc2); len(got) != 2 {
		t.Errorf("after incremental: parts %v, want t/0 and u/3", got)
	}
	if got := s.Parts(2, inc2); len(got) != 0 {
		t.Errorf("other node: parts %v, want none", got)
	}
	observe(inc2, kerr.InvalidFetchSessionEpoch.Code, 0)
	if got := s.Parts(1, inc2); len(got) != 0 {
		t.Errorf("after session error: parts %v, want none", got)
	}
	err := s.Observe(1, fetchFrame(t, inc2), []byte{0, 0, 0, 4, 0, 0, 0, 7})
	if !errors.Is(err, ErrMalformed) {
		t.Errorf("truncated fetch response: %v, want ErrMalformed", err)
	}
}

func TestFetchSessionReadsNothing(t *testing.T) {
	var s FetchSessions
	observe := func(req *kmsg.FetchRequest, id int32) {
		t.Helper()
		if err := s.Observe(1, fetchFrame(t, req), fetchAnswer(0, id)); err != nil {
			t.Fatal(err)
		}
	}
	observe(fetchReq(0, 0, []int32{0, 1}, nil), 5) // session 5: t/0, t/1; next epoch 1
	observe(fetchReq(0, 0, nil, nil), 6)           // session 6: no partition
	old := kmsg.NewPtrFetchRequest()
	old.Version = 6
	empty := fetchReq(0, 0, nil, nil)
	empty.Topics = []kmsg.FetchRequestTopic{{Topic: "t"}} // a topic with no partition names none
	for _, c := range []struct {
		name string
		node int32
		req  *kmsg.FetchRequest
		want bool
	}{
		{"session close (epoch -1), no partitions", 1, fetchReq(5, -1, nil, nil), true},
		{"sessionless (id 0, epoch -1), no partitions", 1, fetchReq(0, -1, nil, nil), true},
		{"full fetch (epoch 0) naming a topic without partitions", 1, empty, true},
		{"v6 (no sessions), no partitions", 1, old, true},
		{"full fetch naming a partition", 1, fetchReq(0, 0, []int32{0}, nil), false},
		{"session close naming a partition", 1, fetchReq(5, -1, []int32{0}, nil), false},
		{"incremental forgetting every partition", 1, fetchReq(5, 1, nil, []int32{0, 1}), true},
		{"incremental forgetting one of two", 1, fetchReq(5, 1, nil, []int32{1}), false},
		{"incremental forgetting one twice", 1, fetchReq(5, 1, nil, []int32{1, 1}), false},
		{"incremental forgetting all, naming one", 1, fetchReq(5, 1, []int32{2}, []int32{0, 1}), false},
		{"incremental, nothing forgotten", 1, fetchReq(5, 1, nil, nil), false},
		{"incremental at an epoch the session is not at", 1, fetchReq(5, 2, nil, []int32{0, 1}), false},
		{"incremental on another node", 2, fetchReq(5, 1, nil, []int32{0, 1}), false},
		{"incremental to an unknown session", 1, fetchReq(9, 1, nil, nil), false},
		{"incremental to a session with no partition", 1, fetchReq(6, 1, nil, nil), true},
	} {
		if got := s.ReadsNothing(c.node, c.req); got != c.want {
			t.Errorf("%s: ReadsNothing = %v, want %v", c.name, got, c.want)
		}
	}

	// The session follows its answers: forgetting t/1 at epoch 1 leaves
	// t/0 at epoch 2.
	observe(fetchReq(5, 1, nil, []int32{1}), 5)
	if s.ReadsNothing(1, fetchReq(5, 1, nil, []int32{0})) {
		t.Error("epoch 1 again after the session moved to 2: ReadsNothing")
	}
	if !s.ReadsNothing(1, fetchReq(5, 2, nil, []int32{0})) {
		t.Error("forgetting t/0, the last partition, at epoch 2: not ReadsNothing")
	}
	// A session first seen on an incremental request is known only in
	// part.
	observe(fetchReq(7, 4, nil, nil), 7)
	if s.ReadsNothing(1, fetchReq(7, 5, nil, nil)) {
		t.Error("a session tracked only in part: ReadsNothing")
	}
	// A session close forgets the session.
	observe(fetchReq(6, -1, nil, nil), 0)
	if s.ReadsNothing(1, fetchReq(6, 1, nil, nil)) {
		t.Error("an incremental request to a closed session: ReadsNothing")
	}
}

func TestFetchSessionEpochWraps(t *testing.T) {
	var s FetchSessions
	if err := s.Observe(1, fetchFrame(t, fetchReq(0, 0, nil, nil)), fetchAnswer(0, 5)); err != nil {
		t.Fatal(err)
	}
	s.m[fetchSessionKey{1, 5}].next = math.MaxInt32
	if err := s.Observe(1, fetchFrame(t, fetchReq(5, math.MaxInt32, nil, nil)), fetchAnswer(0, 5)); err != nil {
		t.Fatal(err)
	}
	if !s.ReadsNothing(1, fetchReq(5, 1, nil, nil)) {
		t.Error("after epoch 2147483647 the session expects 1")
	}
}

func TestReadsNothingDoesNotAllocate(t *testing.T) {
	var s FetchSessions
	if err := s.Observe(1, fetchFrame(t, fetchReq(0, 0, []int32{0, 1}, nil)), fetchAnswer(0, 5)); err != nil {
		t.Fatal(err)
	}
	reqs := []*kmsg.FetchRequest{fetchReq(5, 1, nil, []int32{0, 1}), fetchReq(5, -1, nil, nil), fetchReq(0, 0, []int32{0}, nil)}
	if n := testing.AllocsPerRun(100, func() {
		for _, r := range reqs {
			s.ReadsNothing(1, r)
		}
	}); n != 0 {
		t.Errorf("ReadsNothing allocates %v times per run", n)
	}
}
