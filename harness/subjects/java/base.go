package java

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/managers"
)

// Info describes a running driver and its consumer.
type Info struct {
	PID            int
	Kind           string // "consumer" or "share"
	ClientID       string // client.id (broker-side requests are filtered by it)
	ClientsVersion string // AppInfoParser.getVersion() of the running kafka-clients
	ClientsCommit  string // AppInfoParser.getCommitId()
	// Implementation is the class doing the work: AsyncKafkaConsumer
	// (group.protocol=consumer), ClassicKafkaConsumer, KafkaShareConsumer.
	Implementation string
	JavaVersion    string
	Classpath      []string
	// Start is exec to the driver's ready line (JVM start and class
	// loading); JVMUptimeAtReady is the JVM's own uptime at that line.
	Start            time.Duration
	JVMUptimeAtReady time.Duration
	// Create is the consumer constructor's time inside Java.
	Create time.Duration
}

// CallTiming is one driver command: its consumer call's time inside Java
// (-1 when the command makes none) and the round trip seen from Go.
type CallTiming struct {
	Cmd       string
	Java      time.Duration
	RoundTrip time.Duration
	Err       string // "" on success
}

// CallbackRun is a callback Java ran on its application thread, and the
// call it ran in (Java's contract: during a later poll, commitSync or close
// of the same thread).
type CallbackRun struct {
	Event    string // commitCallback, ackCommitCallback, rebalance
	Ref      int64  // commitCallback: id of the commitAsync command
	During   string // the command running when Java invoked it, e.g. "poll"
	DuringID int64
	Thread   string // the Java thread it ran on (kreactor-app)
	Err      error  // the callback's exception argument, nil for success
}

// Rebalance is a ConsumerRebalanceListener call (regular consumer,
// subscribe with the default listener).
type Rebalance struct {
	Kind       string // assigned, revoked, lost
	Partitions []managers.TopicPartition
	During     string
}

// callLogSize bounds CallLog and Callbacks.
const callLogSize = 4096

// base is what both adapters share: the driver, the closed state, the
// callbacks waiting for Java to run them, and the logs.
type base struct {
	d    *driver
	info Info

	mu         sync.Mutex
	closed     bool                                   // guarded by mu
	commitCBs  map[int64]func(error)                  // guarded by mu; commitAsync id -> callback
	ackCB      consumer.AcknowledgementCommitCallback // guarded by mu
	calls      []CallTiming                           // guarded by mu; newest last, bounded
	last       CallTiming                             // guarded by mu; the latest application-thread command, also one refused before reaching Java
	callbacks  []CallbackRun                          // guarded by mu; bounded
	rebalances []Rebalance                            // guarded by mu; bounded
}

// start launches a driver and creates the consumer of kind with props.
func start(ctx context.Context, o Options, kind string, props map[string]string) (*base, error) {
	if props["client.id"] == "" {
		return nil, fmt.Errorf("java subject: config client.id is required (broker-side request counts are filtered by it), got %q", props["client.id"])
	}
	if props["bootstrap.servers"] == "" {
		return nil, errors.New("java subject: config bootstrap.servers is required")
	}
	d, err := startDriver(ctx, o)
	if err != nil {
		return nil, err
	}
	b := &base{d: d, commitCBs: map[int64]func(error){}}
	b.info = Info{PID: d.pid, Kind: kind, ClientID: props["client.id"], ClientsVersion: d.ready.ClientsVersion,
		ClientsCommit: d.ready.ClientsCommit, JavaVersion: d.ready.JavaVersion, Start: d.startUp,
		JVMUptimeAtReady: time.Duration(d.ready.JVMUptimeMs) * time.Millisecond}
	b.info.Classpath, _ = Classpath(ctx, o)
	var created struct {
		Implementation string `json:"implementation"`
	}
	r, err := b.do(ctx, "create", map[string]any{"kind": kind, "config": props}, d.opts.StartTimeout, nil)
	if err == nil {
		err = json.Unmarshal(r.raw, &created)
	}
	if err != nil {
		_ = d.shutdown(d.opts.CloseGrace)
		return nil, err
	}
	b.info.Implementation = created.Implementation
	b.info.Create = time.Duration(*r.hdr.DurNs)
	setKind(d.pid, kind, props["client.id"])
	return b, nil
}

// do runs an application-thread command: at most javaTimeout inside Java
// plus CallGrace (javaTimeout < 0: MaxCallWait), then the callbacks Java ran
// during it, on this goroutine, then the command's own error if any.
func (b *base) do(ctx context.Context, cmd string, args map[string]any, javaTimeout time.Duration, onCancel func()) (result, error) {
	return b.doWith(ctx, cmd, args, javaTimeout, onCancel, nil)
}

// doWith is do with a hook that gets the command's id before any callback
// runs (commitAsync registers its callback under it).
func (b *base) doWith(ctx context.Context, cmd string, args map[string]any, javaTimeout time.Duration, onCancel func(), withID func(id int64)) (result, error) {
	b.mu.Lock()
	closed := b.closed
	b.mu.Unlock()
	if closed && cmd != "close" {
		b.mu.Lock()
		b.last = CallTiming{Cmd: cmd, Java: -1, RoundTrip: -1}
		b.mu.Unlock()
		return result{}, fmt.Errorf("java %s: %w", cmd, consumer.ErrClosed)
	}
	answerBy := b.d.opts.MaxCallWait
	if javaTimeout >= 0 {
		answerBy = javaTimeout + b.d.opts.CallGrace
	}
	t0 := time.Now()
	r, err := b.d.call(ctx, cmd, args, answerBy, onCancel, true)
	rt := time.Since(t0)
	javaTime := time.Duration(-1)
	if r.hdr.DurNs != nil {
		javaTime = time.Duration(*r.hdr.DurNs)
	}
	if err == nil && r.hdr.Error != nil {
		e := r.hdr.Error
		e.Command = cmd
		err = e
	}
	b.logCall(CallTiming{Cmd: cmd, Java: javaTime, RoundTrip: rt, Err: errString(err)})
	if withID != nil && r.hdr.ID != nil {
		withID(*r.hdr.ID)
	}
	b.runCallbacks(r.events)
	return r, err
}

// side runs a reader-thread command (wakeup, metrics, threads): answered
// at once even while a poll blocks; runs no callbacks.
func (b *base) side(cmd string, args map[string]any) (result, error) {
	r, err := b.d.call(context.Background(), cmd, args, b.d.opts.CallGrace, nil, false)
	if err == nil && r.hdr.Error != nil {
		e := r.hdr.Error
		e.Command = cmd
		err = e
	}
	return r, err
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func (b *base) logCall(c CallTiming) {
	b.mu.Lock()
	b.calls = appendBounded(b.calls, c)
	b.last = c
	b.mu.Unlock()
}

// callCommands are the driver commands of the harness's call kinds (the
// names recorded call durations carry: poll, commit_sync, close).
var callCommands = map[string]string{"poll": "poll", "commit_sync": "commitSync", "commit_async": "commitAsync", "close": "close"}

// LastCallTime returns the time kafka-clients spent in the most recent
// application call, measured inside the driver around the client call
// (KafkaConsumer.poll, commitSync, close, ...: no JSON, pipe or process
// exit), and the round trip seen from Go, if that call was of kind (poll,
// commit_sync, commit_async, close) and reached Java. ok is false
// otherwise (another call came last, the consumer was closed, the driver
// had died).
func (b *base) LastCallTime(kind string) (inside, roundTrip time.Duration, ok bool) {
	cmd, known := callCommands[kind]
	b.mu.Lock()
	defer b.mu.Unlock()
	if !known || b.last.Cmd != cmd || b.last.Java < 0 {
		return 0, 0, false
	}
	return b.last.Java, b.last.RoundTrip, true
}

func appendBounded[T any](s []T, v T) []T {
	if len(s) >= callLogSize {
		s = append(s[:0], s[len(s)-callLogSize/2:]...)
	}
	return append(s, v)
}

// runCallbacks invokes, on the calling goroutine, the Go callbacks for the
// Java callbacks that ran during the call, in Java's order. A panic in a
// callback reaches the caller.
func (b *base) runCallbacks(events []callbackEvent) {
	for _, ev := range events {
		var err error
		if ev.Error != nil {
			ev.Error.Command = ev.Event
			err = ev.Error
		}
		run := CallbackRun{Event: ev.Event, Ref: ev.Ref, During: ev.During, DuringID: ev.DuringID, Thread: ev.Thread, Err: err}
		b.mu.Lock()
		b.callbacks = appendBounded(b.callbacks, run)
		var commitCB func(error)
		ackCB := b.ackCB
		switch ev.Event {
		case evCommitCallback:
			commitCB = b.commitCBs[ev.Ref]
			delete(b.commitCBs, ev.Ref)
		case evRebalance:
			b.rebalances = appendBounded(b.rebalances, Rebalance{Kind: ev.Kind, Partitions: fromWire(ev.Parts), During: ev.During})
		}
		b.mu.Unlock()
		switch ev.Event {
		case evCommitCallback:
			if commitCB != nil {
				commitCB(err)
			}
		case evAckCallback:
			if ackCB != nil {
				ackCB(decodeAckOffsets(ev.Offsets), err)
			}
		}
	}
}

func decodeAckOffsets(raw json.RawMessage) map[managers.TopicPartition][]int64 {
	var parts []struct {
		T       string  `json:"t"`
		P       int32   `json:"p"`
		Offsets []int64 `json:"offsets"`
	}
	_ = json.Unmarshal(raw, &parts)
	out := make(map[managers.TopicPartition][]int64, len(parts))
	for _, p := range parts {
		out[managers.TopicPartition{Topic: p.T, Partition: p.P}] = p.Offsets
	}
	return out
}

// close runs Java's close (ctx's deadline is the close timeout; without
// one, Java's default of 30 s) and then always ends the process.
func (b *base) close(ctx context.Context) error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return fmt.Errorf("java close: %w", consumer.ErrClosed)
	}
	b.closed = true
	b.mu.Unlock()
	args, javaTimeout := timeoutArgs(ctx, 30*time.Second)
	var err error
	if b.d.alive() {
		_, err = b.do(ctx, "close", args, javaTimeout, nil)
	} else {
		err = b.d.failure("close", nil)
	}
	if serr := b.d.shutdown(b.d.opts.CloseGrace); serr != nil && err == nil {
		err = serr
	}
	return err
}

// timeoutArgs is a command's arguments with ctx's remaining time as Java's
// timeout ("timeoutMs"), and that timeout; without a deadline none is
// sent and the timeout is orElse (Java's default for the call).
func timeoutArgs(ctx context.Context, orElse time.Duration) (map[string]any, time.Duration) {
	if ms, ok := timeoutMs(ctx); ok {
		return map[string]any{"timeoutMs": ms}, msDur(ms)
	}
	return map[string]any{}, orElse
}

// timeoutMs is ctx's remaining time in whole milliseconds (>= 0).
func timeoutMs(ctx context.Context) (int64, bool) {
	dl, ok := ctx.Deadline()
	if !ok {
		return 0, false
	}
	return max(0, time.Until(dl).Milliseconds()), true
}

// Info describes the driver and its consumer.
func (b *base) Info() Info { return b.info }

// PID is the driver process id.
func (b *base) PID() int { return b.d.pid }

// Stderr is the tail of the driver's stderr (Kafka's log lines at WARN and
// above unless the JVM options say otherwise).
func (b *base) Stderr() string { return b.d.stderr.String() }

// Alive reports whether the driver process is still running.
func (b *base) Alive() bool { return b.d.alive() }

// Kill ends the driver at once (SIGKILL to its process group), as a crash
// would; calls in progress and later fail with a *DriverError. Close still
// has to be called and reports that failure.
func (b *base) Kill() {
	b.d.kill("killed by Kill")
	b.d.awaitExit()
}

// CallLog returns the most recent commands (at most 4096) with their
// durations, oldest first.
func (b *base) CallLog() []CallTiming {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]CallTiming(nil), b.calls...)
}

// Callbacks returns the callbacks Java ran so far (bounded), in order,
// with the call each ran in.
func (b *base) Callbacks() []CallbackRun {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]CallbackRun(nil), b.callbacks...)
}

// CPU samples the driver's process and per-thread CPU from /proc
// (independent of the JVM). Diff two samples with CPUSample.Sub.
func (b *base) CPU() (CPUSample, error) { return SampleCPU(b.d.pid) }

// Metrics reads the consumer's metrics (Consumer.metrics()) whose names are
// in names (all when empty). It is answered by the driver's reader thread,
// so it may be called from any goroutine, also while a Poll blocks.
// Useful: select-total, io-wait-time-ns-total, network-io-total, and the
// async consumer's time-between-network-thread-poll-avg / -max.
func (b *base) Metrics(names ...string) (Metrics, error) {
	args := map[string]any{}
	if len(names) > 0 {
		args["names"] = names
	}
	r, err := b.side("metrics", args)
	if err != nil {
		return nil, err
	}
	var m struct {
		Metrics Metrics `json:"metrics"`
	}
	if err := json.Unmarshal(r.raw, &m); err != nil {
		return nil, fmt.Errorf("java metrics: %w", err)
	}
	for i := range m.Metrics {
		m.Metrics[i].decode()
	}
	sort.Slice(m.Metrics, func(i, j int) bool {
		if m.Metrics[i].Name != m.Metrics[j].Name {
			return m.Metrics[i].Name < m.Metrics[j].Name
		}
		return m.Metrics[i].Group < m.Metrics[j].Group
	})
	return m.Metrics, nil
}

// JVMThreads reads per-thread CPU as the JVM sees it (ThreadMXBean), with
// full thread names. Any goroutine, also while a Poll blocks.
func (b *base) JVMThreads() (JVMThreads, error) {
	r, err := b.side("threads", nil)
	if err != nil {
		return JVMThreads{}, err
	}
	var w wireThreads
	if err := json.Unmarshal(r.raw, &w); err != nil {
		return JVMThreads{}, fmt.Errorf("java threads: %w", err)
	}
	out := JVMThreads{ProcessCPU: time.Duration(w.ProcessCPUNs)}
	for _, t := range w.Threads {
		out.Threads = append(out.Threads, JVMThread{ID: t.ID, Name: t.Name, CPU: time.Duration(t.CPUNs), User: time.Duration(t.UserNs), State: t.State})
	}
	return out, nil
}

// Wakeup makes a blocked Poll return consumer.ErrWakeup (Java's
// WakeupException), or the next one if none blocks. Any goroutine. Errors
// (a dead driver) surface on the next application call.
func (b *base) Wakeup() {
	b.mu.Lock()
	closed := b.closed
	b.mu.Unlock()
	if !closed {
		_, _ = b.side("wakeup", nil)
	}
}

// Subscription returns the subscribed topics.
func (b *base) Subscription(ctx context.Context) ([]string, error) {
	r, err := b.do(ctx, "subscription", nil, 0, nil)
	if err != nil {
		return nil, err
	}
	var s struct {
		Topics []string `json:"topics"`
	}
	err = json.Unmarshal(r.raw, &s)
	sort.Strings(s.Topics)
	return s.Topics, err
}

// call runs an application-thread command with args (may be nil) and no
// timeout of its own, for its error only.
func (b *base) call(cmd string, args map[string]any) error {
	_, err := b.do(context.Background(), cmd, args, 0, nil)
	return err
}

// Subscribe subscribes to topics (KafkaConsumer.subscribe, with a
// rebalance listener whose calls are kept: Rebalances;
// KafkaShareConsumer.subscribe joins the share group).
func (b *base) Subscribe(topics ...string) error {
	return b.call("subscribe", map[string]any{"topics": topics})
}

// Unsubscribe leaves the group (KafkaConsumer.unsubscribe,
// KafkaShareConsumer.unsubscribe).
func (b *base) Unsubscribe() error { return b.call("unsubscribe", nil) }

// poll runs Java's poll within ctx's deadline (the poll timeout) and
// returns its records converted by conv, or (nil, nil) when the deadline
// passed without records. Errors: consumer.ErrWakeup after Wakeup (a
// *JavaError for WakeupException), the exception Java threw, ctx.Err() when
// ctx was cancelled (the poll is woken up), a *DriverError. Callbacks Java
// ran during the poll run on this goroutine first.
func poll[R any](b *base, ctx context.Context, conv func(wireRecord) R) ([]R, error) {
	ms, javaTimeout := b.pollTimeout(ctx)
	r, err := b.do(ctx, "poll", map[string]any{"timeoutMs": ms}, javaTimeout, b.Wakeup)
	if err != nil {
		return nil, cancelled(ctx, err)
	}
	var p pollReply
	if err := json.Unmarshal(r.raw, &p); err != nil {
		return nil, fmt.Errorf("java poll: decoding records: %w", err)
	}
	if len(p.Records) == 0 {
		return nil, nil
	}
	out := make([]R, len(p.Records))
	for i, w := range p.Records {
		out[i] = conv(w)
	}
	return out, nil
}

// pollTimeout is ctx's deadline as a Java poll timeout; without a deadline,
// MaxCallWait (a cancelled ctx wakes the poll up).
func (b *base) pollTimeout(ctx context.Context) (int64, time.Duration) {
	if ms, ok := timeoutMs(ctx); ok {
		return ms, time.Duration(ms) * time.Millisecond
	}
	return b.d.opts.MaxCallWait.Milliseconds(), b.d.opts.MaxCallWait
}

// cancelled maps a WakeupException caused by our own ctx-cancel wakeup to
// ctx.Err().
func cancelled(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil && errors.Is(err, consumer.ErrWakeup) {
		return ctx.Err()
	}
	return err
}
