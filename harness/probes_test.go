package harness

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kreactor/kreactor/consumer"
)

// blackBox is a subject's consumer with the application API only, as the
// Java driver or kgo give it.
type blackBox struct{ Consumer }

// Our subjects' consumers carry a probe (their Diagnostics); a black-box
// consumer has none, and its diagnosis says so instead of being empty.
func TestProbeOfOursAndBlackBox(t *testing.T) {
	cfg := consumer.DefaultConfig()
	cfg.BootstrapServers = []string{"127.0.0.1:1"} // nothing is sent before Subscribe
	for _, s := range []Subject{Reactor{}, Baseline{}} {
		c, err := s.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		p, ok := ProbeOf(Track(c))
		if !ok {
			t.Fatalf("subject %s: no probe through Tracked", s.Name())
		}
		for deadline := time.Now().Add(WaitTimeout); p.Snapshot() == nil && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond) // the first step's publication
		}
		if p.Decision() == nil || p.Snapshot() == nil || !strings.Contains(Diagnose(c), "latest decision") {
			t.Fatalf("subject %s: probe without a decision or snapshot; diagnosis %q", s.Name(), Diagnose(c))
		}
		if _, ok := s.(EngineSubject); !ok {
			t.Fatalf("subject %s: no engine the specs can build", s.Name())
		}
		if _, ok := ProbeOf(blackBox{c}); ok {
			t.Fatal("a black-box consumer has a probe")
		}
		if d := Diagnose(blackBox{c}); !strings.Contains(d, NotApplicableText) {
			t.Fatalf("black-box diagnosis %q, want it to say %q", d, NotApplicableText)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		_ = c.Close(ctx)
		cancel()
	}
}
