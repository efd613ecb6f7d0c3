// Package consumer builds its regular consumer on one reactor.New (through
// a helper) and its share consumer on two.
package consumer

import "github.com/kreactor/kreactor/reactor"

type view struct{}

func engine() { _, _ = reactor.New(reactor.Config[view]{}) }

func New() { engine() }

func NewShare() { // want `consumer.NewShare calls reactor.New 2 times, want 1`
	engine()
	_, _ = reactor.New[view](reactor.Config[view]{})
}
