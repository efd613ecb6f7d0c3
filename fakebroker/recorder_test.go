package fakebroker

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestRecorderRecordsKgoClientRequests(t *testing.T) {
	b := startBroker(t, Config{Topics: map[string]int32{"t": 3}})
	rec := b.Recorder()
	before := rec.Mark()
	cl := newClient(t, b, "rec-test")
	ctx := testCtx(t)

	// One explicit Metadata request to each node.
	for node := int32(0); node < 3; node++ {
		if _, err := cl.Broker(int(node)).Request(ctx, kmsg.NewPtrMetadataRequest()); err != nil {
			t.Fatalf("metadata to node %d: %v", node, err)
		}
	}
	after := rec.Mark()

	all := rec.Filter(Filter{ClientID: "rec-test"})
	if len(all) == 0 {
		t.Fatal("no requests recorded for client rec-test")
	}
	for _, r := range all {
		if r.Node < 0 || r.Node > 2 {
			t.Fatalf("request with unknown node: %+v", r)
		}
		if r.At.Before(before) || !r.At.Before(after) {
			t.Fatalf("request outside the window [%v, %v): %+v", before, after, r)
		}
		if r.Conn == 0 || r.Size <= 0 {
			t.Fatalf("bad conn or size: %+v", r)
		}
	}
	for node := int32(0); node < 3; node++ {
		f := Filter{ClientID: "rec-test", Keys: []kmsg.Key{kmsg.Metadata}, Nodes: []int32{node}}
		if n := rec.Count(f); n < 1 {
			t.Fatalf("node %d: %d Metadata requests from rec-test, want >= 1", node, n)
		}
		// kgo opens each connection with ApiVersions.
		f.Keys = []kmsg.Key{kmsg.ApiVersions}
		if n := rec.Count(f); n < 1 {
			t.Fatalf("node %d: %d ApiVersions requests from rec-test, want >= 1", node, n)
		}
	}
	if n := rec.Count(Filter{ClientID: "someone-else"}); n != 0 {
		t.Fatalf("%d requests for a client that never connected", n)
	}
	if n := rec.Count(Filter{ClientID: "rec-test", From: after}); n != 0 {
		t.Fatalf("%d requests after the window, want 0", n)
	}
	if got, want := len(rec.Requests()), rec.Count(Filter{}); got != want {
		t.Fatalf("Requests %d != Count %d", got, want)
	}
	rec.Reset()
	if n := rec.Count(Filter{}); n != 0 {
		t.Fatalf("%d requests after Reset", n)
	}
}

// frame builds one request frame with header v1 and an arbitrary body.
func frame(key kmsg.Key, version int16, corr int32, clientID *string, body []byte) []byte {
	var hdr []byte
	hdr = binary.BigEndian.AppendUint16(hdr, uint16(key))
	hdr = binary.BigEndian.AppendUint16(hdr, uint16(version))
	hdr = binary.BigEndian.AppendUint32(hdr, uint32(corr))
	if clientID == nil {
		hdr = binary.BigEndian.AppendUint16(hdr, 0xffff)
	} else {
		hdr = binary.BigEndian.AppendUint16(hdr, uint16(len(*clientID)))
		hdr = append(hdr, *clientID...)
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(len(hdr)+len(body)))
	out = append(out, hdr...)
	return append(out, body...)
}

func TestFrameParserHandlesAnySplit(t *testing.T) {
	id := "client-7"
	empty := ""
	var stream []byte
	stream = append(stream, frame(kmsg.FindCoordinator, 6, 1, &id, []byte("body-one"))...)
	stream = append(stream, frame(kmsg.ConsumerGroupHeartbeat, 1, 2, nil, make([]byte, 300))...)
	stream = append(stream, frame(kmsg.ApiVersions, 4, 3, &empty, nil)...)
	stream = append(stream, 0, 0, 0, 3, 1, 2, 3) // malformed: shorter than a header
	stream = append(stream, frame(kmsg.Fetch, 17, 4, &id, []byte{0})...)
	want := []Request{
		{Key: kmsg.FindCoordinator, Version: 6, CorrelationID: 1, ClientID: id},
		{Key: kmsg.ConsumerGroupHeartbeat, Version: 1, CorrelationID: 2},
		{Key: kmsg.ApiVersions, Version: 4, CorrelationID: 3},
		{Key: kmsg.Fetch, Version: 17, CorrelationID: 4, ClientID: id},
	}

	splits := map[string]func([]byte) [][]byte{
		"whole": func(b []byte) [][]byte { return [][]byte{b} },
		"byte by byte": func(b []byte) [][]byte {
			var out [][]byte
			for i := range b {
				out = append(out, b[i:i+1])
			}
			return out
		},
		"random chunks": func(b []byte) [][]byte {
			r := rand.New(rand.NewPCG(1, 2))
			var out [][]byte
			for len(b) > 0 {
				n := min(1+r.IntN(13), len(b))
				out, b = append(out, b[:n]), b[n:]
			}
			return out
		},
	}
	for name, split := range splits {
		t.Run(name, func(t *testing.T) {
			rec := NewRecorder(100)
			p := &frameParser{node: 2, conn: 9, rec: rec}
			now := time.Now()
			for _, chunk := range split(stream) {
				p.feed(chunk, now)
			}
			got := rec.Requests()
			if len(got) != len(want) {
				t.Fatalf("got %d requests, want %d: %+v", len(got), len(want), got)
			}
			for i, g := range got {
				w := want[i]
				if g.Key != w.Key || g.Version != w.Version || g.CorrelationID != w.CorrelationID || g.ClientID != w.ClientID || g.Node != 2 || g.Conn != 9 {
					t.Fatalf("request %d: got %+v, want %+v on node 2 conn 9", i, g, w)
				}
			}
			if m := rec.Malformed(); m != 1 {
				t.Fatalf("Malformed = %d, want 1", m)
			}
			if p.state != stSize || len(p.buf) != 0 {
				t.Fatalf("parser not at a frame boundary after the stream: state %d, %d buffered", p.state, len(p.buf))
			}
		})
	}
}

func TestRecorderIsBounded(t *testing.T) {
	rec := NewRecorder(3)
	for i := range 5 {
		rec.Add(Request{CorrelationID: int32(i)})
	}
	got := rec.Requests()
	if len(got) != 3 || got[0].CorrelationID != 2 || got[2].CorrelationID != 4 {
		t.Fatalf("want the newest three (2, 3, 4) oldest first, got %+v", got)
	}
	if d := rec.Dropped(); d != 2 {
		t.Fatalf("Dropped = %d, want 2", d)
	}
}
