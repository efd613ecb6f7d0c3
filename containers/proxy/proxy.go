package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kreactor/kreactor/internal/chans"
	"github.com/kreactor/kreactor/wire"
)

// DefaultDialTimeout bounds each upstream dial unless Config.DialTimeout says
// otherwise.
const DefaultDialTimeout = 10 * time.Second

// ErrClosed is returned by every Proxy method that installs a fault once
// Close has been called.
var ErrClosed = errors.New("proxy: closed")

// Config configures Start. Only Upstream is required.
type Config struct {
	// Upstream are the bootstrap addresses (host:port) of the cluster to
	// front. Hosts must be loopback IPs or "localhost".
	Upstream []string
	// MaxFrame is the largest frame in bytes (after the 4-byte size
	// prefix) accepted from a client or a broker; a larger one closes the
	// connection and counts as malformed. 0 means DefaultMaxFrame.
	MaxFrame int32
	// MaxRecords bounds the Recorder; 0 means DefaultMaxRecords.
	MaxRecords int
	// DialTimeout bounds each upstream dial; 0 means DefaultDialTimeout.
	DialTimeout time.Duration
	// Dial, if set, dials upstream brokers (for tests that want to see the
	// proxy's own connections). The proxy calls it only with loopback
	// addresses. nil means a net.Dialer.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Logger receives connection-level events (malformed frames, dial
	// failures) at Debug / Warn. nil discards them.
	Logger *slog.Logger
}

// Stats are the proxy's counters since Start.
type Stats struct {
	Accepted          uint64 // client connections accepted
	Open              int    // client connections open now
	DialFailures      uint64 // upstream dials that failed or were refused (non-loopback)
	UpstreamMalformed uint64 // broker frames the proxy could not parse (each closed its connection)
	Rewritten         uint64 // broker responses re-encoded (addresses or fault errors)
	Local             uint64 // requests answered by the proxy itself (error faults)
	Dropped           uint64 // client connections closed by drop / brokers-down faults
}

// Proxy fronts one Kafka cluster. Create it with Start; Close it when done.
// Methods are safe for concurrent use.
type Proxy struct {
	cfg Config // defaults applied; read-only after Start
	rec *Recorder
	log *slog.Logger

	ctx     context.Context // cancelled by Close: bounds dials
	cancel  context.CancelFunc
	closing chan struct{} // closed first thing in Close
	once    sync.Once
	wg      sync.WaitGroup // every goroutine the proxy starts

	mu     sync.Mutex
	closed bool               // guarded by mu; set by Close
	nodes  map[int32]*node    // guarded by mu
	conns  map[*conn]struct{} // guarded by mu
	faults []*Fault           // guarded by mu; installed, not healed

	rules   atomic.Pointer[[]*rule] // snapshot of the installed faults' rules, in install order
	connSeq atomic.Uint64

	topicsMu sync.RWMutex
	topics   map[[16]byte]string // guarded by topicsMu; topic id -> name, learned from Metadata

	sessions wire.FetchSessions // Fetch sessions, for faults on the partitions a request does not name

	accepted, dialFailures, upstreamMalformed, rewritten, local, dropped atomic.Uint64
}

// Start validates cfg, asks the upstream cluster for its brokers (a Metadata
// request with kgo, retried with a backoff of 100 ms doubling to 2 s until
// ctx is done, so a cluster still starting is waited for) and opens one
// 127.0.0.1 listener per broker node. Errors: no or non-loopback Upstream
// addresses, a negative limit, the cluster not answering as Kafka before
// ctx is done (naming the addresses and the last attempt's error), or a
// listener that cannot be opened.
func Start(ctx context.Context, cfg Config) (*Proxy, error) {
	if len(cfg.Upstream) == 0 {
		return nil, errors.New("proxy: Config.Upstream is empty")
	}
	for _, a := range cfg.Upstream {
		if err := checkLoopback(a); err != nil {
			return nil, fmt.Errorf("proxy: Config.Upstream: %w", err)
		}
	}
	switch {
	case cfg.MaxFrame < 0:
		return nil, fmt.Errorf("proxy: Config.MaxFrame = %d: must be >= 0", cfg.MaxFrame)
	case cfg.MaxRecords < 0:
		return nil, fmt.Errorf("proxy: Config.MaxRecords = %d: must be >= 0", cfg.MaxRecords)
	case cfg.DialTimeout < 0:
		return nil, fmt.Errorf("proxy: Config.DialTimeout = %s: must be >= 0", cfg.DialTimeout)
	}
	if cfg.MaxFrame == 0 {
		cfg.MaxFrame = DefaultMaxFrame
	}
	if cfg.MaxRecords == 0 {
		cfg.MaxRecords = DefaultMaxRecords
	}
	if cfg.DialTimeout == 0 {
		cfg.DialTimeout = DefaultDialTimeout
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	pctx, cancel := context.WithCancel(context.Background())
	p := &Proxy{
		cfg:     cfg,
		rec:     wire.NewRecorder(cfg.MaxRecords),
		log:     log.With("component", "proxy"),
		ctx:     pctx,
		cancel:  cancel,
		closing: make(chan struct{}),
		nodes:   make(map[int32]*node),
		conns:   make(map[*conn]struct{}),
		topics:  make(map[[16]byte]string),
	}
	p.rules.Store(&[]*rule{})
	brokers, err := p.discover(ctx)
	if err != nil {
		p.Close()
		return nil, err
	}
	for _, b := range brokers {
		if _, err := p.ensureNode(b.NodeID, net.JoinHostPort(b.Host, fmt.Sprint(b.Port))); err != nil {
			p.Close()
			return nil, err
		}
	}
	return p, nil
}

// Recorder returns the request recorder; it records until Close.
func (p *Proxy) Recorder() *Recorder { return p.rec }

// Stats returns the proxy's counters.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	open := len(p.conns)
	p.mu.Unlock()
	return Stats{
		Accepted:          p.accepted.Load(),
		Open:              open,
		DialFailures:      p.dialFailures.Load(),
		UpstreamMalformed: p.upstreamMalformed.Load(),
		Rewritten:         p.rewritten.Load(),
		Local:             p.local.Load(),
		Dropped:           p.dropped.Load(),
	}
}

// isClosing reports whether Close has started.
func (p *Proxy) isClosing() bool {
	return chans.Closed(p.closing)
}

// Close closes every listener and client / upstream connection (requests
// still held or delayed are not answered: their connections close), heals
// every installed fault, and returns once every goroutine the proxy started
// has exited. It does not wait on brokers or clients: blocked reads and
// writes end when their connections close. Close is idempotent, safe to call
// concurrently, and always returns nil.
func (p *Proxy) Close() error {
	p.once.Do(func() {
		close(p.closing)
		p.cancel()
		p.mu.Lock()
		p.closed = true
		var lns []net.Listener
		for _, n := range p.nodes {
			if n.ln != nil {
				lns = append(lns, n.ln)
			}
		}
		conns := make([]*conn, 0, len(p.conns))
		for c := range p.conns {
			conns = append(conns, c)
		}
		faults := p.faults
		p.mu.Unlock()
		for _, ln := range lns {
			ln.Close()
		}
		for _, c := range conns {
			c.close()
		}
		for _, f := range faults {
			f.Heal()
		}
		p.wg.Wait()
	})
	return nil
}

// goLocked runs fn on a goroutine Close waits for; p.mu must be held and
// p.closed false.
func (p *Proxy) goLocked(fn func()) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		fn()
	}()
}
