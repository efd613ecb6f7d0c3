package ours

import (
	"errors"
	"fmt"
	"os"

	"github.com/kreactor/kreactor/model"
	"github.com/kreactor/kreactor/reactor"
)

// TraceTallyEnv names a file to which every trace validation appends one
// line (suite-independent, so a conformance run's totals can be summed):
// "trace-validation engines=1 events=N decisions=M violations=V spec=...".
const TraceTallyEnv = "KREACTOR_TRACE_TALLY"

// Traced is what trace validation reads of a reactor consumer or engine:
// its recorded events and its retained decisions.
type Traced interface {
	Events() reactor.EventLog
	Trace() []*reactor.Decision
}

// TraceOf returns the trace of v, a consumer, share consumer or engine the
// reactor subject built (Reactor), which the protocol's model must accept
// (ValidateTrace); false for anything else (the baseline models today's
// execution, not the protocol).
func TraceOf(v any) (Traced, bool) {
	switch t := v.(type) {
	case *probedConsumer:
		return t.Diagnostics, t.validate
	case *probedShareConsumer:
		return t.ShareDiagnostics, t.validate
	case reactorEngine:
		return t.Loop, true
	}
	return nil, false
}

// ValidateTrace replays t's recorded events and decisions against the
// protocol's model (package model: CheckEvents, CheckDecisions) and returns
// the first violation. When $KREACTOR_TRACE_TALLY names a file it appends
// the counts there, with spec (the running spec's full text, "" outside a
// spec).
func ValidateTrace(t Traced, spec string) error {
	log, trace := t.Events(), t.Trace()
	ne, errE := model.CheckEvents(log)
	nd, errD := model.CheckDecisions(trace)
	err := errors.Join(errE, errD)
	if path := os.Getenv(TraceTallyEnv); path != "" {
		v := 0
		if err != nil {
			v = 1
		}
		line := fmt.Sprintf("trace-validation engines=1 events=%d decisions=%d violations=%d spec=%q\n", ne, nd, v, spec)
		if f, ferr := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); ferr == nil {
			_, _ = f.WriteString(line)
			_ = f.Close()
		}
	}
	return err
}
