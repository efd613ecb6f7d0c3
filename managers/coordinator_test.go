package managers_test

import (
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/internal/testrig"
	"github.com/kreactor/kreactor/reactor"
)

// coordRig is a rig whose core holds only the coordinator and metadata
// (and the probe): discovery driven on its own.
func coordRig(t *testing.T) *testrig.Rig[struct{}] {
	r := testrig.New[struct{}](t, managers.KeyTypeGroup)
	r.Start(func(time.Time) struct{} { return struct{}{} })
	return r
}

// Every FindCoordinator error leaves the coordinator unknown and retries
// after the backoff; the ones the table raises to the application are kept
// as Failure (with a new sequence number) until the next answer.
func TestFindCoordinatorErrorsByClass(t *testing.T) {
	for _, c := range testrig.ErrorCases(t, kmsg.FindCoordinator, managers.ScopeResponse) {
		t.Run(c.Name(), func(t *testing.T) {
			r := coordRig(t)
			r.Do("coordinator moved", func(*reactor.Tx) { r.Coord.MarkUnknown(testrig.Node, errors.New("moved")) })
			r.Elapse(10 * r.Back.Max)
			r.Complete(r.Request(r.Coord), c, func(code int16) any {
				resp := kmsg.NewPtrFindCoordinatorResponse()
				k := kmsg.NewFindCoordinatorResponseCoordinator()
				k.Key, k.ErrorCode, k.NodeID = testrig.GroupID, code, -1
				resp.Coordinators = append(resp.Coordinators, k)
				return resp
			})
			if _, known := r.Coord.Known(); known {
				t.Fatal("coordinator known after a failed discovery")
			}
			failure, seq := r.Coord.Failure()
			raised := c.Row.Class == managers.ClassAuthorization || c.Row.Class == managers.ClassFailed
			if raised != (failure != nil) || (raised && (!errors.Is(failure, c.Err) || seq == 0)) {
				t.Fatalf("failure %v (seq %d) for class %s", failure, seq, c.Row.ClassName())
			}
			st := r.Step()
			if res := r.Result(st, r.Coord); res.Kind != reactor.KindRetryAt || !res.At.Equal(r.Now.Add(r.Back.Delay(1))) {
				t.Fatalf("after %v: %s, want RetryAt(+%s)", c.Err, testrig.Describe(res, r.Now), r.Back.Delay(1))
			}
			if !st.Decision.Wake.Equal(r.Now.Add(r.Back.Delay(1))) {
				t.Fatalf("decision wakes at +%s, want the discovery backoff +%s", st.Decision.Wake.Sub(r.Now), r.Back.Delay(1))
			}
			if !errors.Is(r.Coord.LastError(), c.Err) {
				t.Fatalf("LastError %v", r.Coord.LastError())
			}
			// The next answer, a success, clears the failure.
			r.Elapse(r.Back.Max)
			r.FindCoordinator(nil)
			if f, _ := r.Coord.Failure(); f != nil {
				t.Fatalf("failure %v kept after a successful discovery", f)
			}
		})
	}
}

// Discovery is idle while nothing needs the coordinator (KAFKA-18569), and
// an answer from a node that is no longer the coordinator changes nothing.
func TestCoordinatorIdleAndStaleMoves(t *testing.T) {
	r := coordRig(t)
	r.Do("stale answer", func(*reactor.Tx) { r.Coord.MarkUnknown(testrig.Node+1, errors.New("stale answer")) })
	if _, known := r.Coord.Known(); !known {
		t.Fatal("a stale node's error forgot the coordinator")
	}
	r.NeedsCoordinator = func(struct{}) bool { return false }
	r.Do("coordinator moved", func(*reactor.Tx) { r.Coord.MarkUnknown(testrig.Node, errors.New("moved")) })
	st := r.Step()
	if res := r.Result(st, r.Coord); res.Kind != reactor.KindIdle || len(st.Requests) != 0 {
		t.Fatalf("unneeded discovery: %s, %d requests", testrig.Describe(res, r.Now), len(st.Requests))
	}
	if at, ok := r.Coord.LocalTimer(); ok {
		t.Fatalf("unneeded discovery reports a timer at %s", at)
	}
}
