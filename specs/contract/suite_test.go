// Package contract holds the Java consumer contract the reference consumers
// keep (catalogue items CONTRACT-*) as a Ginkgo suite: what only a
// Go spec can express (committed offsets after Close, Close with a zero
// timeout, max.poll.interval.ms, share acknowledgements at a close deadline
// under controlled timing); the contract cases a scenario file can express
// are in specs/scenarios (contract-*.yaml). Run it with
// `go test ./specs/contract` or `go tool ginkgo ./specs/contract`; choose
// the target and subject with KREACTOR_TARGET (package harness/targets)
// and KREACTOR_SUBJECT (package harness/subjects).
package contract

import (
	"testing"

	"github.com/kreactor/kreactor/harness/suite"
)

func TestContract(t *testing.T) { suite.Run(t, "kreactor Java consumer contract") }

// target and subject are what every spec in the suite runs on and against.
var target, subject = suite.Selected()
