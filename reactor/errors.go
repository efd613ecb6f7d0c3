package reactor

import (
	"errors"
	"fmt"
)

// ErrStopped is returned by Submit and WaitFor once the loop has stopped
// (after Tx.Stop or Loop.Stop).
var ErrStopped = errors.New("reactor: loop stopped")

// ConfigError is returned by New, NewDriver and NewCore for an invalid
// configuration; Field names the field and Value the rejected value.
type ConfigError struct {
	Field  string
	Value  any
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("reactor: invalid Config.%s (%v): %s", e.Field, e.Value, e.Reason)
}
