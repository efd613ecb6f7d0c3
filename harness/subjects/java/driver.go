package java

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kreactor/kreactor/internal/chans"
)

// maxLine bounds one protocol line (a poll reply with max.poll.records
// records); a longer line is a protocol error and kills the driver.
const maxLine = 256 << 20

// reapTimeout bounds the wait for a killed driver's exit to be observed.
const reapTimeout = 10 * time.Second

// driver is one running driver process and the protocol client around it.
// Calls may come from several goroutines (the application goroutine, and
// Wakeup / Metrics from others); replies are matched by id.
type driver struct {
	opts    Options // defaults applied; read-only
	cmd     *exec.Cmd
	pid     int
	stdin   io.WriteCloser
	stderr  *tailBuffer
	started time.Time
	ready   readyEvent    // set before start returns; read-only after
	startUp time.Duration // exec to the ready line

	wmu sync.Mutex // serialises writes to stdin

	mu         sync.Mutex
	nextID     int64              // guarded by mu
	pending    map[int64]*pending // guarded by mu; nil once the process exited
	late       []callbackEvent    // guarded by mu; callback events whose call was no longer pending
	fatal      *JavaError         // guarded by mu; the driver's "fatal" event
	protoErr   error              // guarded by mu; first protocol violation
	killReason string             // guarded by mu; why we killed it
	exit       string             // guarded by mu; set before done closes
	readyCh    chan readyEvent    // buffer 1; the ready event

	done chan struct{} // closed when the process has exited and been reaped
}

type pending struct {
	cmd    string
	ch     chan result // buffer 1
	events []callbackEvent
}

// result is one reply with the callback events Java ran during the call.
type result struct {
	hdr    header
	raw    []byte
	events []callbackEvent
}

// startDriver builds what is missing, starts the JVM and waits for its
// ready line (at most o.StartTimeout, or ctx).
func startDriver(ctx context.Context, o Options) (*driver, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	java, err := javaBinary(o)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, o.StartTimeout)
	defer cancel()
	cp, err := Classpath(ctx, o)
	if err != nil {
		return nil, err
	}
	args := append(append(append([]string(nil), o.JVMArgs...), o.ExtraJVMArgs...), "-cp", strings.Join(cp, ":"), mainClass)
	d := &driver{
		opts:    o,
		stderr:  newTailBuffer(o.StderrBytes),
		pending: map[int64]*pending{},
		readyCh: make(chan readyEvent, 1),
		done:    make(chan struct{}),
	}
	d.cmd = exec.Command(java, args...)
	// Own process group: Close kills the JVM and anything it started.
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	d.cmd.Stderr = d.stderr
	if d.stdin, err = d.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := d.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	d.started = time.Now()
	if err := d.cmd.Start(); err != nil {
		return nil, &DriverError{Op: "start", Err: err, Stderr: d.stderr.String()}
	}
	d.pid = d.cmd.Process.Pid
	register(d.pid)
	go d.readLoop(stdout)

	select {
	case r := <-d.readyCh:
		d.ready, d.startUp = r, time.Since(d.started)
		if r.Protocol != protocolVersion {
			d.kill(fmt.Sprintf("driver speaks protocol %d, want %d (rebuild: make java-driver)", r.Protocol, protocolVersion))
			d.awaitExit()
			return nil, d.failure("start", nil)
		}
		return d, nil
	case <-d.done:
		return nil, d.failure("start", errors.New("driver exited before its ready line"))
	case <-ctx.Done():
		d.kill(fmt.Sprintf("no ready line within %s: %v", o.StartTimeout, ctx.Err()))
		d.awaitExit()
		return nil, d.failure("start", nil)
	}
}

// readLoop reads protocol lines until stdout ends, then reaps the process.
func (d *driver) readLoop(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		d.dispatch(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		d.protocolError(fmt.Errorf("reading driver stdout: %w", err))
		d.kill("protocol error")
		_, _ = io.Copy(io.Discard, stdout) // let Wait finish
	}
	werr := d.cmd.Wait()
	exit := "exit status 0"
	if werr != nil {
		exit = werr.Error()
	}
	d.mu.Lock()
	d.exit = exit
	d.pending = nil
	d.mu.Unlock()
	unregister(d.pid)
	close(d.done)
}

func (d *driver) protocolError(err error) {
	d.mu.Lock()
	if d.protoErr == nil {
		d.protoErr = err
	}
	d.mu.Unlock()
}

// dispatch handles one line: a reply goes to its pending call, a callback
// event to the call that was running when Java ran it.
func (d *driver) dispatch(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if line[0] != '{' {
		// Not ours (e.g. a JVM warning on stdout): keep it with stderr.
		_, _ = d.stderr.Write(append([]byte("[stdout] "), append(line, '\n')...))
		return
	}
	var h header
	if err := json.Unmarshal(line, &h); err != nil {
		d.protocolError(fmt.Errorf("unparseable driver line %q: %w", tail(string(line), 200), err))
		return
	}
	raw := append([]byte(nil), line...)
	switch {
	case h.Event == evReady:
		var r readyEvent
		if err := json.Unmarshal(raw, &r); err != nil {
			d.protocolError(fmt.Errorf("bad ready line %q: %w", raw, err))
			return
		}
		select {
		case d.readyCh <- r:
		default:
		}
	case h.Event == evFatal:
		var f struct {
			Thread string     `json:"thread"`
			Error  *JavaError `json:"error"`
		}
		_ = json.Unmarshal(raw, &f)
		d.mu.Lock()
		d.fatal = f.Error
		d.mu.Unlock()
	case h.Event != "":
		var ev callbackEvent
		if err := json.Unmarshal(raw, &ev); err != nil {
			d.protocolError(fmt.Errorf("bad %s event %q: %w", h.Event, tail(string(raw), 200), err))
			return
		}
		d.mu.Lock()
		if p := d.pending[ev.DuringID]; p != nil {
			p.events = append(p.events, ev)
		} else {
			d.late = append(d.late, ev)
		}
		d.mu.Unlock()
	case h.ID != nil && *h.ID > 0:
		d.mu.Lock()
		p := d.pending[*h.ID]
		delete(d.pending, *h.ID)
		d.mu.Unlock()
		if p == nil {
			d.protocolError(fmt.Errorf("reply to unknown id %d", *h.ID))
			return
		}
		p.ch <- result{hdr: h, raw: raw, events: p.events}
	default:
		// id -1: the driver could not read one of our lines.
		msg := "driver rejected a line"
		if h.Error != nil {
			msg += ": " + h.Error.Message
		}
		d.protocolError(errors.New(msg))
	}
}

// call sends cmd with args and waits for its reply, at most answerBy. A
// cancelled ctx (not a passed deadline) runs onCancel once (e.g. a wakeup)
// and the call keeps waiting for the reply. takeLate hands callback events
// that arrived outside any pending call to this call (application-thread
// calls only). A missing reply kills the driver; a dead driver is a
// *DriverError.
func (d *driver) call(ctx context.Context, cmd string, args map[string]any, answerBy time.Duration, onCancel func(), takeLate bool) (result, error) {
	d.mu.Lock()
	if d.pending == nil {
		d.mu.Unlock()
		return result{}, d.failure(cmd, errors.New("driver is not running"))
	}
	d.nextID++
	id := d.nextID
	p := &pending{cmd: cmd, ch: make(chan result, 1)}
	d.pending[id] = p
	d.mu.Unlock()

	msg := make(map[string]any, len(args)+2)
	for k, v := range args {
		msg[k] = v
	}
	msg["id"], msg["cmd"] = id, cmd
	b, err := json.Marshal(msg)
	if err != nil {
		d.forget(id)
		return result{}, fmt.Errorf("java subject: encoding %s: %w", cmd, err)
	}
	d.wmu.Lock()
	_, err = d.stdin.Write(append(b, '\n'))
	d.wmu.Unlock()
	if err != nil {
		d.forget(id)
		// Most likely the process died: wait briefly for its exit status.
		select {
		case <-d.done:
		case <-time.After(time.Second):
			d.kill("stdin write failed: " + err.Error())
			d.awaitExit()
		}
		return result{}, d.failure(cmd, fmt.Errorf("writing command: %w", err))
	}

	timer := time.NewTimer(answerBy)
	defer timer.Stop()
	ctxDone := ctx.Done()
	for {
		select {
		case r := <-p.ch:
			if takeLate {
				r.events = append(d.takeLate(), r.events...)
			}
			return r, nil
		case <-d.done:
			select {
			case r := <-p.ch:
				return r, nil
			default:
			}
			return result{}, d.failure(cmd, nil)
		case <-timer.C:
			d.kill(fmt.Sprintf("%s: no reply within %s", cmd, answerBy))
			d.awaitExit()
			return result{}, d.failure(cmd, fmt.Errorf("%w: %s not answered within %s; driver killed", ErrNoReply, cmd, answerBy))
		case <-ctxDone:
			ctxDone = nil
			if onCancel != nil && errors.Is(ctx.Err(), context.Canceled) {
				onCancel()
			}
		}
	}
}

func (d *driver) forget(id int64) {
	d.mu.Lock()
	if d.pending != nil {
		delete(d.pending, id)
	}
	d.mu.Unlock()
}

func (d *driver) takeLate() []callbackEvent {
	d.mu.Lock()
	defer d.mu.Unlock()
	l := d.late
	d.late = nil
	return l
}

// kill sends SIGKILL to the driver's process group, remembering why.
func (d *driver) kill(reason string) {
	d.mu.Lock()
	if d.killReason == "" {
		d.killReason = reason
	}
	d.mu.Unlock()
	_ = syscall.Kill(-d.pid, syscall.SIGKILL)
	_ = d.cmd.Process.Kill()
}

// awaitExit waits for the read loop to reap the process (bounded).
func (d *driver) awaitExit() bool {
	select {
	case <-d.done:
		return true
	case <-time.After(reapTimeout):
		return false
	}
}

// alive reports whether the process has not exited yet.
func (d *driver) alive() bool {
	return !chans.Closed(d.done)
}

// failure builds the *DriverError for op: cause, or what the read loop
// saw (protocol error, fatal event, our kill reason, the exit).
func (d *driver) failure(op string, cause error) error {
	d.mu.Lock()
	exit, perr, fatal, reason := d.exit, d.protoErr, d.fatal, d.killReason
	d.mu.Unlock()
	err := cause
	switch {
	case err != nil:
	case perr != nil:
		err = perr
	case fatal != nil:
		err = fmt.Errorf("driver thread died: %w", fatal)
	case reason != "":
		err = errors.New("killed: " + reason)
	default:
		err = errors.New("driver exited")
	}
	return &DriverError{Op: op, PID: d.pid, Exit: exit, Err: err, Stderr: d.stderr.String()}
}

// shutdown ends the process: "exit", stdin closed, then SIGKILL to the
// group if it has not exited within grace. It returns once the process was
// reaped (or reapTimeout passed after the kill, which is an error).
func (d *driver) shutdown(grace time.Duration) error {
	if d.alive() {
		_, _ = d.call(context.Background(), "exit", nil, grace, nil, false)
	}
	d.wmu.Lock()
	_ = d.stdin.Close()
	d.wmu.Unlock()
	select {
	case <-d.done:
		return nil
	case <-time.After(grace):
	}
	d.kill(fmt.Sprintf("still running %s after exit", grace))
	if !d.awaitExit() {
		return &DriverError{Op: "close", PID: d.pid, Err: fmt.Errorf("not reaped %s after SIGKILL", reapTimeout), Stderr: d.stderr.String()}
	}
	return nil
}
