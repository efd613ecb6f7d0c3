package managers_test

import (
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/internal/testrig"
	"github.com/kreactor/kreactor/reactor"
)

// Every FindCoordinator error leaves the coordinator unknown and retries
// after the backoff; the ones the table raises to the application are kept
// as Failure (with a new sequence number) until the next answer.
func TestFindCoordinatorErrorsByClass(t *testing.T) {
	for _, c := range testrig.ErrorCases(t, kmsg.FindCoordinator, managers.ScopeResponse) {
		t.Run(c.Name(), func(t *testing.T) {
			r := testrig.New(t, managers.KeyTypeGroup)
			r.Coord.MarkUnknown(testrig.Node, errors.New("moved"))
			r.Advance(10 * r.Back.Max)
			req := r.Only(r.Coord.Poll(r.Tx(), true, r.Meta.Addrs()))
			r.Complete(req, c, func(code int16) any {
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
			if res := r.Coord.Poll(r.Tx(), true, r.Meta.Addrs()); res.Kind != reactor.KindRetryAt || res.At != r.Now.Add(r.Back.Delay(1)) {
				t.Fatalf("after %v: %s, want RetryAt(+%s)", c.Err, res, r.Back.Delay(1))
			}
			if !errors.Is(r.Coord.LastError(), c.Err) {
				t.Fatalf("LastError %v", r.Coord.LastError())
			}
			// The next answer, a success, clears the failure.
			r.Advance(r.Back.Max)
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
	r := testrig.New(t, managers.KeyTypeGroup)
	r.Coord.MarkUnknown(testrig.Node+1, errors.New("stale answer"))
	if _, known := r.Coord.Known(); !known {
		t.Fatal("a stale node's error forgot the coordinator")
	}
	r.Coord.MarkUnknown(testrig.Node, errors.New("moved"))
	if res := r.Coord.Poll(r.Tx(), false, r.Meta.Addrs()); res.Kind != reactor.KindIdle {
		t.Fatalf("unneeded discovery: %s", res)
	}
	if at, ok := r.Coord.LocalTimer(); ok {
		t.Fatalf("unneeded discovery reports a timer at %s", at)
	}
}
