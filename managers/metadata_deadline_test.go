package managers_test

// Metadata retries end only with what needs the metadata, as Java's
// NetworkClient retries its metadata update on the backoff without a
// deadline of its own; what bounds how long the known brokers are tried is
// metadata.recovery.rebootstrap.trigger.ms (KIP-1102): an update attempt
// that has not succeeded for longer forgets them and asks bootstrap.servers
// again (NetworkClient.DefaultMetadataUpdater.needsRebootstrap and
// rebootstrap, kafka-clients 4.4.0), as a REBOOTSTRAP_REQUIRED answer does.

import (
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/internal/testrig"
	"github.com/kreactor/kreactor/reactor"
)

// rebootstrapTrigger is metadata.recovery.rebootstrap.trigger.ms here.
const rebootstrapTrigger = 3 * time.Second

var bootstrap = []string{"bootstrap:9092"}

// metaSend is one Metadata request: when, from the start, and to which
// addresses.
type metaSend struct {
	at    time.Duration
	addrs []string
}

// metaRig is a rig whose metadata manager starts from bootstrap, with the
// rebootstrap strategy on (or off), and has learnt the brokers from a first
// answer.
func metaRig(t *testing.T, rebootstrap bool) *testrig.Rig[struct{}] {
	r := testrig.New[struct{}](t, managers.KeyTypeGroup)
	r.Meta = managers.NewMetadata(bootstrap, time.Hour, r.Back)
	r.Meta.SetRebootstrap(rebootstrap, rebootstrapTrigger)
	r.Start(func(time.Time) struct{} { return struct{}{} })
	req := r.Request(r.Meta)
	if addrs := req.Payload.(*managers.Call).Addrs; !slices.Equal(addrs, bootstrap) {
		t.Fatalf("first Metadata to %v, want the bootstrap addresses %v", addrs, bootstrap)
	}
	r.Answer(req, testrig.MetadataAnswer(), nil)
	if slices.Equal(r.Meta.Addrs(), bootstrap) {
		t.Fatal("the brokers are not known after the first answer")
	}
	return r
}

// failRefreshes asks for a refresh and answers every Metadata with answer
// until d has passed, returning the sends.
func failRefreshes(t *testing.T, r *testrig.Rig[struct{}], d time.Duration, answer func(req *reactor.Request)) []metaSend {
	t.Helper()
	start := r.Now
	r.Do("refresh", func(tx *reactor.Tx) { r.Meta.RequestRefresh(tx) })
	var sends []metaSend
	for r.Now.Sub(start) <= d {
		st := r.Step()
		reqs := r.Sent(st, r.Meta)
		for _, req := range reqs {
			sends = append(sends, metaSend{r.Now.Sub(start), req.Payload.(*managers.Call).Addrs})
			answer(req)
		}
		if len(reqs) > 0 {
			continue
		}
		if st.Decision.Wake.IsZero() {
			t.Fatalf("metadata waits for nothing while its refresh keeps failing:\n%s", st.Decision.Diagnose())
		}
		r.Now = st.Decision.Wake
	}
	return sends
}

// Refreshes that keep failing are retried on the backoff schedule, to the
// known brokers until the attempt is older than the trigger, then to the
// bootstrap addresses (once: the attempt's clock starts again); a
// successful answer ends the attempt.
func TestMetadataRetriesRebootstrapAfterTrigger(t *testing.T) {
	r := metaRig(t, true)
	known := r.Meta.Addrs()
	sends := failRefreshes(t, r, 2*rebootstrapTrigger, func(req *reactor.Request) { r.Answer(req, nil, testrig.ErrTransport) })
	if len(sends) < 4 {
		t.Fatalf("%d Metadata sends in %s of failures, want the retry schedule: %v", len(sends), 2*rebootstrapTrigger, sends)
	}
	for i, s := range sends {
		want := known
		if s.at > rebootstrapTrigger {
			want = bootstrap
		}
		if !slices.Equal(s.addrs, want) {
			t.Fatalf("send %d at +%s went to %v, want %v (rebootstrap after %s without a successful update): %v", i, s.at, s.addrs, want, rebootstrapTrigger, sends)
		}
		if i > 0 && s.at-sends[i-1].at < r.Back.Delay(min(i, 10)) {
			t.Fatalf("send %d at +%s, %s after the previous: faster than the retry backoff %s", i, s.at, s.at-sends[i-1].at, r.Back.Delay(i))
		}
	}
	if n := r.Meta.Rebootstraps(); n != 1 {
		t.Fatalf("%d rebootstraps in %s, want 1 (the attempt's clock starts again at a rebootstrap)", n, 2*rebootstrapTrigger)
	}
	// Answered: the brokers are known again and the attempt is over, so
	// failures for less than the trigger do not rebootstrap.
	r.Elapse(r.Back.Max)
	r.Answer(r.Request(r.Meta), testrig.MetadataAnswer(), nil)
	failRefreshes(t, r, rebootstrapTrigger/2, func(req *reactor.Request) { r.Answer(req, nil, testrig.ErrTransport) })
	if n := r.Meta.Rebootstraps(); n != 1 {
		t.Fatalf("%d rebootstraps after a success and %s of failures, want still 1", n, rebootstrapTrigger/2)
	}
}

// With metadata.recovery.strategy=none the known brokers are retried for
// ever, on the backoff schedule.
func TestMetadataRetriesWithoutRebootstrap(t *testing.T) {
	r := metaRig(t, false)
	known := r.Meta.Addrs()
	sends := failRefreshes(t, r, 2*rebootstrapTrigger, func(req *reactor.Request) { r.Answer(req, nil, testrig.ErrTransport) })
	if max := r.Back.MaxAttemptsIn(2 * rebootstrapTrigger); len(sends) > max+1 {
		t.Fatalf("%d sends in %s, want at most the retry schedule's %d", len(sends), 2*rebootstrapTrigger, max+1)
	}
	for _, s := range sends {
		if !slices.Equal(s.addrs, known) {
			t.Fatalf("send at +%s to %v, want the known brokers %v (strategy none)", s.at, s.addrs, known)
		}
	}
	if r.Meta.Rebootstraps() != 0 {
		t.Fatal("rebootstrapped with metadata.recovery.strategy=none")
	}
}

// REBOOTSTRAP_REQUIRED (KIP-1102) rebootstraps at the next attempt, after
// the backoff, without waiting for the trigger.
func TestMetadataRebootstrapRequired(t *testing.T) {
	r := metaRig(t, true)
	var sends []metaSend
	sends = failRefreshes(t, r, r.Back.Max, func(req *reactor.Request) {
		resp := kmsg.NewPtrMetadataResponse()
		resp.ErrorCode = kerr.RebootstrapRequired.Code
		r.Answer(req, resp, nil)
	})
	if len(sends) < 2 || !slices.Equal(sends[1].addrs, bootstrap) || sends[1].at < r.Back.Delay(1) {
		t.Fatalf("sends %v: want the one after REBOOTSTRAP_REQUIRED to go to %v after the backoff %s", sends, bootstrap, r.Back.Delay(1))
	}
}
