package harness

import (
	"github.com/kreactor/kreactor/baseline"
	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/reactor"
)

// Reactor is the subject "reactor": the KIP-1371 consumers of package
// consumer (consumer.New, consumer.NewShare). It has probes and an engine
// the specs can build (EngineSubject).
type Reactor struct{}

// Name is "reactor".
func (Reactor) Name() string { return "reactor" }

// New calls consumer.New. In a spec, the consumer's recorded trace is
// validated against the protocol's model when the spec ends
// (ValidateTrace).
func (Reactor) New(cfg consumer.Config) (Consumer, error) {
	c, err := consumer.New(cfg)
	if err == nil {
		validateAtSpecEnd(c.Diagnostics())
	}
	return probed(c, err)
}

// NewShare calls consumer.NewShare; its trace is validated like New's.
func (Reactor) NewShare(cfg consumer.ShareConfig) (ShareConsumer, error) {
	c, err := consumer.NewShare(cfg)
	if err == nil {
		validateAtSpecEnd(c.Diagnostics())
	}
	return probedShare(c, err)
}

// NewEngine builds a reactor.Loop; its trace is validated like New's.
func (Reactor) NewEngine(cfg reactor.Config[NoView]) (Engine, error) {
	l, err := reactor.New(cfg)
	if err != nil {
		return nil, err
	}
	validateAtSpecEnd(l)
	return l, nil
}

// Baseline is the subject "baseline": the same managers on the model of
// today's execution (package baseline). It is the negative control:
// regression specs are expected to fail on it. It has probes and an engine
// the specs can build.
type Baseline struct{}

// Name is "baseline".
func (Baseline) Name() string { return "baseline" }

// New calls baseline.New.
func (Baseline) New(cfg consumer.Config) (Consumer, error) { return probed(baseline.New(cfg)) }

// NewShare calls baseline.NewShare.
func (Baseline) NewShare(cfg consumer.ShareConfig) (ShareConsumer, error) {
	return probedShare(baseline.NewShare(cfg))
}

// NewEngine builds a baseline.Loop.
func (Baseline) NewEngine(cfg reactor.Config[NoView]) (Engine, error) {
	return baseline.NewLoop(baseline.Config[NoView]{Config: cfg})
}

// probed adds the probe (from Diagnostics) to one of our regular consumers.
func probed[C interface {
	Consumer
	Diagnostics() consumer.Diagnostics
}](c C, err error) (Consumer, error) {
	if err != nil {
		return nil, err
	}
	return &probedConsumer{c, c.Diagnostics()}, nil
}

// probedShare adds the probe to one of our share consumers.
func probedShare[C interface {
	ShareConsumer
	Diagnostics() consumer.ShareDiagnostics
}](c C, err error) (ShareConsumer, error) {
	if err != nil {
		return nil, err
	}
	return &probedShareConsumer{c, c.Diagnostics()}, nil
}
