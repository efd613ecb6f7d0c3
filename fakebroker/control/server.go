package control

import (
	"context"
	"crypto/subtle"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// DefaultMaxBody is the largest request body the API reads unless
// Config.MaxBody says otherwise (1 MiB: a fault is a few hundred bytes).
const DefaultMaxBody = 1 << 20

// DefaultLogBodies are the APIs whose request bodies the log keeps (their
// top-level fields show in each entry's body) unless Config.LogBodies says
// otherwise: the group protocol's requests, small and what a consumer
// test asserts on (member epochs, member ids, generations).
var DefaultLogBodies = []kmsg.Key{
	kmsg.FindCoordinator, kmsg.JoinGroup, kmsg.SyncGroup, kmsg.Heartbeat, kmsg.LeaveGroup,
	kmsg.OffsetCommit, kmsg.ConsumerGroupHeartbeat, kmsg.ShareGroupHeartbeat,
}

// Config configures New. Backend is required.
type Config struct {
	Backend Backend
	// Token, if set, is the bearer token every request must carry
	// (Authorization: Bearer TOKEN); others get 401.
	Token string
	// MaxBody bounds a request body in bytes; a larger one gets 413.
	// 0 means DefaultMaxBody.
	MaxBody int64
	// LogBodies are the APIs whose request bodies the log keeps; nil
	// means DefaultLogBodies, an empty non-nil slice none.
	LogBodies []kmsg.Key
	// Verdict, if set, answers POST /v1/verdict (a scenario-driven
	// broker checks its file's broker-side expectations); nil: 404.
	Verdict func(ctx context.Context) (Verdict, error)
	// ControlURL is the URL clients reach the API at, shown by GET /v1.
	ControlURL string
	// Logger receives the API's own events (faults installed and
	// healed); nil discards them.
	Logger *slog.Logger
}

// Verdict is the answer of POST /v1/verdict.
type Verdict struct {
	Scenario string         `json:"scenario" doc:"the scenario file's id"`
	Pass     bool           `json:"pass" doc:"every broker-side expectation held"`
	Checks   []VerdictCheck `json:"checks" doc:"one per broker-side expectation, in file order"`
	Skipped  []string       `json:"skipped" doc:"expectations about the consumer (not checkable from the broker), by key"`
}

// VerdictCheck is one expectation's result.
type VerdictCheck struct {
	Key    string `json:"key" doc:"the expectation as the file names it"`
	Line   int    `json:"line" doc:"its line in the file"`
	Pass   bool   `json:"pass"`
	Detail string `json:"detail" doc:"what was measured against the bound"`
}

// Server is the control API of one Backend. Create it with New, serve
// Handler, and Close it (which heals every fault it installed).
type Server struct {
	cfg     Config
	log     *slog.Logger
	mux     *http.ServeMux
	closing chan struct{}
	once    sync.Once

	mu     sync.Mutex
	faults []*faultEntry // guarded by mu; installed order
	seq    int           // guarded by mu; last fault id number
}

// New returns the API of cfg.Backend. It asks the backend's recorder to
// keep the bodies of cfg.LogBodies.
func New(cfg Config) (*Server, error) {
	if cfg.Backend == nil {
		return nil, errors.New("control: Config.Backend is nil")
	}
	if cfg.MaxBody < 0 {
		return nil, errors.New("control: Config.MaxBody must be >= 0")
	}
	if cfg.MaxBody == 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.LogBodies == nil {
		cfg.LogBodies = DefaultLogBodies
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{cfg: cfg, log: log, mux: http.NewServeMux(), closing: make(chan struct{})}
	cfg.Backend.Recorder().KeepBodies(cfg.LogBodies...)
	for _, r := range routes {
		r := r
		s.mux.HandleFunc(r.Method+" "+r.Path, func(w http.ResponseWriter, req *http.Request) { r.handle(s, w, req) })
	}
	s.mux.HandleFunc("/", func(w http.ResponseWriter, req *http.Request) {
		writeErr(w, &Error{Status: http.StatusNotFound, Field: "path", Value: req.URL.Path, Msg: "no such route (GET /v1/openapi.json lists them)"})
	})
	return s, nil
}

// Handler is the API: every route under /v1, behind the bearer token.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.Token != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.Token)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="kreactor"`)
				writeErr(w, &Error{Status: http.StatusUnauthorized, Field: "Authorization", Msg: "want Authorization: Bearer TOKEN (the token kreactor was started with)"})
				return
			}
		}
		if r.ContentLength > s.cfg.MaxBody {
			writeErr(w, tooLarge(s.cfg.MaxBody, r.ContentLength))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBody)
		s.mux.ServeHTTP(w, r)
	})
}

func tooLarge(limit, got int64) *Error {
	e := &Error{Status: http.StatusRequestEntityTooLarge, Field: "body", Msg: "request body is larger than the limit of " + itoa(limit) + " bytes (kreactor -max-body)"}
	if got > 0 {
		e.Value = got
	}
	return e
}

// Serve serves the API on ln until ctx is done, then shuts the HTTP server
// down (open log streams end; requests in flight get up to 5 s) and
// returns. It does not Close s.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.endStreams()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := hs.Shutdown(sctx)
	if e := <-errc; !errors.Is(e, http.ErrServerClosed) && err == nil {
		err = e
	}
	return err
}

// endStreams ends every log stream (follow=true) at its next poll.
func (s *Server) endStreams() { s.once.Do(func() { close(s.closing) }) }

// Close heals every fault the API installed and ends log streams. It is
// idempotent; the backend stays open.
func (s *Server) Close() {
	s.endStreams()
	s.healAll("close")
}
