package suite

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/kreactor/kreactor/internal/machinelease"
)

// TestHoldMachine drives the hooks Run installs with the reports Ginkgo
// passes them and checks, from another holder's side, what they hold: a
// parallel spec shares the machine for its own duration, a serial block
// holds it exclusively from its first spec to the next parallel spec, a
// skipped spec takes nothing.
func TestHoldMachine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lease")
	t.Setenv(machinelease.EnvPath, path)
	t.Cleanup(releaseMachine)
	can := func(exclusive bool) bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*machinelease.PollInterval)
		defer cancel()
		l, err := machinelease.Acquire(ctx, path, exclusive)
		if err != nil {
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatal(err)
			}
			return false
		}
		_ = l.Release()
		return true
	}
	check := func(step string, shared, exclusive bool) {
		t.Helper()
		if s, x := can(false), can(true); s != shared || x != exclusive {
			t.Fatalf("%s: another holder gets shared %v, exclusive %v; want %v, %v", step, s, x, shared, exclusive)
		}
	}
	parallel, serial := types.SpecReport{}, types.SpecReport{IsSerial: true}

	holdMachine(parallel)
	check("during a parallel spec", true, false)
	afterSpec(parallel)
	check("after it", true, true)

	holdMachine(serial)
	check("during a serial spec", false, false)
	afterSpec(serial)
	check("between two serial specs", false, false)
	holdMachine(serial)
	check("during the next serial spec", false, false)
	afterSpec(serial)

	holdMachine(parallel)
	check("a parallel spec after the serial block", true, false)
	afterSpec(parallel)
	check("after it", true, true)

	holdMachine(types.SpecReport{State: types.SpecStateSkipped, IsSerial: true})
	check("a skipped serial spec", true, true)

	holdMachine(serial)
	releaseMachine() // AfterSuite
	check("after the suite", true, true)
}
