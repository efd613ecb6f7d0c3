package consume

import (
	"context"
	"testing"

	"github.com/kreactor/kreactor/harness"
)

func TestGoroutineIDTellsGoroutinesApart(t *testing.T) {
	here := GoroutineID()
	if here == 0 || GoroutineID() != here {
		t.Fatalf("GoroutineID() = %d, not stable on one goroutine", here)
	}
	other := make(chan int64)
	go func() { other <- GoroutineID() }()
	if o := <-other; o == 0 || o == here {
		t.Fatalf("another goroutine's id %d, this one's %d", o, here)
	}
}

// pollRunner is a Consumer whose Poll runs run (the rest is unused).
type pollRunner struct {
	harness.Consumer
	run func()
}

func (p pollRunner) Poll(context.Context) ([]harness.Record, error) { p.run(); return nil, nil }

// InCallHere is true for a callback run on the goroutine of the Poll in
// progress, false for one run on another goroutine during that Poll (where
// InCall is true), and false outside a call.
func TestTrackedInCallHere(t *testing.T) {
	var tr *Tracked
	var here, inCall, elsewhere bool
	tr = Track(pollRunner{run: func() {
		here = tr.InCallHere()
		done := make(chan struct{})
		go func() { elsewhere, inCall = tr.InCallHere(), tr.InCall(); close(done) }()
		<-done
	}})
	if _, err := tr.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !here || elsewhere || !inCall || tr.InCallHere() {
		t.Fatalf("on the caller %v, on another goroutine %v (InCall %v), after the call %v", here, elsewhere, inCall, tr.InCallHere())
	}
}
