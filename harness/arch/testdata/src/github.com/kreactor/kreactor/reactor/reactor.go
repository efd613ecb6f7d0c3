// Package reactor is a stub of the execution mechanics with what the rules
// read, and the API shapes NoRegistry judges.
package reactor

import "context"

type Tx struct{ effects []func() }

type Result struct{ Kind int }

type Manager[V any] interface {
	Name() string
	Poll(tx *Tx, view V) Result
}

type Config[V any] struct {
	Managers []Manager[V]
	View     func() V
}

type Loop[V any] struct{ cfg Config[V] }

func New[V any](cfg Config[V]) (*Loop[V], error) { return &Loop[V]{cfg: cfg}, nil }

// Submit takes code but is one-shot (reviewed as Engine.Submit, not
// Loop.Submit: so it is a finding here).
func (l *Loop[V]) Submit(ctx context.Context, apply func(*Tx)) error { return nil } // want `Loop.Submit\(ctx context.Context, apply func\(\*.*Tx\)\) error takes code and is not on the reviewed list`

// Effect is on the reviewed list.
func (t *Tx) Effect(f func()) { t.effects = append(t.effects, f) }

func (t *Tx) OnDone(f func()) {} // want `Tx.OnDone\(f func\(\)\) takes code and is not on the reviewed list` `Tx.OnDone is named like a registration`

type Bus struct{} // want `Bus is named like a registration`

type Request struct {
	OnComplete func()   // reviewed
	Hooks      []func() // want `field Request.Hooks \(\[\]func\(\)\) holds code and is not on the reviewed list`
	Bytes      []byte
}
