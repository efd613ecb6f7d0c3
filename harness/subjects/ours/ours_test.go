package ours

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
)

// blackBox is a subject's consumer with the application API only, as the
// Java driver or kgo give it.
type blackBox struct{ harness.Consumer }

// wrapped is a helper's wrapper (harness.UnwrapConsumer), as consume.Tracked is.
type wrapped struct{ harness.Consumer }

func (w wrapped) Unwrap() harness.Consumer { return w.Consumer }

// Our subjects' consumers carry a probe (their Diagnostics); a black-box
// consumer has none, and its diagnosis says so instead of being empty.
func TestProbeOfOursAndBlackBox(t *testing.T) {
	cfg := consumer.DefaultConfig()
	cfg.BootstrapServers = []string{"127.0.0.1:1"} // nothing is sent before Subscribe
	for _, s := range []harness.Subject{Reactor{}, Baseline{}} {
		c, err := s.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		p, ok := harness.ProbeOf(wrapped{c})
		if !ok {
			t.Fatalf("subject %s: no probe through a wrapper", s.Name())
		}
		for deadline := time.Now().Add(harness.WaitTimeout); p.Snapshot() == nil && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond) // the first step's publication
		}
		if p.Decision() == nil || p.Snapshot() == nil || !strings.Contains(harness.Diagnose(c), "latest decision") {
			t.Fatalf("subject %s: probe without a decision or snapshot; diagnosis %q", s.Name(), harness.Diagnose(c))
		}
		if _, ok := s.(EngineSubject); !ok {
			t.Fatalf("subject %s: no engine the specs can build", s.Name())
		}
		if _, ok := harness.ProbeOf(blackBox{c}); ok {
			t.Fatal("a black-box consumer has a probe")
		}
		if d := harness.Diagnose(blackBox{c}); !strings.Contains(d, harness.NotApplicableText) {
			t.Fatalf("black-box diagnosis %q, want it to say %q", d, harness.NotApplicableText)
		}
		if _, ok := TraceOf(c); ok != (s.Name() == "reactor") {
			t.Fatalf("subject %s: TraceOf says %v: only the reactor's trace is the protocol's", s.Name(), ok)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		_ = c.Close(ctx)
		cancel()
	}
}
