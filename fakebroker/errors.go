package fakebroker

import (
	"errors"
	"fmt"
)

// ErrClosed is returned by every Broker method that installs a fault, starts
// or stops a node, or produces, once Close has been called.
var ErrClosed = errors.New("fakebroker: broker closed")

// ErrRemoved is returned by Handle.Wait when the handle is removed (healed,
// released, or released by Broker.Close) before it counted the requested
// number of hits.
var ErrRemoved = errors.New("fakebroker: handle removed before enough hits")

// ErrConnectionDropped is the error a DropConnections or StopNode control
// gives kfake for a request it drops; kfake logs it and closes the client's
// connection. Clients never see this value, only the closed connection.
var ErrConnectionDropped = errors.New("fakebroker: connection dropped by fault")

// ConfigError is returned by Start when a Config field is invalid. Field is
// the Config field name (for map entries, "Topics[name]" or
// "BrokerConfigs[key]"), Value the rejected value.
type ConfigError struct {
	Field  string
	Value  any
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("fakebroker: invalid Config.%s = %v: %s", e.Field, e.Value, e.Reason)
}

// ArgError is returned by a Broker method (named by Op) when an argument is
// invalid, for example a negative delay, a count below -1, an empty group or
// an unknown node.
type ArgError struct {
	Op     string
	Arg    string
	Value  any
	Reason string
}

func (e *ArgError) Error() string {
	return fmt.Sprintf("fakebroker: %s: invalid %s = %v: %s", e.Op, e.Arg, e.Value, e.Reason)
}

// ProduceError is returned by Broker.Produce when records fail. Index is the
// lowest failed record index (the i given to the record function) and Err its
// error (often a *kerr.Error; use errors.Is / errors.As); Produced is how many
// records were acknowledged.
type ProduceError struct {
	Topic    string
	Index    int
	Produced int
	Err      error
}

func (e *ProduceError) Error() string {
	return fmt.Sprintf("fakebroker: produce to %q: record %d failed (%d records acknowledged): %v", e.Topic, e.Index, e.Produced, e.Err)
}

// Unwrap returns the producer's error.
func (e *ProduceError) Unwrap() error { return e.Err }
