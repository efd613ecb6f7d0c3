package proxy

import (
	"fmt"
	"time"

	"github.com/kreactor/kreactor/wire"
)

// DefaultMaxFrame is the largest frame (bytes after the 4-byte size prefix)
// the proxy accepts from a client or a broker unless Config.MaxFrame says
// otherwise: wire.DefaultMaxFrame, 100 MiB.
const DefaultMaxFrame = wire.DefaultMaxFrame

// malformed is an error for a frame that parses but breaks the protocol
// (a response out of order, a Fetch answer too short for its session
// fields); it wraps wire.ErrMalformed like wire's own errors, so the proxy
// counts both kinds the same way.
func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", wire.ErrMalformed, fmt.Sprintf(format, args...))
}

// request is one request frame read from a client (wire.ParseRequestFrame)
// and when its size prefix was read. Body is nil when kmsg does not know the
// key or the version (newer than kmsg's): then the frame is relayed as is
// and only key-level faults (drop, hold, delay) apply.
type request struct {
	*wire.RequestFrame
	at time.Time
}

// readRequest reads and parses the next request frame of a client.
func readRequest(r interface{ Read([]byte) (int, error) }, maxFrame int32) (*request, error) {
	raw, at, err := wire.ReadFrame(r, wire.MinRequestSize, maxFrame)
	if err != nil {
		return nil, err
	}
	f, err := wire.ParseRequestFrame(raw)
	if err != nil {
		return nil, err
	}
	return &request{RequestFrame: f, at: at}, nil
}
