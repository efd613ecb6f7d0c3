package reactor_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/kreactor/kreactor/reactor"
)

// discovery is a toy manager: it sends one lookup, and after a failed one
// backs off 100 ms before the next.
type discovery struct {
	inFlight bool
	next     time.Time // backoff until
	found    bool
	done     func() // the application waiting for the lookup
}

func (d *discovery) Name() string { return "discovery" }

func (d *discovery) Poll(tx *reactor.Tx, _ struct{}) reactor.Result {
	switch {
	case d.found:
		return reactor.Idle("found")
	case d.inFlight:
		return reactor.Await(reactor.InputResponse, "lookup in flight")
	case tx.Now.Before(d.next):
		return reactor.RetryAt(d.next, "backoff")
	}
	d.inFlight = true
	return reactor.Ready("lookup", &reactor.Request{Payload: "lookup", OnComplete: func(tx *reactor.Tx, _ any, err error) {
		d.inFlight = false
		if err != nil {
			d.next = tx.Now.Add(100 * time.Millisecond)
			return
		}
		d.found = true
		tx.Effect(d.done) // runs after the decision that includes it is published
	}})
}

// A Core driven by hand with a fixed clock, as a unit test of a request
// manager does: step, see the requests, apply their completions, step again
// later, read each manager's result, run the effects.
func ExampleCore() {
	d := &discovery{done: func() { fmt.Println("effect: lookup done") }}
	core, err := reactor.NewCore(reactor.CoreConfig[struct{}]{
		Managers: []reactor.Manager[struct{}]{d},
		View:     func(time.Time) struct{} { return struct{}{} },
	})
	if err != nil {
		panic(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	show := func(st reactor.Step) {
		r, _ := st.Decision.Result("discovery")
		wake := "none (block until an observation)"
		if !st.Decision.Wake.IsZero() {
			wake = "+" + st.Decision.Wake.Sub(st.Decision.At).String()
		}
		fmt.Printf("step %d at +%s: %s, sent %d, wake %s\n", st.Decision.Step, st.Decision.At.Sub(t0), r.Kind, len(st.Requests), wake)
	}

	st := core.Step(t0) // polls, Ready, polls again: awaits the response
	show(st)
	req := st.Requests[0]
	st.RunEffects() // none yet
	core.Advance()

	core.Apply(t0.Add(5*time.Millisecond), reactor.Completion(req, nil, errors.New("connection refused")))
	st = core.Step(t0.Add(5 * time.Millisecond))
	show(st)
	core.Advance()

	st = core.Step(t0.Add(105 * time.Millisecond)) // the backoff passed
	show(st)
	req = st.Requests[0]
	core.Advance()

	core.Apply(t0.Add(110*time.Millisecond), reactor.Completion(req, "coordinator 1", nil))
	st = core.Step(t0.Add(110 * time.Millisecond))
	show(st)
	st.RunEffects()
	core.Advance()
	// Output:
	// step 1 at +0s: await, sent 1, wake none (block until an observation)
	// step 2 at +5ms: retry-at, sent 0, wake +100ms
	// step 3 at +105ms: await, sent 1, wake none (block until an observation)
	// step 4 at +110ms: idle, sent 0, wake none (block until an observation)
	// effect: lookup done
}
