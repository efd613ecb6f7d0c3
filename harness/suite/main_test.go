package suite

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks for leaked goroutines; Ginkgo's interrupt handler (started
// by TestTimelineSuite's RunSpecs) lives for the process by design.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/onsi/ginkgo/v2/internal/interrupt_handler.(*InterruptHandler).registerForInterrupts.func2"))
}
