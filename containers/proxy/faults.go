package proxy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/internal/chans"
)

// ErrHealed is returned by Fault.Wait when the fault is healed (or the proxy
// closed) before it counted the requested number of hits.
var ErrHealed = errors.New("proxy: fault healed before enough hits")

// ArgError is returned by a fault method (named by Op) for an invalid
// argument.
type ArgError struct {
	Op     string
	Arg    string
	Value  any
	Reason string
}

func (e *ArgError) Error() string {
	return fmt.Sprintf("proxy: %s: invalid %s = %v: %s", e.Op, e.Arg, e.Value, e.Reason)
}

// ErrorSpec selects the requests an error fault answers and the error code.
type ErrorSpec struct {
	Key kmsg.Key    // API key; required
	Err *kerr.Error // error code; required
	// Topic, if set, faults only this topic's entities (partitions of
	// Metadata, Fetch, ListOffsets, OffsetCommit, OffsetFetch, ShareFetch,
	// ShareAcknowledge). Topic ids are resolved to names from Metadata
	// responses the proxy relayed; an id it never saw does not match.
	Topic string
	// Group, if set, faults only this group's requests or entries
	// (FindCoordinator keys of coordinator type group, the heartbeats,
	// OffsetCommit, OffsetFetch groups, ShareFetch, ShareAcknowledge).
	Group string
	// Nodes, if set, faults only requests to these nodes.
	Nodes []int32
	// When, if set, selects requests by their body. It runs on the
	// connection's forwarding goroutine: it must not block or modify the
	// request.
	When func(kmsg.Request) bool
}

// Fault is an installed fault (or observer). Heal is idempotent; the
// proxy's Close heals every fault. All methods are safe for concurrent use.
// It satisfies harness.Fault.
type Fault struct {
	p     *Proxy
	name  string
	rules []*rule

	hits   chans.Counter
	once   sync.Once
	healed chan struct{} // closed by Heal

	onHeal func() // run once by Heal after the fault is removed (Refuse: listen again); may be nil
}

// Heal removes the fault: held and delayed requests proceed to the broker at
// once, later requests are forwarded normally. Calling it again does
// nothing.
func (f *Fault) Heal() {
	f.once.Do(func() {
		close(f.healed)
		p := f.p
		p.mu.Lock()
		p.faults = slices.DeleteFunc(p.faults, func(o *Fault) bool { return o == f })
		p.publishLocked()
		p.mu.Unlock()
		if f.onHeal != nil {
			f.onHeal()
		}
	})
}

// Hits returns how many requests the fault has acted on (answered with an
// error or rewritten, held, delayed, dropped, or observed). A held request
// counts when the hold starts.
func (f *Fault) Hits() int { return f.hits.Load() }

// Healed returns a channel closed once Heal has been called.
func (f *Fault) Healed() <-chan struct{} { return f.healed }

// Wait blocks until Hits() >= n (nil), the fault is healed first
// (ErrHealed), or ctx is done (ctx.Err()).
func (f *Fault) Wait(ctx context.Context, n int) error {
	return f.hits.Wait(ctx, n, f.healed, ErrHealed)
}

// String names the fault, e.g. "Hold(FindCoordinator)".
func (f *Fault) String() string { return f.name }

// hit counts one request the fault acts on, reporting false (and counting
// nothing) if the fault is healed.
func (f *Fault) hit() bool {
	if f.isHealed() {
		return false
	}
	f.hits.Add()
	return true
}

func (f *Fault) isHealed() bool {
	return chans.Closed(f.healed)
}

type ruleKind uint8

const (
	ruleError   ruleKind = iota // answer with an error code
	ruleHold                    // do not forward until healed
	ruleDelay                   // forward after delay
	ruleDrop                    // close the client connection
	ruleObserve                 // call observe with the request
)

// rule is one selector + action of a Fault.
type rule struct {
	f       *Fault
	kind    ruleKind
	keys    []kmsg.Key // empty: every key
	nodes   []int32    // empty: every node
	topic   string
	group   string
	when    func(kmsg.Request) bool
	err     *kerr.Error
	delay   time.Duration
	observe func(time.Time, kmsg.Request)
}

// selects reports whether r applies to rq arriving on node (keys, nodes,
// When; a When or an error needs a parsed body).
func (r *rule) selects(node int32, rq *request) bool {
	if len(r.keys) > 0 && !slices.Contains(r.keys, rq.Key) {
		return false
	}
	if len(r.nodes) > 0 && !slices.Contains(r.nodes, node) {
		return false
	}
	if (r.when != nil || r.kind == ruleError || r.kind == ruleObserve) && rq.Body == nil {
		return false
	}
	return r.when == nil || r.when(rq.Body)
}

// match is r's entity selector for the per-API error helpers.
func (r *rule) match() match {
	return match{topic: r.topic, group: r.group, byTopic: r.topic != "", code: r.err.Code}
}

// activeRules returns the installed rules, in install order.
func (p *Proxy) activeRules() []*rule { return *p.rules.Load() }

// publishLocked rebuilds the rule snapshot; p.mu must be held.
func (p *Proxy) publishLocked() {
	var rs []*rule
	for _, f := range p.faults {
		rs = append(rs, f.rules...)
	}
	p.rules.Store(&rs)
}

// install makes rules active as one Fault named name.
func (p *Proxy) install(name string, rules ...*rule) (*Fault, error) {
	f := &Fault{p: p, name: name, rules: rules, healed: make(chan struct{})}
	for _, r := range rules {
		r.f = f
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	p.faults = append(p.faults, f)
	p.publishLocked()
	return f, nil
}
