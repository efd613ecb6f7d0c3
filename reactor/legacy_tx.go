package reactor

import "time"

// Host, NewTx and RecordingHost are kept only until reactor/baseline and the
// tests that use them drive a Core instead (issue 8); they go next.

// Host is what a Tx made by NewTx reports to.
type Host interface {
	QueueEffect(fn func(), version uint64)
	RequestStop()
	RequestRepoll()
}

type legacyHost struct{ h Host }

func (l legacyHost) queueEffect(fn func(), v uint64) { l.h.QueueEffect(fn, v) }
func (l legacyHost) requestStop()                    { l.h.RequestStop() }
func (l legacyHost) requestRepoll()                  { l.h.RequestRepoll() }

// NewTx returns a Tx reporting to host.
func NewTx(now time.Time, version, requestVersion uint64, host Host) *Tx {
	if host == nil {
		panic("reactor: NewTx with a nil Host")
	}
	return &Tx{Now: now, Version: version, RequestVersion: requestVersion, host: legacyHost{host}}
}

// RecordingHost is a Host for tests.
type RecordingHost struct {
	Effects []func()
	Stopped bool
	Repolls int
}

// QueueEffect keeps fn.
func (h *RecordingHost) QueueEffect(fn func(), _ uint64) { h.Effects = append(h.Effects, fn) }

// RequestStop records the stop.
func (h *RecordingHost) RequestStop() { h.Stopped = true }

// RequestRepoll counts the request.
func (h *RecordingHost) RequestRepoll() { h.Repolls++ }

// RunEffects runs and clears the kept effects, in order.
func (h *RecordingHost) RunEffects() {
	effects := h.Effects
	h.Effects = nil
	for _, fn := range effects {
		fn()
	}
}
