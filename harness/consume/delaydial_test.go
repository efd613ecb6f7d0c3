package consume

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/fakebroker"
	"github.com/kreactor/kreactor/harness"
)

// TestResponseDelayHoldsOnlyItsKey checks that ResponseDelay learns each
// request's key from the outgoing frames and holds exactly the responses of
// its key: every Metadata answer waits, the ApiVersions answers kgo asks for
// on each connection do not, and Heal releases a held answer at once.
func TestResponseDelayHoldsOnlyItsKey(t *testing.T) {
	const delay = 200 * time.Millisecond
	b, err := fakebroker.Start(fakebroker.Config{Brokers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	rd := DelayResponses(kmsg.Metadata, func() time.Duration { return delay })
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addrs()...), kgo.Dialer(rd.Dial), kgo.ClientID("delay-test"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()

	for i := range 3 {
		start := time.Now()
		if _, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl); err != nil {
			t.Fatalf("metadata %d: %v", i, err)
		}
		if took := time.Since(start); took < delay {
			t.Fatalf("metadata %d answered after %s, before the %s delay", i, took, delay)
		}
	}
	versions := b.Recorder().Count(harness.RequestFilter{Keys: []kmsg.Key{kmsg.ApiVersions}, ClientID: "delay-test"})
	metas := b.Recorder().Count(harness.RequestFilter{Keys: []kmsg.Key{kmsg.Metadata}, ClientID: "delay-test"})
	if versions == 0 || rd.Hits() < 3 || rd.Hits() > metas {
		t.Fatalf("Hits = %d, want one per Metadata answer (3 asked, %d sent; the %d ApiVersions not held)", rd.Hits(), metas, versions)
	}

	rd2 := DelayResponses(kmsg.Metadata, func() time.Duration { return time.Hour })
	cl2, err := kgo.NewClient(kgo.SeedBrokers(b.Addrs()...), kgo.Dialer(rd2.Dial))
	if err != nil {
		t.Fatal(err)
	}
	defer cl2.Close()
	done := make(chan error, 1)
	go func() {
		_, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl2)
		done <- err
	}()
	for rd2.Hits() == 0 {
		select {
		case err := <-done:
			t.Fatalf("metadata answered while held for an hour: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	rd2.Heal()
	if err := <-done; err != nil {
		t.Fatalf("metadata after Heal: %v", err)
	}
}
