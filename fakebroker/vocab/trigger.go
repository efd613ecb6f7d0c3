package vocab

import (
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Trigger says which of the requests a selector picks a fault acts on. The
// zero Trigger acts on every one (always).
type Trigger struct {
	// First, if > 0, acts on the first First selected requests only (a
	// one-shot is First 1); later ones pass.
	First int
	// Nth, if > 0, acts on the Nth selected request only (1 is the first).
	Nth int
	// Probability, if > 0, acts on each selected request (that First and
	// Nth leave) with this probability, drawn from a PCG stream seeded
	// with Seed, so a run with the same requests in the same order
	// faults the same ones.
	Probability float64
	Seed        uint64
}

// Validate reports a Trigger that cannot be applied, naming the argument.
func (t Trigger) Validate() error {
	switch {
	case t.First < 0:
		return fmt.Errorf("first = %d: must be >= 1", t.First)
	case t.Nth < 0:
		return fmt.Errorf("nth = %d: must be >= 1", t.Nth)
	case t.First > 0 && t.Nth > 0:
		return fmt.Errorf("first = %d and nth = %d: give one", t.First, t.Nth)
	case t.Probability < 0 || t.Probability > 1 || t.Probability != t.Probability:
		return fmt.Errorf("probability = %v: must be in [0, 1]", t.Probability)
	}
	return nil
}

// Always reports whether t acts on every selected request.
func (t Trigger) Always() bool { return t.First == 0 && t.Nth == 0 && t.Probability == 0 }

// Wrap returns a selector that holds for the requests sel holds for (nil:
// every request) that t acts on. The count runs over sel's requests, in
// the order the broker asks; it is safe for concurrent use. Wrap of an
// Always trigger returns sel itself.
func (t Trigger) Wrap(sel func(req kmsg.Request) bool) func(req kmsg.Request) bool {
	if t.Always() {
		return sel
	}
	var mu sync.Mutex
	var n int
	rng := rand.New(rand.NewPCG(t.Seed, t.Seed^0x9e3779b97f4a7c15))
	return func(req kmsg.Request) bool {
		if sel != nil && !sel(req) {
			return false
		}
		mu.Lock()
		defer mu.Unlock()
		n++
		switch {
		case t.First > 0 && n > t.First:
			return false
		case t.Nth > 0 && n != t.Nth:
			return false
		}
		return t.Probability == 0 || rng.Float64() < t.Probability
	}
}
