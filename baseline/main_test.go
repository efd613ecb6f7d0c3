package baseline

import (
	"testing"

	"go.uber.org/goleak"
)

// Every test of the package ends with no goroutine of its own running.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
