package targets

import (
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks for leaked goroutines; Ginkgo's interrupt handler (started by
// TestTimelineSuite's RunSpecs) lives for the process by design.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/onsi/ginkgo/v2/internal/interrupt_handler.(*InterruptHandler).registerForInterrupts.func2"))
}

func TestSelected(t *testing.T) {
	t.Setenv(Env, "")
	if tg := MustSelect(); tg.Name() != "kfake" {
		t.Fatalf("default target = %s, want kfake", tg.Name())
	}
	t.Setenv(Env, "kafka")
	if tg, err := Selected(); err != nil || tg.Name() != "kafka" {
		t.Fatalf("KREACTOR_TARGET=kafka: %v, %v", tg, err)
	}
	t.Setenv(Env, "nope")
	if _, err := Selected(); err == nil || !strings.Contains(err.Error(), `KREACTOR_TARGET="nope"`) || !strings.Contains(err.Error(), "kafka, kfake") {
		t.Fatalf("unknown target error = %v, want one naming the value and listing kafka, kfake", err)
	}
	for name, tg := range ByName {
		if tg.Name() != name {
			t.Errorf("ByName[%q].Name() = %q", name, tg.Name())
		}
	}
	if err := CloseShared(); err != nil {
		t.Fatalf("CloseShared with nothing pooled: %v", err)
	}
}
