package fakebroker

import (
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ObserveKey calls fn with the arrival time and body of every request with
// API key key until the handle is removed; requests are answered normally.
// fn runs on kfake's cluster goroutine: it must not block or call back into
// the Broker (copy what it needs and return). Hits counts observed
// requests. It returns an *ArgError for an unknown key and ErrClosed after
// Close.
func (b *Broker) ObserveKey(key kmsg.Key, fn func(at time.Time, req kmsg.Request)) (*Handle, error) {
	const op = "ObserveKey"
	if e := checkKey(op, key); e != nil {
		return nil, e
	}
	if fn == nil {
		return nil, &ArgError{op, "fn", nil, "must not be nil"}
	}
	return b.installFault(op, kfake.Fault{
		Keys:    []kmsg.Key{key},
		Count:   -1,
		Observe: true,
		When: func(req kmsg.Request) bool {
			fn(time.Now(), req)
			return true
		},
	})
}
