package fakebroker

import (
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ObserveKey calls fn with the time kfake starts handling it and the body
// of every request with API key key, once per request, until the handle is
// removed; requests are answered normally. fn runs while kfake's cluster
// goroutine waits for it: it must not block or call back into the Broker
// (copy what it needs and return). Hits counts observed requests.
//
// It is a pass-through control (kfake.ControlKey), which kfake runs once
// per request (a Fetch parked for data and resumed is one request), before
// kfake's faults and after controls installed earlier for the same key (a
// request DelayKey delays is observed when its delay ends), so after the
// correction of a Fetch with no partition to read (answers_01_fetch.go):
// such a Fetch is observed with MaxWaitMillis 0. A kfake Fault with Observe
// would see a request once per entity it names (its When runs per group and
// partition checked). It returns an *ArgError for an unknown key or a nil
// fn, and ErrClosed after Close.
func (b *Broker) ObserveKey(key kmsg.Key, fn func(at time.Time, req kmsg.Request)) (*Handle, error) {
	const op = "ObserveKey"
	if e := checkKey(op, key); e != nil {
		return nil, e
	}
	if fn == nil {
		return nil, &ArgError{op, "fn", nil, "must not be nil"}
	}
	h := newHandle(b, op, -1, nil)
	return h.or(b.installControl(int16(key), h, func(req kmsg.Request) (kmsg.Response, error, bool) {
		if h.take() {
			fn(time.Now(), req)
		}
		return nil, nil, false // pass through: kfake answers normally
	}))
}
