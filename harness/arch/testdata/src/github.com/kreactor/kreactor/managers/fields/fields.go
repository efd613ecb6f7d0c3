// Package fields has a manager that exports a field and one that does not.
package fields

import "github.com/kreactor/kreactor/reactor"

type Quiet struct{ n int }

func (*Quiet) Name() string { return "quiet" }

func (*Quiet) Poll(tx *reactor.Tx, v struct{}) reactor.Result { return reactor.Result{} }

type Loud struct {
	Pending int // want `manager fields.Loud has exported field Pending`
	n       int
}

func (*Loud) Name() string { return "loud" }

func (*Loud) Poll(tx *reactor.Tx, v struct{}) reactor.Result { return reactor.Result{} }

// notAManager has exported fields but no manager's shape.
type notAManager struct{ Exported int }
