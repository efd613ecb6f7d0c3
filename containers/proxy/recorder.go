package proxy

import (
	"github.com/kreactor/kreactor/wire"
)

// DefaultMaxRecords is how many requests a Recorder keeps unless
// Config.MaxRecords says otherwise.
const DefaultMaxRecords = 1_000_000

// Recorder keeps the requests clients sent through the proxy: it is
// wire.Recorder (the same type fakebroker records into), so harness.Recorder
// is one thing on every target. Node is the node id of the listener the
// request arrived on; Conn numbers client connections from 1 within one
// Proxy; At is when the proxy read the frame's size prefix. Requests are
// recorded on arrival, before faults act on them, so a request pipelined
// behind a held one is still recorded when it arrives.
type Recorder = wire.Recorder
