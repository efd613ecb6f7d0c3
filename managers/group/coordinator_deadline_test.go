package group_test

// Coordinator discovery has no deadline of its own: kafka-clients 4.4.0's
// CoordinatorRequestManager sends FindCoordinator again after the retry
// backoff for as long as a request manager needs the coordinator. What
// ends it is the deadline of the work that needs it: here a commit
// (CommitSync's deadline, default.api.timeout.ms for CommitAsync), which
// fails with ErrCommitTimeout at its deadline, after which nothing needs
// the coordinator and discovery stops (KAFKA-18569's rule).

import (
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers/group"
	"github.com/kreactor/kreactor/managers/internal/testrig"
	"github.com/kreactor/kreactor/reactor"
)

// A commit waits for a coordinator whose discovery keeps answering
// COORDINATOR_NOT_AVAILABLE: FindCoordinator goes on the growing backoff
// schedule while the commit needs it, the commit fails at its deadline (5 s)
// with ErrCommitTimeout, and no FindCoordinator goes after that.
func TestCoordinatorDiscoveryEndsWithWhatNeedsIt(t *testing.T) {
	r, cm := commitRig(t)
	r.NeedsCoordinator = func(group.View) bool { return cm.NeedsCoordinator() }
	r.Do("coordinator moved", func(*reactor.Tx) { r.Coord.MarkUnknown(coordNode, kerr.NotCoordinator) })
	start := r.Now
	res := enqueueCommit(r, cm)
	deadline := start.Add(5 * time.Second)
	var finds []time.Duration
	for r.Now.Sub(start) <= 3*(deadline.Sub(start)) {
		st := r.Step()
		for _, req := range st.Requests {
			switch api := testrig.API(req); api {
			case kmsg.FindCoordinator:
				finds = append(finds, r.Now.Sub(start))
				r.Answer(req, testrig.FindAnswer(kerr.CoordinatorNotAvailable), nil)
			case kmsg.Metadata:
				r.Answer(req, testrig.MetadataAnswer(), nil)
			default:
				t.Fatalf("sent %s with the coordinator unknown", kmsg.NameForKey(int16(api)))
			}
		}
		if len(st.Requests) > 0 {
			continue
		}
		if st.Decision.Wake.IsZero() {
			break // waits for nothing: discovery stopped
		}
		r.Now = st.Decision.Wake
	}
	if res.done != 1 || !errors.Is(res.err, group.ErrCommitTimeout) {
		t.Fatalf("commit done %d with %v, want it failed once with ErrCommitTimeout", res.done, res.err)
	}
	if len(finds) < 3 {
		t.Fatalf("FindCoordinator at %v: want the backoff schedule while the commit waits", finds)
	}
	for i, at := range finds {
		if at > deadline.Sub(start) {
			t.Fatalf("FindCoordinator at +%s, after the commit's deadline +%s: nothing needs the coordinator then (sends %v)", at, deadline.Sub(start), finds)
		}
		if i > 0 && at-finds[i-1] < r.Back.Delay(min(i, 10)) {
			t.Fatalf("FindCoordinator at %v: %s between sends %d and %d, under the backoff %s", finds, at-finds[i-1], i-1, i, r.Back.Delay(i))
		}
	}
	if max := r.Back.MaxAttemptsIn(deadline.Sub(start)); len(finds) > max+1 {
		t.Fatalf("%d FindCoordinator in %s, want at most the backoff schedule's %d (+1)", len(finds), deadline.Sub(start), max)
	}
	st := r.Step()
	if res := r.Result(st, r.Coord); res.Kind != reactor.KindIdle {
		t.Fatalf("discovery %s after the commit ended, want idle", testrig.Describe(res, r.Now))
	}
	if _, known := r.Coord.Known(); known {
		t.Fatal("coordinator known")
	}
}
