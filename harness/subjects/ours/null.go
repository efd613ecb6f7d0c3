package ours

import (
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/reactor"
)

// Null is the subject "null": the reactor consumer (consumer.NewOn) on a
// transport that accepts every request and never sends or completes it.
// It is the second negative control: every regression spec and
// regression scenario must fail on it, and fail on one of its liveness keys
// (records delivered, a commit completing, an error surfaced), which shows
// that no regression spec passes a consumer that makes no progress. It has
// the reactor's probe (steps, wakes) and no share consumer.
type Null struct{}

// Name is "null".
func (Null) Name() string { return "null" }

// LivenessOnly reports true: the null subject is judged on its liveness keys
// alone (it sends nothing, so no CPU, timing or request-rate bound can tell
// it apart), so a spec that judges CPU or timing need not run alone on it
// (suite.Alone).
func (Null) LivenessOnly() bool { return true }

// NullSmallestBackoff is the retry.backoff.ms the null subject runs with
// when asked for 0. The null subject accepts every configuration the Java
// consumer accepts, so that no spec passes on it by refusing one: the only
// setting Java accepts and the reactor refuses is a zero retry.backoff.ms
// (KAFKA-21049). A transport that never answers never fails a request, so
// no retry ever waits and no behaviour of this subject depends on the value.
const NullSmallestBackoff = time.Millisecond

// New builds the reactor consumer on a NullTransport.
func (Null) New(cfg consumer.Config) (harness.Consumer, error) {
	if cfg.RetryBackoff == 0 {
		cfg.RetryBackoff = NullSmallestBackoff
	}
	return probed(consumer.NewOn(cfg, NullTransport{}))
}

// NullTransport accepts every request and neither sends nor completes it:
// a network black hole on the consumer's side of the wire.
type NullTransport struct{}

// Send keeps nothing and calls nothing.
func (NullTransport) Send(*reactor.Request, func(any, error)) {}
