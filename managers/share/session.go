package share

// Share sessions, one per broker.
//
// Kafka APIs: the ShareSessionEpoch of ShareFetch (key 78) and
// ShareAcknowledge (key 79) v1+ (KIP-932): 0 opens a session, each answered
// request moves the epoch on (after 2147483647 comes 1), -1 closes it. One
// request per session is in flight at a time. A failed request is handled by
// its class in the error table (managers/errtable.go): a session reset
// (SHARE_SESSION_NOT_FOUND, INVALID_SHARE_SESSION_EPOCH,
// SHARE_SESSION_LIMIT_REACHED) opens a new session, at once the first time
// and after the growing retry backoff when repeated (where Java resets at
// once every time: the table's Differs note); other errors back the session
// off.

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/reactor"
)

type session struct {
	epoch    int32 // next epoch to send; 0 opens a session
	inFlight bool
	parts    map[managers.TopicPartition]bool // partitions the broker's session holds
	// retry backs off every request after a failed one (growing from
	// retry.backoff.ms; reset by an answered request).
	retry managers.Retry
	// resets counts session resets since a request was last answered:
	// the first reopens at once, each further one waits retry.
	resets int
	// fetchRetry backs off fetching (not acknowledging) after partition
	// errors; reset by an answer without them.
	fetchRetry managers.Retry
	closed     bool
	// carrying is the acknowledgements the request in flight carries
	// (the map its completion reports from); nil when none is in flight.
	// FailAll reports them and empties the map, so a late answer reports
	// nothing.
	carrying map[managers.TopicPartition][]ackEntry
}

func (c *Consume) sessionFor(node int32) *session {
	s := c.sessions[node]
	if s == nil {
		s = &session{parts: map[managers.TopicPartition]bool{},
			retry: managers.Retry{Backoff: c.cfg.Backoff}, fetchRetry: managers.Retry{Backoff: c.cfg.Backoff}}
		c.sessions[node] = s
	}
	return s
}

// advance moves a session on after an answered request.
func (s *session) advance(sent int32) {
	s.inFlight, s.carrying = false, nil
	s.retry.Succeed()
	s.resets = 0
	switch {
	case sent == -1:
		s.closed, s.epoch = true, 0
		clear(s.parts)
	case sent == 1<<31-1:
		s.epoch = 1
	default:
		s.epoch = sent + 1
	}
}

// fail handles a request answered with a top-level error, or not answered
// (api is kmsg.ShareFetch or kmsg.ShareAcknowledge), by its class in the
// error table: a session reset opens a new session (at once the first time,
// after the backoff when repeated); otherwise the session backs off,
// metadata is refreshed, and authorization and other failures are raised
// from Poll. The acknowledgements the request carried are reported by the
// caller.
func (c *Consume) fail(tx *reactor.Tx, api kmsg.Key, s *session, err error) {
	s.inFlight, s.carrying = false, nil
	switch managers.Class(api, managers.ScopeResponse, err) {
	case managers.ClassSessionReset:
		s.epoch = 0
		clear(s.parts)
		s.resets++
		if s.resets > 1 {
			s.retry.Fail(tx.Now, err)
		}
		return
	case managers.ClassMetadata:
		c.meta.RequestRefresh(tx)
	case managers.ClassRetriable, managers.ClassIgnored:
	default: // authorization, failed
		c.owed.Report(err)
	}
	s.retry.Fail(tx.Now, err)
	if c.closing {
		s.closed = true // a close that fails is not retried: the locks expire
	}
}
