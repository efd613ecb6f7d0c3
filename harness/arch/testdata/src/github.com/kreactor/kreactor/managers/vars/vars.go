// Package vars keeps and breaks PackageVarRule.
package vars

import (
	"errors"
	"fmt"
	"sync"
)

var ErrGood = errors.New("good sentinel")
var errWrapped = fmt.Errorf("wrapped: %w", ErrGood)
var ErrReassigned = errors.New("reassigned")
var names = [...]string{"a", "b"}
var lookup = map[string]int{"a": 1}
var handedOut = []string{"x"}
var counter int
var mu sync.Mutex // want `package var mu of type sync.Mutex is neither an error sentinel nor a table of plain values`
var _ = names

func Use() (string, int, error, error) {
	ErrReassigned = errors.New("again") // want `package var ErrReassigned \(error sentinel\) is written after its declaration`
	counter++                           // want `package var counter \(plain value or table\) is written after its declaration`
	mu.Lock()
	mu.Unlock()
	return names[1] + fmt.Sprint(len(names)), lookup["a"], errWrapped, nil
}

func Leak() []string { return handedOut } // want `package var handedOut \(a \[\]string table\) escapes: an alias could write it`
