package scenario

// What the application saw: call durations and errors, records delivered,
// callbacks, a refused configuration, the time to the first record.

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/measure"
	"github.com/kreactor/kreactor/managers/share"
)

// DurationOf bounds how long the named step took.
type DurationOf struct {
	Of        string `yaml:"of" sc:"required,name"`
	DurBounds `yaml:",inline"`
}

func (a *DurationOf) key(_ *Scenario) string { return "duration." + a.Of }

func (a *DurationOf) validate(c *checker, e *Expectation) error {
	if err := a.DurBounds.validate(c, e); err != nil {
		return err
	}
	return c.stepRef(e, "of", a.Of, "poll", "commit_sync", "close", "consume", "poll_for", "wait_assigned", "produce", "join")
}

func (a *DurationOf) evaluate(r *run, e *Expectation) {
	mk, ok := r.stepMark(e, a.Of)
	if !ok {
		return
	}
	d := mk.end.Sub(mk.start)
	if mk.inside > 0 {
		// A client in another process: its own time for the call is
		// judged, the round trip to it shown.
		r.figure(Figure{Name: a.key(r.sc) + ".round_trip", Value: float64(d.Milliseconds()), Unit: "ms", Pass: true})
		d = mk.inside
	}
	f := Figure{Value: float64(d.Milliseconds()), Unit: "ms", Bound: a.DurBounds.String()}
	if a.ReportOnly {
		f.Name, f.Pass = a.key(r.sc), true
		r.figure(f)
		return
	}
	r.judge(e, a.key(r.sc), a.ok(d), f, "%s took %s, want %s", a.Of, d.Round(time.Millisecond), a.DurBounds)
	if a.Max != nil {
		r.figure(Figure{Name: a.key(r.sc) + ".headroom", Value: measure.Headroom(float64(d.Milliseconds()), float64(a.Max.D().Milliseconds())), Unit: "x"})
	}
}

// ErrorOf checks what the named step returned.
type ErrorOf struct {
	Of string `yaml:"of" sc:"required,name"`
	Is string `yaml:"is" sc:"required"`
}

// ErrorKinds are the non-Kafka values of "is".
var ErrorKinds = []string{"none", "any", "wakeup", "commit-failed", "close-deadline", "closed", "unacknowledged"}

func (a *ErrorOf) key(_ *Scenario) string { return "error." + a.Of }

func validIs(c *checker, e *Expectation, is string) error {
	if _, ok := kafkaError(is); !ok && !contains(ErrorKinds, is) {
		return c.errf(e.line("is"), is, "unknown error (one of %s, or a Kafka error name)", strings.Join(ErrorKinds, ", "))
	}
	return nil
}

func (a *ErrorOf) validate(c *checker, e *Expectation) error {
	if err := validIs(c, e, a.Is); err != nil {
		return err
	}
	return c.stepRef(e, "of", a.Of, "poll", "commit_sync", "commit_async", "close", "position")
}

func (a *ErrorOf) evaluate(r *run, e *Expectation) {
	mk, ok := r.stepMark(e, a.Of)
	if !ok {
		return
	}
	r.judge(e, a.key(r.sc), errorIs(mk.err, a.Is), Figure{Value: b2f(mk.err != nil), Unit: "errors", Bound: "is " + a.Is, Detail: fmt.Sprint(mk.err)},
		"%s returned %v, want %s", a.Of, mk.err, a.Is)
}

// RecordsOf bounds the records the named step delivered or acknowledged.
type RecordsOf struct {
	Of     string `yaml:"of" sc:"required,name"`
	Bounds `yaml:",inline"`
}

func (a *RecordsOf) key(_ *Scenario) string { return "records." + a.Of }

func (a *RecordsOf) validate(c *checker, e *Expectation) error {
	if err := validateBounds(c, e, a.Bounds); err != nil {
		return err
	}
	return c.stepRef(e, "of", a.Of, "poll", "consume", "poll_for", "wait_assigned", "acknowledge")
}

func (a *RecordsOf) evaluate(r *run, e *Expectation) {
	mk, ok := r.stepMark(e, a.Of)
	if !ok {
		return
	}
	r.count(e, a.key(r.sc), mk.records, "records", a.Min, a.Max, "", a.ReportOnly)
}

// Callbacks checks a regular consumer's commit_async callback.
type Callbacks struct {
	Of    string `yaml:"of" sc:"required,name"`
	Count int    `yaml:"count" sc:"required"`
	Is    string `yaml:"is,omitempty"`
	// Before: every run happened before the named step started (NAME) or
	// returned (NAME.end).
	Before string `yaml:"before,omitempty"`
}

func (a *Callbacks) key(_ *Scenario) string { return "callbacks." + a.Of }

func (a *Callbacks) validate(c *checker, e *Expectation) error {
	if a.Is != "" {
		if err := validIs(c, e, a.Is); err != nil {
			return err
		}
	}
	if err := c.beforeRef(e, a.Before); err != nil {
		return err
	}
	if err := c.stepRef(e, "of", a.Of, "commit_async"); err != nil {
		return err
	}
	if c.consumerOf(c.names[a.Of]).IsShare() {
		return c.errf(e.line("of"), a.Of, "a share consumer's commit outcomes reach its acknowledgement callback: use ack_callbacks")
	}
	return nil
}

func (a *Callbacks) evaluate(r *run, e *Expectation) {
	if _, ok := r.stepMark(e, a.Of); !ok {
		return
	}
	log := r.callbackLog(a.Of)
	r.mu.Lock()
	runs := append([]callbackRun(nil), log.runs...)
	r.mu.Unlock()
	ok := len(runs) == a.Count
	var errs []error
	for _, cb := range runs {
		errs = append(errs, cb.err)
		if a.Is != "" && !errorIs(cb.err, a.Is) {
			ok = false
		}
	}
	late := r.lateRuns(e, a.Before, runs)
	bound := fmt.Sprintf("== %d, each %s", a.Count, orAny(a.Is))
	if a.Before != "" {
		bound += ", before " + a.Before
	}
	r.judge(e, a.key(r.sc), ok && late == 0, Figure{Value: float64(len(runs)), Unit: "callbacks", Bound: bound, Detail: fmt.Sprint(errs)},
		"%s's callback ran %d time(s) with %v (%d after %s), want %s", a.Of, len(runs), errs, late, a.Before, bound)
}

// lateRuns counts callback runs at or after the anchor before names
// ("NAME" its start, "NAME.end" its end); an anchor never reached counts
// every run late.
func (r *run) lateRuns(e *Expectation, before string, runs []callbackRun) int {
	if before == "" {
		return 0
	}
	name, end := strings.CutSuffix(before, ".end")
	mk, ok := r.result(name)
	if !ok {
		r.notReached(e, fmt.Sprintf("step %q", name))
		return len(runs)
	}
	at := mk.start
	if end {
		at = mk.end
	}
	late := 0
	for _, cb := range runs {
		if !cb.at.Before(at) {
			late++
		}
	}
	return late
}

// AckCallbacks checks a share consumer's acknowledgement commit callback:
// the acknowledged offsets it reported, and each run's outcome.
type AckCallbacks struct {
	Consumer string `yaml:"consumer,omitempty" sc:"name"`
	Offsets  Bounds `yaml:"offsets,omitempty"`
	Is       string `yaml:"is,omitempty"`
	Before   string `yaml:"before,omitempty"`
}

func (a *AckCallbacks) key(sc *Scenario) string { return "ack_callbacks" + sc.suffix(a.Consumer) }

func (a *AckCallbacks) validate(c *checker, e *Expectation) error {
	if a.Is != "" {
		if err := validIs(c, e, a.Is); err != nil {
			return err
		}
	}
	if a.Offsets.Min == nil && a.Offsets.Max == nil {
		return c.errf(e.Line, "offsets", "needs offsets: {min: N} and/or {max: N}")
	}
	if a.Offsets.Min != nil && a.Offsets.Max != nil && *a.Offsets.Min > *a.Offsets.Max {
		return c.errf(e.line("offsets"), "offsets", "min %d is above max %d", *a.Offsets.Min, *a.Offsets.Max)
	}
	if cs := c.sc.consumerOf(a.Consumer); cs == nil || !cs.IsShare() {
		return c.errf(e.line("consumer"), a.Consumer, "ack_callbacks is about a share consumer")
	}
	return c.beforeRef(e, a.Before)
}

func (a *AckCallbacks) evaluate(r *run, e *Expectation) {
	m := r.member(a.Consumer)
	m.mu.Lock()
	acks := append([]ackRun(nil), m.acks...)
	m.mu.Unlock()
	n, ok := 0, true
	var runs []callbackRun
	var errs []string
	for _, ar := range acks {
		n += ar.offsets
		runs = append(runs, callbackRun{ar.at, ar.err})
		if ar.err != nil {
			errs = append(errs, ar.err.Error())
		}
		if a.Is != "" && !errorIs(ar.err, a.Is) {
			ok = false
		}
	}
	late := r.lateRuns(e, a.Before, runs)
	bound := "offsets " + boundText(a.Offsets.Min, a.Offsets.Max) + ", each " + orAny(a.Is)
	if a.Before != "" {
		bound += ", before " + a.Before
	}
	ok = ok && late == 0 && (a.Offsets.Min == nil || n >= *a.Offsets.Min) && (a.Offsets.Max == nil || n <= *a.Offsets.Max)
	r.judge(e, a.key(r.sc), ok, Figure{Value: float64(n), Unit: "offsets", Bound: bound, Detail: fmt.Sprintf("%d runs; errors: %v", len(acks), errs)},
		"acknowledgement callbacks reported %d offsets in %d runs (errors %v, %d late), want %s", n, len(acks), errs, late, bound)
}

// ConfigRejected: if the subject refuses the consumer's configuration, it
// must be a ConfigError naming Field, and that is the verdict; if it
// accepts it, the other bounds apply.
type ConfigRejected struct {
	Field    string `yaml:"field" sc:"required"`
	Consumer string `yaml:"consumer,omitempty" sc:"name"`
}

func (a *ConfigRejected) key(sc *Scenario) string {
	return "config_rejected." + a.Field + sc.suffix(a.Consumer)
}

func (a *ConfigRejected) validate(c *checker, e *Expectation) error {
	if !contains(configFields(), a.Field) {
		return c.errf(e.line("field"), a.Field, "not a consumer setting's field (one of %s)", strings.Join(configFields(), ", "))
	}
	return c.consumerRef(e, a.Consumer, false)
}

func (a *ConfigRejected) evaluate(r *run, e *Expectation) {
	m := r.member(a.Consumer)
	key := a.key(r.sc)
	if m.rejected == nil {
		r.figure(Figure{Name: key, Value: 0, Unit: "configs rejected", Bound: "accepted: the other bounds apply", Pass: true})
		return
	}
	var ce *consumer.ConfigError
	ok := errors.As(m.rejected, &ce) && ce.Field == a.Field
	r.judge(e, key, ok, Figure{Value: 1, Unit: "configs rejected", Bound: "rejected naming " + a.Field},
		"construction failed, but not with a ConfigError naming %s: %v", a.Field, m.rejected)
}

// Delivered checks the records the consumer delivered; with consumer: all,
// the distinct records of every consumer together (a record two members
// delivered counts once, and is reported in the figure's detail).
type Delivered struct {
	Records  int    `yaml:"records" sc:"required,max=count"`
	Consumer string `yaml:"consumer,omitempty" sc:"name"`
}

func (a *Delivered) key(sc *Scenario) string {
	if a.Consumer == "all" {
		return "delivered.all"
	}
	return "delivered" + sc.suffix(a.Consumer)
}

func (a *Delivered) validate(c *checker, e *Expectation) error {
	return c.consumerRef(e, a.Consumer, true)
}

func (a *Delivered) evaluate(r *run, e *Expectation) {
	if a.Consumer == "all" {
		union, both := map[shareKey]bool{}, 0
		var violations []string
		for _, m := range r.order {
			m.mu.Lock()
			keys := m.seen
			if m.s != nil {
				keys = map[shareKey]bool{}
				for k := range m.shareSeen {
					keys[k] = true
				}
			}
			for k := range keys {
				if union[k] {
					both++
				}
				union[k] = true
			}
			violations = append(violations, m.violations...)
			m.mu.Unlock()
		}
		ok := len(union) == a.Records && len(violations) == 0
		r.judge(e, a.key(r.sc), ok, Figure{Value: float64(len(union)), Unit: "records", Bound: fmt.Sprintf("== %d over the consumers, each in order per consumer", a.Records),
			Detail: fmt.Sprintf("%d delivered by more than one consumer", both)},
			"%d distinct records over the consumers (want %d); violations: %v", len(union), a.Records, violations)
		return
	}
	m := r.member(a.Consumer)
	m.mu.Lock()
	unique, violations := m.unique, append([]string(nil), m.violations...)
	m.mu.Unlock()
	ok := unique == a.Records && len(violations) == 0
	r.judge(e, a.key(r.sc), ok, Figure{Value: float64(unique), Unit: "records", Bound: fmt.Sprintf("== %d, each once, in order", a.Records)},
		"%d unique records (want %d); violations: %v", unique, a.Records, violations)
}

// Redeliveries bounds how many times a share consumer saw a record again
// with a higher delivery count (a release, an expired acquisition lock).
type Redeliveries struct {
	Consumer string `yaml:"consumer,omitempty" sc:"name"`
	Bounds   `yaml:",inline"`
}

func (a *Redeliveries) key(sc *Scenario) string { return "redeliveries" + sc.suffix(a.Consumer) }

func (a *Redeliveries) validate(c *checker, e *Expectation) error {
	if err := validateBounds(c, e, a.Bounds); err != nil {
		return err
	}
	if cs := c.sc.consumerOf(a.Consumer); cs == nil || !cs.IsShare() {
		return c.errf(e.line("consumer"), a.Consumer, "redeliveries counts a share consumer's records")
	}
	return nil
}

func (a *Redeliveries) evaluate(r *run, e *Expectation) {
	m := r.member(a.Consumer)
	m.mu.Lock()
	n := m.redeliv
	m.mu.Unlock()
	r.count(e, a.key(r.sc), n, "records", a.Min, a.Max, "", a.ReportOnly)
}

// FirstRecord bounds the time from a step's start (After; default the
// timeline's start) to the consumer's first record.
type FirstRecord struct {
	Consumer  string `yaml:"consumer,omitempty" sc:"name"`
	After     string `yaml:"after,omitempty" sc:"name"`
	DurBounds `yaml:",inline"`
}

func (a *FirstRecord) key(sc *Scenario) string { return "first_record" + sc.suffix(a.Consumer) }

func (a *FirstRecord) validate(c *checker, e *Expectation) error {
	if err := a.DurBounds.validate(c, e); err != nil {
		return err
	}
	if a.After != "" {
		if err := c.stepRef(e, "after", a.After); err != nil {
			return err
		}
	}
	return c.consumerRef(e, a.Consumer, false)
}

func (a *FirstRecord) evaluate(r *run, e *Expectation) {
	from := r.t0
	if a.After != "" {
		mk, ok := r.stepMark(e, a.After)
		if !ok {
			return
		}
		from = mk.start
	}
	m := r.member(a.Consumer)
	m.mu.Lock()
	first := m.firstRecordAt
	m.mu.Unlock()
	key := a.key(r.sc)
	if first.IsZero() {
		r.judge(e, key, false, Figure{Unit: "ms", Bound: a.DurBounds.String()}, "no record was delivered")
		return
	}
	d := first.Sub(from)
	f := Figure{Value: float64(d.Milliseconds()), Unit: "ms", Bound: a.DurBounds.String()}
	if a.ReportOnly {
		f.Name, f.Pass = key, true
		r.figure(f)
		return
	}
	r.judge(e, key, a.ok(d), f, "the first record came %s after %s, want %s", d.Round(time.Millisecond), orStart(a.After), a.DurBounds)
}

func orStart(s string) string {
	if s == "" {
		return "the timeline's start"
	}
	return s
}

// errorIs matches err against an "is" value.
func errorIs(err error, is string) bool {
	switch is {
	case "":
		return true
	case "any":
		return err != nil
	case "none":
		return err == nil
	case "wakeup":
		return errors.Is(err, consumer.ErrWakeup)
	case "commit-failed":
		return harness.IsCommitFailure(err)
	case "close-deadline":
		return errors.Is(err, consumer.ErrCloseDeadline)
	case "closed":
		return errors.Is(err, consumer.ErrClosed)
	case "unacknowledged":
		return errors.Is(err, share.ErrUnacknowledged)
	}
	ke, _ := kafkaError(is)
	return ke != nil && errors.Is(err, ke)
}

func orAny(s string) string {
	if s == "" {
		return "any outcome"
	}
	return s
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
