// Package group has a manager the loop can run and one it cannot.
package group

import "github.com/kreactor/kreactor/reactor"

type View struct{}

type Fetch struct{ parts map[string]int64 }

func (f *Fetch) Name() string { return "fetch" }

func (f *Fetch) Poll(tx *reactor.Tx, v View) reactor.Result { return reactor.Result{} }

// Odd has the shape of a manager but a Poll the loop cannot call.
type Odd struct{} // want `group.Odd: Poll takes 1 parameters, want \(tx, view\)`

func (*Odd) Name() string { return "odd" }

func (*Odd) Poll(tx *reactor.Tx) reactor.Result { return reactor.Result{} }
