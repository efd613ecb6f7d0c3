package targets

import (
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestSelected(t *testing.T) {
	t.Setenv(Env, "")
	if tg, err := Selected(); err != nil || tg.Name() != "kfake" {
		t.Fatalf("default target = %v, %v, want kfake", tg, err)
	}
	t.Setenv(Env, "kafka")
	if tg, err := Selected(); err != nil || tg.Name() != "kafka" {
		t.Fatalf("KREACTOR_TARGET=kafka: %v, %v", tg, err)
	}
	t.Setenv(Env, "nope")
	if _, err := Selected(); err == nil || !strings.Contains(err.Error(), `KREACTOR_TARGET="nope"`) || !strings.Contains(err.Error(), "kafka, kfake") {
		t.Fatalf("unknown target error = %v, want one naming the value and listing kafka, kfake", err)
	}
	for _, name := range Names() {
		if tg, ok := Lookup(name); !ok || tg.Name() != name {
			t.Errorf("Lookup(%q) = %v, %v", name, tg, ok)
		}
	}
	if err := CloseShared(); err != nil {
		t.Fatalf("CloseShared with nothing pooled: %v", err)
	}
}
