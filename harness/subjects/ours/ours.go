package ours

import (
	"context"

	"github.com/kreactor/kreactor/baseline"
	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/reactor"
)

// Reactor is the subject "reactor": the KIP-1371 consumers of package
// consumer (consumer.New, consumer.NewShare). It has probes and an engine
// the specs can build (EngineSubject).
type Reactor struct{}

// Name is "reactor".
func (Reactor) Name() string { return "reactor" }

// CPUSpecsBeside reports true: a spec that judges CPU only runs beside
// other specs on the reactor (suite.Alone). Its consumers run in the test
// process and have no CPU of their own, so such a spec's CPU figure of
// them is the process's, shown only (measure.JudgeCPU), and the loop it
// judges is idle by the property the spec checks.
func (Reactor) CPUSpecsBeside() bool { return true }

// New calls consumer.New. The consumer's recorded trace is one the
// protocol's model validates (TraceOf; harness/suite does so when the spec
// that built it ends).
func (Reactor) New(cfg consumer.Config) (harness.Consumer, error) {
	c, err := consumer.New(cfg)
	if err != nil {
		return nil, err
	}
	return &probedConsumer{Consumer: c, Diagnostics: c.Diagnostics(), validate: true}, nil
}

// NewShare calls consumer.NewShare; its trace is validated like New's.
func (Reactor) NewShare(cfg consumer.ShareConfig) (harness.ShareConsumer, error) {
	c, err := consumer.NewShare(cfg)
	if err != nil {
		return nil, err
	}
	return &probedShareConsumer{ShareConsumer: c, ShareDiagnostics: c.Diagnostics(), validate: true}, nil
}

// NewEngine builds a reactor.Loop; its trace is validated like New's.
func (Reactor) NewEngine(cfg reactor.Config[NoView]) (Engine, error) {
	l, err := reactor.New(cfg)
	if err != nil {
		return nil, err
	}
	return reactorEngine{l}, nil
}

// reactorEngine is the reactor's engine, marked for trace validation
// (TraceOf).
type reactorEngine struct{ *reactor.Loop[NoView] }

// Baseline is the subject "baseline": the same managers on the model of
// today's execution (package baseline). It is the negative control:
// regression specs are expected to fail on it. It has probes and an engine
// the specs can build.
type Baseline struct{}

// Name is "baseline".
func (Baseline) Name() string { return "baseline" }

// CPUSpecsBeside reports false, although the baseline's CPU figure is the
// test process's too: its specs that judge CPU are the busy loops it
// models, each holding both cores for seconds, and a control's failures
// should not depend on what runs beside them. Measured over 3 regression
// runs each way, its other specs' failed keys moved no more than from run
// to run; they run alone (suite.Alone) as a precaution, at about 46 s of
// the baseline's regression suite on 2 cores.
func (Baseline) CPUSpecsBeside() bool { return false }

// New calls baseline.New.
func (Baseline) New(cfg consumer.Config) (harness.Consumer, error) { return probed(baseline.New(cfg)) }

// NewShare calls baseline.NewShare.
func (Baseline) NewShare(cfg consumer.ShareConfig) (harness.ShareConsumer, error) {
	return probedShare(baseline.NewShare(cfg))
}

// NewEngine builds a baseline.Loop.
func (Baseline) NewEngine(cfg reactor.Config[NoView]) (Engine, error) {
	return baseline.NewLoop(baseline.Config[NoView]{Config: cfg})
}

// probed adds the probe (from Diagnostics) to one of our regular consumers.
func probed[C interface {
	harness.Consumer
	Diagnostics() consumer.Diagnostics
}](c C, err error) (harness.Consumer, error) {
	if err != nil {
		return nil, err
	}
	return &probedConsumer{Consumer: c, Diagnostics: c.Diagnostics()}, nil
}

// probedShare adds the probe to one of our share consumers.
func probedShare[C interface {
	harness.ShareConsumer
	Diagnostics() consumer.ShareDiagnostics
}](c C, err error) (harness.ShareConsumer, error) {
	if err != nil {
		return nil, err
	}
	return &probedShareConsumer{ShareConsumer: c, ShareDiagnostics: c.Diagnostics()}, nil
}

// probedConsumer is one of our regular consumers with its probe (its
// Diagnostics). validate marks the reactor's (TraceOf).
type probedConsumer struct {
	harness.Consumer
	consumer.Diagnostics
	validate bool
}

// probedShareConsumer is one of our share consumers with its probe.
type probedShareConsumer struct {
	harness.ShareConsumer
	consumer.ShareDiagnostics
	validate bool
}

// Underlying returns the consumer itself, for callers that look for an
// ability beyond the application API (a scenario's seek). It is not Unwrap:
// the probe stays visible to harness.ProbeOf.
func (p *probedConsumer) Underlying() any { return p.Consumer }

// Underlying returns the share consumer itself.
func (p *probedShareConsumer) Underlying() any { return p.ShareConsumer }

// NoView is the view of the synthetic managers engine specs run on a
// subject's engine.
type NoView struct{}

// Engine is a subject's execution engine, as the engine specs drive it
// over synthetic managers: reactor.Loop or the baseline's loop.
type Engine interface {
	Start()
	Stop()
	Submit(ctx context.Context, name string, apply func(*reactor.Tx)) error
	Current() *reactor.Publication
	Stats() reactor.Stats
	Trace() []*reactor.Decision
}

// EngineSubject is implemented by subjects whose engine the specs can build
// over synthetic managers (ours). For other subjects the engine specs are
// n/a (suite.EngineOf).
type EngineSubject interface {
	NewEngine(cfg reactor.Config[NoView]) (Engine, error)
}
