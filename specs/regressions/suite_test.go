// Package regressions holds the kreactor Jira regressions as a Ginkgo suite. Run it with
// `go test ./specs/regressions` or `go tool ginkgo ./specs/regressions`; choose the target and
// subject with KREACTOR_TARGET (package harness/targets) and KREACTOR_SUBJECT (package harness/subjects).
package regressions

import (
	"testing"

	"github.com/kreactor/kreactor/harness/suite"
)

func TestRegressions(t *testing.T) { suite.Run(t, "kreactor Jira regressions") }

// target and subject are what every spec in the suite runs on and against.
var target, subject = suite.Selected()
