// Package e2e holds the kreactor end-to-end scenarios as a Ginkgo suite. Run it with
// `go test ./specs/e2e` or `go tool ginkgo ./specs/e2e`; choose the target and
// subject with KREACTOR_TARGET (package harness/targets) and KREACTOR_SUBJECT (package harness/subjects).
package e2e

import (
	"testing"

	"github.com/kreactor/kreactor/harness/suite"
)

func TestE2E(t *testing.T) { suite.Run(t, "kreactor end-to-end scenarios") }

// target and subject are what every spec in the suite runs on and against.
var target, subject = suite.Selected()
