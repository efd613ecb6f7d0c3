package fakebroker

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	"go.uber.org/goleak"

	"github.com/kreactor/kreactor/wire"
)

func TestCoordinatorUnavailableUntilHealed(t *testing.T) {
	b, cl, ctx := brokerClient(t, Config{}, "coord-test")
	const group = "g1"
	coord := b.CoordinatorFor(group)

	h, err := b.CoordinatorUnavailable(group)
	if err != nil {
		t.Fatal(err)
	}
	code, _, err := findCoordinator(ctx, cl, 0, group)
	if err != nil {
		t.Fatal(err)
	}
	if code != kerr.CoordinatorNotAvailable.Code {
		t.Fatalf("FindCoordinator(%s) while unavailable: code %d (%v), want COORDINATOR_NOT_AVAILABLE", group, code, kerr.ErrorForCode(code))
	}
	// Other groups are unaffected.
	if code, _, err := findCoordinator(ctx, cl, 0, "other"); err != nil || code != 0 {
		t.Fatalf("FindCoordinator(other): code %d err %v, want success", code, err)
	}

	// The coordinator answers the group's requests with NOT_COORDINATOR.
	of := kmsg.NewPtrOffsetFetchRequest()
	of.Group = group
	rg := kmsg.NewOffsetFetchRequestGroup()
	rg.Group = group
	of.Groups = []kmsg.OffsetFetchRequestGroup{rg}
	kresp, err := cl.Broker(int(coord)).Request(ctx, of)
	if err != nil {
		t.Fatal(err)
	}
	ofr := kresp.(*kmsg.OffsetFetchResponse)
	code = ofr.ErrorCode
	if len(ofr.Groups) > 0 {
		code = ofr.Groups[0].ErrorCode
	}
	if code != kerr.NotCoordinator.Code {
		t.Fatalf("OffsetFetch while unavailable: code %d, want NOT_COORDINATOR", code)
	}
	if hits := h.Hits(); hits != 2 {
		t.Fatalf("Hits = %d, want 2 (one FindCoordinator, one OffsetFetch)", hits)
	}

	h.Heal()
	h.Heal() // idempotent
	code, node, err := findCoordinator(ctx, cl, 0, group)
	if err != nil || code != 0 {
		t.Fatalf("FindCoordinator after heal: code %d err %v, want success", code, err)
	}
	if node != coord {
		t.Fatalf("FindCoordinator after heal: node %d, want %d", node, coord)
	}
	if _, err := b.CoordinatorUnavailable(""); err == nil {
		t.Fatal("CoordinatorUnavailable(\"\") accepted")
	}
}

func TestAnswerKeyWithErrorCountsDown(t *testing.T) {
	b, cl, ctx := brokerClient(t, Config{}, "answer-test")
	h, err := b.AnswerKeyWithError(kmsg.ListGroups, kerr.CoordinatorLoadInProgress, 0)
	if err != nil {
		t.Fatal(err)
	}
	codes := make([]int16, 2)
	for i := range codes {
		kresp, err := cl.Broker(0).Request(ctx, kmsg.NewPtrListGroupsRequest())
		if err != nil {
			t.Fatal(err)
		}
		codes[i] = kresp.(*kmsg.ListGroupsResponse).ErrorCode
	}
	if codes[0] != kerr.CoordinatorLoadInProgress.Code || codes[1] != 0 {
		t.Fatalf("codes %v: want the first faulted, the second not", codes)
	}
	if err := h.Wait(ctx, 1); err != nil || h.Hits() != 1 {
		t.Fatalf("Wait: %v, Hits %d, want 1", err, h.Hits())
	}
	var ae *ArgError
	if _, err := b.AnswerKeyWithError(kmsg.ListGroups, nil, 0); !errors.As(err, &ae) {
		t.Fatalf("nil err: %v, want *ArgError", err)
	}
	if _, err := b.AnswerKeyWithError(kmsg.ListGroups, kerr.UnknownServerError, -2); !errors.As(err, &ae) {
		t.Fatalf("count -2: %v, want *ArgError", err)
	}
}

func TestDelayKeyDelaysByAtLeastD(t *testing.T) {
	b, cl, ctx := brokerClient(t, Config{}, "delay-test")
	const d = 300 * time.Millisecond
	h, err := b.DelayKey(kmsg.FindCoordinator, d, 1)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if code, _, err := findCoordinator(ctx, cl, 1, "g"); err != nil || code != 0 {
		t.Fatalf("delayed FindCoordinator: code %d err %v", code, err)
	}
	if el := time.Since(start); el < d {
		t.Fatalf("delayed request answered after %v, want >= %v", el, d)
	}
	start = time.Now()
	if _, _, err := findCoordinator(ctx, cl, 1, "g"); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el >= d {
		t.Fatalf("request after the count was used up took %v, want < %v", el, d)
	}
	if hits := h.Hits(); hits != 1 {
		t.Fatalf("Hits = %d, want 1", hits)
	}
}

// An hour's delay ends at once when its handle is released, with DelayKey
// and DelayKeyFunc.
func TestDelayEndsEarlyOnRelease(t *testing.T) {
	for name, delay := range map[string]func(b *Broker) (*Handle, error){
		"DelayKey": func(b *Broker) (*Handle, error) { return b.DelayKey(kmsg.FindCoordinator, time.Hour, -1) },
		"DelayKeyFunc": func(b *Broker) (*Handle, error) {
			return b.DelayKeyFunc(kmsg.FindCoordinator, func() time.Duration { return time.Hour }, -1)
		},
	} {
		t.Run(name, func(t *testing.T) {
			b, cl, ctx := brokerClient(t, Config{}, "delay-release-test")
			h, err := delay(b)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { _, _, err := findCoordinator(ctx, cl, 0, "g"); done <- err }()
			if err := h.Wait(ctx, 1); err != nil {
				t.Fatal(err)
			}
			h.Release()
			awaitAnswer(t, ctx, done, "released delay still pending")
		})
	}
}

func TestHoldKeyHoldsUntilRelease(t *testing.T) {
	b, cl, ctx := brokerClient(t, Config{}, "hold-test")
	h, err := b.HoldKey(kmsg.FindCoordinator)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, _, err := findCoordinator(ctx, cl, 2, "g"); done <- err }()
	if err := h.Wait(ctx, 1); err != nil {
		t.Fatalf("request never held: %v", err)
	}
	const holdCheck = 200 * time.Millisecond
	select {
	case err := <-done:
		t.Fatalf("held request answered before release (err %v)", err)
	case <-time.After(holdCheck):
	}
	// Other connections still flow (the same connection queues behind the
	// held request: kfake answers a connection's requests in order).
	other := newClient(t, b, "hold-test-other")
	if _, err := other.Broker(2).Request(ctx, kmsg.NewPtrMetadataRequest()); err != nil {
		t.Fatalf("metadata while holding FindCoordinator: %v", err)
	}
	released := time.Now()
	h.Release()
	awaitAnswer(t, ctx, done, "held request not answered after release")
	if el := time.Since(released); el > time.Second {
		t.Fatalf("answered %v after release, want promptly", el)
	}
}

func TestCloseWithHeldRequestLeavesNoGoroutine(t *testing.T) {
	defer goleak.VerifyNone(t)
	b, err := Start(Config{})
	if err != nil {
		t.Fatal(err)
	}
	cl := newClient(t, b, "close-test")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	// Two held requests on different nodes: two controls asleep at once.
	h, err := b.HoldKey(kmsg.FindCoordinator)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 2)
	for _, node := range []int{0, 1} {
		go func() { _, _, err := findCoordinator(ctx, cl, int32(node), "g"); done <- err }()
	}
	if err := h.Wait(ctx, 2); err != nil {
		t.Fatalf("requests never held: %v", err)
	}
	b.Close()
	for range 2 {
		select {
		case <-done: // answered at release or failed with the closed connection
		case <-ctx.Done():
			t.Fatal("held request still pending after Close")
		}
	}
	cl.Close()
}

func TestDropConnectionsUntilRemoved(t *testing.T) {
	b, cl, ctx := brokerClient(t, Config{}, "drop-test")
	h, err := b.DropConnections(1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Broker(1).Request(ctx, kmsg.NewPtrMetadataRequest()); err == nil {
		t.Fatal("request to a dropping node succeeded")
	}
	if _, err := cl.Broker(0).Request(ctx, kmsg.NewPtrMetadataRequest()); err != nil {
		t.Fatalf("request to another node: %v", err)
	}
	if h.Hits() < 1 {
		t.Fatalf("Hits = %d, want >= 1", h.Hits())
	}
	h.Remove()
	if _, err := cl.Broker(1).Request(ctx, kmsg.NewPtrMetadataRequest()); err != nil {
		t.Fatalf("request after Remove: %v", err)
	}
	if _, err := b.DropConnections(7); err == nil {
		t.Fatal("DropConnections(7) accepted an unknown node")
	}
}

func TestStopNodeAndRestart(t *testing.T) {
	b, cl, ctx := brokerClient(t, Config{}, "stop-test")
	h, err := b.StopNode(2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Broker(2).Request(ctx, kmsg.NewPtrMetadataRequest()); err == nil {
		t.Fatal("request to a stopped node succeeded")
	}
	h.Heal()
	var lastErr error
	for range 50 { // kgo may need a few attempts to re-dial the restarted node
		if _, lastErr = cl.Broker(2).Request(ctx, kmsg.NewPtrMetadataRequest()); lastErr == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if lastErr != nil {
		t.Fatalf("request to the restarted node: %v", lastErr)
	}
	if n := b.Recorder().Count(wire.Filter{ClientID: "stop-test", Nodes: []int32{-1}}); n != 0 {
		t.Fatalf("%d requests recorded with an unknown node after restart", n)
	}
}
