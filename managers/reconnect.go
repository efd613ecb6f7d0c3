package managers

// Per-broker connection backoff (reconnect.backoff.ms growing to
// reconnect.backoff.max.ms), as Java's ClusterConnectionStates keeps it per
// node: after a failed connection attempt, the next attempt to the same
// broker waits; a successful request resets the wait.
//
// The transport (consumer/transport.go) owns connections, so it is the one
// caller of Reconnect: it asks Wait before dialing and answers a request to
// a broker still in backoff at once with a *ReconnectBackoffError, which the
// managers' retry paths honour (Retry.Fail never retries before its Until).

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// ReconnectBackoffError is the transport's answer to a request for a broker
// whose last connection attempt failed less than its reconnect backoff ago:
// nothing was sent. It unwraps to the connection error that started the
// backoff.
type ReconnectBackoffError struct {
	Addr  string    // host:port
	Until time.Time // the end of the backoff
	Err   error     // the failure that started it
}

func (e *ReconnectBackoffError) Error() string {
	return fmt.Sprintf("broker %s: reconnect backoff until %s after: %v", e.Addr, e.Until.Format(time.RFC3339Nano), e.Err)
}

func (e *ReconnectBackoffError) Unwrap() error { return e.Err }

// IsConnectError reports whether err is a failure to connect to a broker
// (dial refused, unreachable, DNS, or a reconnect backoff still running),
// as opposed to a request that reached the broker and timed out or was
// answered.
func IsConnectError(err error) bool {
	if err == nil {
		return false
	}
	var rb *ReconnectBackoffError
	if errors.As(err, &rb) {
		return true
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// Reconnect tracks connection failures per broker address. Safe for
// concurrent use (the transport calls it from its request goroutines); the
// zero value is not ready: use NewReconnect.
type Reconnect struct {
	backoff Backoff

	mu    sync.Mutex // guards addrs
	addrs map[string]*reconnectState
}

type reconnectState struct {
	failures int
	until    time.Time
	err      error
}

// NewReconnect returns a tracker backing off by b (DefaultReconnectBackoff:
// reconnect.backoff.ms 50 ms doubling to reconnect.backoff.max.ms 1000 ms).
func NewReconnect(b Backoff) *Reconnect {
	return &Reconnect{backoff: b, addrs: map[string]*reconnectState{}}
}

// Failed records a failed connection attempt to addr at now and returns
// the end of its backoff: the n-th consecutive failure waits
// backoff.Delay(n).
func (r *Reconnect) Failed(addr string, now time.Time, err error) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.addrs[addr]
	if st == nil {
		st = &reconnectState{}
		r.addrs[addr] = st
	}
	st.failures++
	st.until = now.Add(r.backoff.Delay(st.failures))
	st.err = err
	return st.until
}

// Succeeded forgets addr's failures (a request to it was answered).
func (r *Reconnect) Succeeded(addr string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.addrs, addr)
}

// Wait returns, when addr is in backoff at now, the error to answer a
// request with (a *ReconnectBackoffError); nil when a connection may be
// attempted.
func (r *Reconnect) Wait(addr string, now time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.addrs[addr]
	if st == nil || !now.Before(st.until) {
		return nil
	}
	return &ReconnectBackoffError{Addr: addr, Until: st.until, Err: st.err}
}

// Failures is the number of consecutive failed attempts to addr.
func (r *Reconnect) Failures(addr string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if st := r.addrs[addr]; st != nil {
		return st.failures
	}
	return 0
}
