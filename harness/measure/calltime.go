package measure

import (
	"time"

	"github.com/kreactor/kreactor/harness"
)

// CallTimer is an optional ability of a consumer whose calls run in another
// process (the java subject's driver): the time the client spent in its
// most recent application call of kind ("poll", "commit_sync",
// "commit_async", "close"), measured there around the client call itself,
// and the round trip seen from this process (which adds the command's
// encoding, the pipe and, for close, the driver's exit). ok is false when
// the last call was of another kind or never reached the client.
type CallTimer interface {
	LastCallTime(kind string) (inside, roundTrip time.Duration, ok bool)
}

// CallTime returns how long c's last call of kind took inside the client
// (CallTimer), or measured, the duration the caller timed around it, for a
// consumer without that ability (in-process subjects: there is nothing
// between the call and the client). c is a Consumer or ShareConsumer,
// wrapped or not (harness.Innermost).
func CallTime(c any, kind string, measured time.Duration) time.Duration {
	if ct, ok := harness.Innermost(c).(CallTimer); ok {
		if inside, _, ok := ct.LastCallTime(kind); ok {
			return inside
		}
	}
	return measured
}
