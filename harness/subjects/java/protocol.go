package java

import (
	"encoding/json"
	"math"
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/managers"
)

// The driver's line protocol (subjects/java/README.md), Go side. Commands go
// out as {"id": N, "cmd": name, ...args}; replies come back as {"id": N,
// "ok": bool, "durNs": Java call time, "error": {...}, ...fields}; events as
// {"event": name, ...}, callback events with "duringId" naming the command
// that was running when Java invoked the callback.

// header is the part of every incoming line the read loop needs.
type header struct {
	ID       *int64     `json:"id"`
	OK       bool       `json:"ok"`
	DurNs    *int64     `json:"durNs"`
	Error    *JavaError `json:"error"`
	Event    string     `json:"event"`
	DuringID int64      `json:"duringId"`
}

// Event names.
const (
	evReady          = "ready"
	evFatal          = "fatal"
	evCommitCallback = "commitCallback"
	evAckCallback    = "ackCommitCallback"
	evRebalance      = "rebalance"
)

// readyEvent is the driver's first line.
type readyEvent struct {
	Protocol       int    `json:"protocol"`
	ClientsVersion string `json:"clientsVersion"`
	ClientsCommit  string `json:"clientsCommit"`
	JavaVersion    string `json:"javaVersion"`
	JavaVendor     string `json:"javaVendor"`
	PID            int    `json:"pid"`
	JVMStartMs     int64  `json:"jvmStartMs"`
	JVMUptimeMs    int64  `json:"jvmUptimeMs"`
}

// protocolVersion is the driver protocol this package speaks.
const protocolVersion = 1

// callbackEvent is a commit, acknowledgement-commit or rebalance callback
// that Java ran on its application thread.
type callbackEvent struct {
	Event    string          `json:"event"`
	Ref      int64           `json:"ref"` // commitCallback: the commitAsync command's id
	During   string          `json:"during"`
	DuringID int64           `json:"duringId"`
	Thread   string          `json:"thread"`
	Offsets  json.RawMessage `json:"offsets"`
	Error    *JavaError      `json:"error"`
	Kind     string          `json:"kind"` // rebalance: assigned, revoked, lost
	Parts    []wirePartition `json:"partitions"`
}

type wirePartition struct {
	T string `json:"t"`
	P int32  `json:"p"`
}

func toWire(tps []managers.TopicPartition) []wirePartition {
	out := make([]wirePartition, len(tps))
	for i, tp := range tps {
		out[i] = wirePartition{tp.Topic, tp.Partition}
	}
	return out
}

func fromWire(ps []wirePartition) []managers.TopicPartition {
	out := make([]managers.TopicPartition, len(ps))
	for i, p := range ps {
		out[i] = managers.TopicPartition{Topic: p.T, Partition: p.P}
	}
	return out
}

type wireOffset struct {
	T  string  `json:"t"`
	P  int32   `json:"p"`
	O  *int64  `json:"o"`
	LE *int32  `json:"le,omitempty"`
	MD *string `json:"md,omitempty"`
}

type wireHeader struct {
	K string `json:"k"`
	V []byte `json:"v"` // base64 in JSON
}

// wireRecord is a record as the driver sends it; K, V are base64 (null for
// a null key or value), DC is the share delivery count.
type wireRecord struct {
	T  string       `json:"t"`
	P  int32        `json:"p"`
	O  int64        `json:"o"`
	LE int32        `json:"le"`
	TS int64        `json:"ts"`
	TT string       `json:"tt"`
	K  []byte       `json:"k"`
	V  []byte       `json:"v"`
	H  []wireHeader `json:"h"`
	DC *int16       `json:"dc"`
}

func (w wireRecord) record() consumer.Record {
	r := consumer.Record{Topic: w.T, Partition: w.P, Offset: w.O, LeaderEpoch: w.LE,
		Timestamp: time.UnixMilli(w.TS), Key: w.K, Value: w.V}
	for _, h := range w.H {
		r.Headers = append(r.Headers, consumer.Header{Key: h.K, Value: h.V})
	}
	return r
}

type pollReply struct {
	Count   int          `json:"count"`
	Records []wireRecord `json:"records"`
}

// Metric is one kafka-clients metric as the client reports it
// (Consumer.metrics()).
type Metric struct {
	Group string            `json:"group"` // e.g. consumer-metrics
	Name  string            `json:"name"`  // e.g. select-total
	Tags  map[string]string `json:"tags"`  // e.g. client-id
	// Value is the numeric value (NaN when the metric has no samples or is
	// not numeric); Text holds a non-numeric value.
	Value float64         `json:"-"`
	Text  string          `json:"-"`
	Raw   json.RawMessage `json:"value"`
}

func (m *Metric) decode() {
	m.Value = math.NaN()
	var f float64
	if err := json.Unmarshal(m.Raw, &f); err == nil {
		m.Value = f
		return
	}
	var s string
	if err := json.Unmarshal(m.Raw, &s); err == nil {
		m.Text = s
	}
}

// Metrics is a metrics reading.
type Metrics []Metric

// Value returns the first metric named name (any group, any tags) and
// whether one was found.
func (ms Metrics) Value(name string) (float64, bool) {
	for _, m := range ms {
		if m.Name == name {
			return m.Value, true
		}
	}
	return math.NaN(), false
}

// JVMThread is one thread as the JVM's ThreadMXBean sees it.
type JVMThread struct {
	ID    int64
	Name  string        // full Java name, e.g. consumer_background_thread
	CPU   time.Duration // user + system; -1 if unavailable
	User  time.Duration
	State string // RUNNABLE, WAITING, ...
}

// JVMThreads is the JVM's view of CPU: the process and each live thread.
type JVMThreads struct {
	ProcessCPU time.Duration
	Threads    []JVMThread
}

type wireThreads struct {
	ProcessCPUNs int64 `json:"processCpuNs"`
	Threads      []struct {
		ID     int64  `json:"id"`
		Name   string `json:"name"`
		CPUNs  int64  `json:"cpuNs"`
		UserNs int64  `json:"userNs"`
		State  string `json:"state"`
	} `json:"threads"`
}
