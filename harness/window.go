package harness

import (
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Window is a half-open time range [From, To) over recorded requests.
type Window struct {
	From, To time.Time
}

// Duration is To - From.
func (w Window) Duration() time.Duration { return w.To.Sub(w.From) }

// Filter returns a RequestFilter for keys (none: any key) from clientID
// ("" : any client) inside w.
func (w Window) Filter(clientID string, keys ...kmsg.Key) RequestFilter {
	return RequestFilter{Keys: keys, ClientID: clientID, From: w.From, To: w.To}
}

// Count returns how many requests with API key key the client clientID
// sent inside w, as the brokers recorded them in rec.
func (w Window) Count(rec Recorder, key kmsg.Key, clientID string) int {
	return rec.Count(w.Filter(clientID, key))
}

// Requests returns how many requests of any key the client clientID sent
// inside w.
func (w Window) Requests(rec Recorder, clientID string) int {
	return rec.Count(w.Filter(clientID))
}

// Rate returns Count per second of w (0 for an empty window).
func (w Window) Rate(rec Recorder, key kmsg.Key, clientID string) float64 {
	d := w.Duration().Seconds()
	if d <= 0 {
		return 0
	}
	return float64(w.Count(rec, key, clientID)) / d
}
