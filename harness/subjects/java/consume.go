package java

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// ConsumeArgs are the arguments of Consume: the driver's "consume" command
// (subjects/java/README.md), which polls inside Java so the consumer's own
// rate is measured without the per-record JSON transfer of Poll.
type ConsumeArgs struct {
	// Records is how many records to receive after the assignment is
	// complete (the timed part); 0 only waits for the assignment.
	Records int
	// Partitions, when > 0, makes Java poll until its assignment holds
	// this many partitions before the timed part starts; records those
	// polls return are counted in ConsumeResult.Untimed.
	Partitions int
	// Poll is each poll's timeout (default 100 ms).
	Poll time.Duration
	// StampAt, when >= 0, is the byte offset in each record value of an
	// 8-byte big-endian Unix-epoch nanosecond stamp: Java reports the
	// produce-to-poll latency (ConsumeResult.Latency). -1: none.
	StampAt int
}

// ConsumeResult is the "consume" command's reply.
type ConsumeResult struct {
	Count      int64         // records received in the timed part
	Untimed    int64         // records received while waiting for the assignment
	Polls      int64         // poll calls made
	Elapsed    time.Duration // wall time of the timed part
	CPU        time.Duration // the JVM's process CPU over the timed part; -1 unsupported
	AllocBytes int64         // bytes allocated by all JVM threads over the timed part; -1 unsupported
	HeapUsed   int64         // JVM heap in use at the end (bytes)
	TimedOut   bool          // ctx's deadline passed first: Count < Records
	Latency    *Latency      // with StampAt >= 0
}

// Latency is a produce-to-poll latency distribution measured inside Java
// (nearest-rank quantiles).
type Latency struct {
	N                  int64
	P50, P90, P99, Max time.Duration
}

type consumeReply struct {
	Count      int64 `json:"count"`
	Untimed    int64 `json:"untimed"`
	Polls      int64 `json:"polls"`
	ElapsedNs  int64 `json:"elapsedNs"`
	CPUNs      int64 `json:"cpuNs"`
	AllocBytes int64 `json:"allocBytes"`
	HeapUsed   int64 `json:"heapUsed"`
	TimedOut   bool  `json:"timedOut"`
	LatencyNs  *struct {
		N   int64 `json:"n"`
		P50 int64 `json:"p50"`
		P90 int64 `json:"p90"`
		P99 int64 `json:"p99"`
		Max int64 `json:"max"`
	} `json:"latencyNs"`
}

// Consume runs the driver's "consume" command: Java polls until a.Records
// records arrived or ctx's deadline (required) passes, and reports counts,
// wall time, the JVM's CPU and allocations over the timed part. Errors: an
// argument out of range, ctx without a deadline, the exception Java threw,
// a *DriverError.
func (c *Consumer) Consume(ctx context.Context, a ConsumeArgs) (ConsumeResult, error) {
	if a.Records < 0 || a.Partitions < 0 {
		return ConsumeResult{}, fmt.Errorf("java consume: records %d and partitions %d must be >= 0", a.Records, a.Partitions)
	}
	ms, ok := timeoutMs(ctx)
	if !ok {
		return ConsumeResult{}, fmt.Errorf("java consume: ctx has no deadline: the command needs a bound")
	}
	if a.Poll <= 0 {
		a.Poll = 100 * time.Millisecond
	}
	args := map[string]any{"records": a.Records, "partitions": a.Partitions, "timeoutMs": ms, "pollMs": a.Poll.Milliseconds()}
	if a.StampAt >= 0 {
		args["stampAt"] = a.StampAt
	}
	r, err := c.do(ctx, "consume", args, time.Duration(ms)*time.Millisecond+a.Poll, c.Wakeup)
	if err != nil {
		return ConsumeResult{}, cancelled(ctx, err)
	}
	var p consumeReply
	if err := json.Unmarshal(r.raw, &p); err != nil {
		return ConsumeResult{}, fmt.Errorf("java consume: decoding the reply: %w", err)
	}
	out := ConsumeResult{Count: p.Count, Untimed: p.Untimed, Polls: p.Polls, Elapsed: time.Duration(p.ElapsedNs),
		CPU: time.Duration(p.CPUNs), AllocBytes: p.AllocBytes, HeapUsed: p.HeapUsed, TimedOut: p.TimedOut}
	if l := p.LatencyNs; l != nil {
		out.Latency = &Latency{N: l.N, P50: time.Duration(l.P50), P90: time.Duration(l.P90), P99: time.Duration(l.P99), Max: time.Duration(l.Max)}
	}
	return out, nil
}
