package control

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kreactor/kreactor/fakebroker/vocab"
	"github.com/kreactor/kreactor/wire"
)

// DefaultLogLimit is the most entries one GET /v1/log page holds unless
// limit says otherwise; MaxLogLimit the most it may ask for.
const (
	DefaultLogLimit = 10_000
	MaxLogLimit     = 1_000_000
)

// followPoll is how often a follow stream looks for new requests.
const followPoll = 20 * time.Millisecond

var logParams = []param{
	{Name: "after", In: "query", Type: "integer", Doc: "only requests with seq >= after (the X-Next-Seq header of the previous page)"},
	{Name: "limit", In: "query", Type: "integer", Doc: "at most this many entries (default 10000, at most 1000000; with follow, per poll)"},
	{Name: "key", In: "query", Type: "string", Doc: "only these APIs (by name or number; comma-separated)"},
	{Name: "client_id", In: "query", Type: "string", Doc: "only requests of this client id"},
	{Name: "broker", In: "query", Type: "integer", Doc: "only requests to this broker (node id)"},
	{Name: "follow", In: "query", Type: "boolean", Doc: "keep the stream open and write new requests as they arrive, until the client disconnects or kreactor stops"},
}

// LogEntry is one recorded request (one NDJSON line of GET /v1/log).
type LogEntry struct {
	Seq           uint64         `json:"seq" doc:"position in arrival order since start, from 0; it only grows: POST /v1/reset does not restart it, so a follow stream or a pager with after= open across a reset goes on; evicted and reset requests leave gaps"`
	At            time.Time      `json:"at" doc:"when the broker (or proxy) read the request's first byte"`
	ClientID      string         `json:"client_id"`
	Broker        int32          `json:"broker" doc:"node id of the broker it was sent to"`
	Key           string         `json:"key" doc:"the API's name"`
	APIKey        int16          `json:"api_key" doc:"the API's number"`
	Version       int16          `json:"version"`
	CorrelationID int32          `json:"correlation_id"`
	Conn          uint64         `json:"conn" doc:"client connection number, from 1"`
	Size          int32          `json:"size" doc:"frame size in bytes"`
	Body          map[string]any `json:"body,omitempty" doc:"top-level fields of the request body (snake case, as selectors name them), for the APIs whose bodies the log keeps"`
}

// LogStats is the answer of GET /v1/log/stats.
type LogStats struct {
	Recorded  uint64   `json:"recorded" doc:"requests recorded since start or reset"`
	NextSeq   uint64   `json:"next_seq" doc:"the seq the next request will get (requests recorded since start: a reset does not restart it)"`
	Kept      int      `json:"kept" doc:"requests in memory"`
	Dropped   uint64   `json:"dropped" doc:"oldest requests evicted to stay within capacity"`
	Capacity  int      `json:"capacity" doc:"the most requests kept (kreactor -max-records)"`
	Malformed uint64   `json:"malformed" doc:"frames whose header could not be parsed"`
	Bodies    []string `json:"bodies" doc:"APIs whose bodies are kept"`
}

func entryOf(q wire.Sequenced) LogEntry {
	e := LogEntry{Seq: q.Seq, At: q.At, ClientID: q.ClientID, Broker: q.Node, Key: q.Key.Name(), APIKey: int16(q.Key),
		Version: q.Version, CorrelationID: q.CorrelationID, Conn: q.Conn, Size: q.Size}
	if q.Body != nil {
		e.Body = vocab.BodyFields(q.Body)
	}
	return e
}

// logQuery parses GET /v1/log's parameters.
func (s *Server) logQuery(r *http.Request) (after uint64, limit int, f wire.Filter, follow bool, err error) {
	q := r.URL.Query()
	for k := range q {
		if !slices.ContainsFunc(logParams, func(p param) bool { return p.Name == k }) {
			return 0, 0, f, false, badf(k, q.Get(k), "unknown parameter (known: after, limit, key, client_id, broker, follow)")
		}
	}
	if v := q.Get("after"); v != "" {
		if after, err = strconv.ParseUint(v, 10, 64); err != nil {
			return 0, 0, f, false, badf("after", v, "want a sequence number >= 0")
		}
	}
	limit = DefaultLogLimit
	if v := q.Get("limit"); v != "" {
		n, e := strconv.Atoi(v)
		if e != nil || n < 1 || n > MaxLogLimit {
			return 0, 0, f, false, badf("limit", v, "want an integer in 1..%d", MaxLogLimit)
		}
		limit = n
	}
	if v := q.Get("key"); v != "" {
		for _, name := range strings.Split(v, ",") {
			k, ok := vocab.ParseAPIKey(strings.TrimSpace(name))
			if !ok {
				return 0, 0, f, false, badf("key", name, "unknown Kafka API")
			}
			f.Keys = append(f.Keys, k)
		}
	}
	f.ClientID = q.Get("client_id")
	if v := q.Get("broker"); v != "" {
		n, e := strconv.ParseInt(v, 10, 32)
		if e != nil || !slices.Contains(s.cfg.Backend.Nodes(), int32(n)) {
			return 0, 0, f, false, badf("broker", v, "no such broker (brokers: %s)", joinInts(s.cfg.Backend.Nodes()))
		}
		f.Nodes = []int32{int32(n)}
	}
	if v := q.Get("follow"); v != "" {
		if follow, err = strconv.ParseBool(v); err != nil {
			return 0, 0, f, false, badf("follow", v, "want true or false")
		}
	}
	return after, limit, f, follow, nil
}

func (s *Server) getLog(w http.ResponseWriter, r *http.Request) error {
	after, limit, f, follow, err := s.logQuery(r)
	if err != nil {
		return err
	}
	rec := s.cfg.Backend.Recorder()
	page, next := rec.Since(after, limit, f)
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("X-Next-Seq", strconv.FormatUint(next, 10))
	w.WriteHeader(http.StatusOK)
	enc := json.NewEncoder(w)
	write := func(page []wire.Sequenced) bool {
		for _, q := range page {
			if enc.Encode(entryOf(q)) != nil {
				return false
			}
		}
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
		return true
	}
	if !write(page) || !follow {
		return nil
	}
	t := time.NewTicker(followPoll)
	defer t.Stop()
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-s.closing:
			return nil
		case <-t.C:
		}
		page, next = rec.Since(next, limit, f)
		if !write(page) {
			return nil
		}
	}
}

func (s *Server) logStats(w http.ResponseWriter, _ *http.Request) error {
	rec := s.cfg.Backend.Recorder()
	recorded, dropped := rec.Recorded(), rec.Dropped()
	st := LogStats{Recorded: recorded, NextSeq: rec.NextSeq(), Kept: int(recorded - dropped), Dropped: dropped, Capacity: rec.Cap(), Malformed: rec.Malformed(), Bodies: []string{}}
	for _, k := range s.cfg.LogBodies {
		st.Bodies = append(st.Bodies, k.Name())
	}
	writeJSON(w, 200, st)
	return nil
}
