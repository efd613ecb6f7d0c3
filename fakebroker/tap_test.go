package fakebroker

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/wire"
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

	all := rec.Filter(wire.Filter{ClientID: "rec-test"})
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
		f := wire.Filter{ClientID: "rec-test", Keys: []kmsg.Key{kmsg.Metadata}, Nodes: []int32{node}}
		if n := rec.Count(f); n < 1 {
			t.Fatalf("node %d: %d Metadata requests from rec-test, want >= 1", node, n)
		}
		// kgo opens each connection with ApiVersions.
		f.Keys = []kmsg.Key{kmsg.ApiVersions}
		if n := rec.Count(f); n < 1 {
			t.Fatalf("node %d: %d ApiVersions requests from rec-test, want >= 1", node, n)
		}
	}
	if n := rec.Count(wire.Filter{ClientID: "someone-else"}); n != 0 {
		t.Fatalf("%d requests for a client that never connected", n)
	}
	if n := rec.Count(wire.Filter{ClientID: "rec-test", From: after}); n != 0 {
		t.Fatalf("%d requests after the window, want 0", n)
	}
	if got, want := len(rec.Requests()), rec.Count(wire.Filter{}); got != want {
		t.Fatalf("Requests %d != Count %d", got, want)
	}
	rec.Reset()
	if n := rec.Count(wire.Filter{}); n != 0 {
		t.Fatalf("%d requests after Reset", n)
	}
}
