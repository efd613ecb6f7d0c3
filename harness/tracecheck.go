package harness

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/onsi/ginkgo/v2"

	"github.com/kreactor/kreactor/model"
	"github.com/kreactor/kreactor/reactor"
)

// TraceTallyEnv names a file to which every trace validation appends one
// line (suite-independent, so a conformance run's totals can be summed):
// "trace-validation engines=1 events=N decisions=M violations=V spec=...".
const TraceTallyEnv = "KREACTOR_TRACE_TALLY"

// traced is what trace validation reads of a reactor consumer or engine.
type traced interface {
	Events() reactor.EventLog
	Trace() []*reactor.Decision
}

// TraceTotals are the trace validations of this process so far.
type TraceTotals struct {
	Engines, Events, Decisions, Violations int
}

var (
	traceMu     sync.Mutex
	traceTotals TraceTotals
)

// TraceValidation returns the totals of the trace validations this process
// ran (each reactor consumer and engine a spec built, at the spec's end).
func TraceValidation() TraceTotals {
	traceMu.Lock()
	defer traceMu.Unlock()
	return traceTotals
}

// ValidateTrace replays t's recorded events and decisions against the
// protocol's model (package model: CheckEvents, CheckDecisions) and returns
// the first violation, counting the steps checked in TraceValidation.
func ValidateTrace(t traced) error {
	log, trace := t.Events(), t.Trace()
	ne, errE := model.CheckEvents(log)
	nd, errD := model.CheckDecisions(trace)
	err := errors.Join(errE, errD)
	traceMu.Lock()
	traceTotals.Engines++
	traceTotals.Events += ne
	traceTotals.Decisions += nd
	if err != nil {
		traceTotals.Violations++
	}
	traceMu.Unlock()
	if path := os.Getenv(TraceTallyEnv); path != "" {
		v := 0
		if err != nil {
			v = 1
		}
		line := fmt.Sprintf("trace-validation engines=1 events=%d decisions=%d violations=%d spec=%q\n", ne, nd, v, ginkgo.CurrentSpecReport().FullText())
		if f, ferr := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); ferr == nil {
			_, _ = f.WriteString(line)
			_ = f.Close()
		}
	}
	return err
}

// validateAtSpecEnd registers, when a spec is running, a cleanup that
// validates t's trace once the spec's own cleanups ran (they are registered
// later, so they run first: the consumer is closed by then) and fails the
// spec on a violation. Outside a spec (package tests, explore) it does
// nothing: those callers validate themselves.
func validateAtSpecEnd(t traced) {
	if ginkgo.CurrentSpecReport().LeafNodeText == "" {
		return
	}
	ginkgo.DeferCleanup(func() {
		if err := ValidateTrace(t); err != nil {
			ginkgo.Fail(fmt.Sprintf("trace validation (model/reactor.pml's rules) on the reactor's recorded trace: %v", err))
		}
	})
}
