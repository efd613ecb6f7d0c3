package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ClientID is the client id of the proxy's own upstream requests (the
// Metadata request Start sends to learn the brokers).
const ClientID = "kreactor-proxy"

// node is one upstream broker and the proxy's listener for it.
type node struct {
	id       int32
	ln       net.Listener // guarded by Proxy.mu; nil while refusing
	refusing int          // guarded by Proxy.mu; Refuse faults in force
	addr     string       // listener address, host:port
	host     string       // listener host, for rewriting
	port     int32        // listener port, for rewriting
	upstream string       // broker address host:port; guarded by Proxy.mu
}

// Addrs returns the proxy's listener addresses (host:port) in node id order:
// the bootstrap addresses for clients.
func (p *Proxy) Addrs() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	ids := p.nodeIDsLocked()
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = p.nodes[id].addr
	}
	return out
}

// Addr returns the listener address for node, or false if the proxy has no
// listener for it.
func (p *Proxy) Addr(node int32) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n, ok := p.nodes[node]
	if !ok {
		return "", false
	}
	return n.addr, true
}

// Nodes returns the node ids the proxy has listeners for, ascending.
func (p *Proxy) Nodes() []int32 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.nodeIDsLocked()
}

// Upstream returns the broker address node's listener forwards to, as the
// cluster last advertised it, or false for an unknown node.
func (p *Proxy) Upstream(node int32) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n, ok := p.nodes[node]
	if !ok {
		return "", false
	}
	return n.upstream, true
}

func (p *Proxy) nodeIDsLocked() []int32 {
	ids := make([]int32, 0, len(p.nodes))
	for id := range p.nodes {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// ensureNode returns the listener for broker id, creating it (and its accept
// loop) if the proxy has none, and records upstream as the broker's address
// (a broker that moved is dialed at its new address by new connections). It
// returns ErrClosed after Close and the listen error if the listener cannot
// be opened.
func (p *Proxy) ensureNode(id int32, upstream string) (*node, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	if n, ok := p.nodes[id]; ok {
		if n.upstream != upstream {
			p.log.Debug("broker moved", "node", id, "from", n.upstream, "to", upstream)
			n.upstream = upstream
		}
		return n, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("proxy: listen for node %d: %w", id, err)
	}
	a := ln.Addr().(*net.TCPAddr)
	n := &node{id: id, ln: ln, addr: a.String(), host: a.IP.String(), port: int32(a.Port), upstream: upstream}
	p.nodes[id] = n
	p.log.Debug("listening", "node", id, "addr", n.addr, "upstream", upstream)
	p.goLocked(func() { p.accept(n, ln) })
	return n, nil
}

// accept serves n's listener ln until it is closed.
func (p *Proxy) accept(n *node, ln net.Listener) {
	for {
		nc, err := ln.Accept()
		if err != nil {
			p.mu.Lock()
			refusing := n.refusing > 0
			p.mu.Unlock()
			if !p.isClosing() && !refusing {
				p.log.Warn("accept", "node", n.id, "err", err)
			}
			return
		}
		p.accepted.Add(1)
		c := newConn(p, n.id, nc)
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			nc.Close()
			return
		}
		p.conns[c] = struct{}{}
		p.goLocked(c.serve)
		p.mu.Unlock()
	}
}

// forget stops tracking c.
func (p *Proxy) forget(c *conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// upstreamOf returns the address node's connections dial.
func (p *Proxy) upstreamOf(node int32) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n, ok := p.nodes[node]; ok {
		return n.upstream
	}
	return ""
}

// checkLoopback returns an error unless addr is host:port with a loopback IP
// or "localhost" as host.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("address %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("address %q is not loopback: the proxy only dials loopback addresses", addr)
}

// dial connects to a broker at addr, refusing non-loopback addresses; it is
// bounded by Config.DialTimeout and cancelled by Close.
func (p *Proxy) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if err := checkLoopback(addr); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, p.cfg.DialTimeout)
	defer cancel()
	if p.cfg.Dial != nil {
		return p.cfg.Dial(ctx, network, addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

// Discovery retries: the first retry waits discoverBackoff, each next one
// twice as long, at most discoverMaxBackoff; one attempt takes at most
// discoverAttempt (a listener that accepts but does not answer as Kafka
// should not use the whole wait on one try).
const (
	discoverBackoff    = 100 * time.Millisecond
	discoverMaxBackoff = 2 * time.Second
	discoverAttempt    = 5 * time.Second
)

// discover asks the upstream cluster for its brokers (kadm's ListBrokers:
// a Metadata request for no topics), retrying with a backoff until ctx is
// done: a cluster still starting refuses connections for a while. The
// error when ctx ends names the upstream addresses and the last attempt's
// error.
func (p *Proxy) discover(ctx context.Context) (kadm.BrokerDetails, error) {
	backoff := discoverBackoff
	for {
		actx, cancel := context.WithTimeout(ctx, discoverAttempt)
		brokers, err := p.discoverOnce(actx)
		timedOut := actx.Err() != nil
		cancel()
		if err == nil {
			return brokers, nil
		}
		if timedOut {
			err = fmt.Errorf("no Kafka answer to an attempt (is it a Kafka listener?): %w", err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("proxy: the upstream %s did not answer as Kafka before the wait ended: %w", strings.Join(p.cfg.Upstream, ","), err)
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, discoverMaxBackoff)
	}
}

// discoverOnce is one attempt of discover.
func (p *Proxy) discoverOnce(ctx context.Context) (kadm.BrokerDetails, error) {
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(p.cfg.Upstream...),
		kgo.ClientID(ClientID),
		kgo.Dialer(func(dctx context.Context, network, host string) (net.Conn, error) {
			return p.dial(dctx, network, host)
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("discovery client: %w", err)
	}
	adm := kadm.NewClient(cl)
	defer adm.Close()
	brokers, err := adm.ListBrokers(ctx)
	if err != nil {
		return nil, err
	}
	if len(brokers) == 0 {
		return nil, errors.New("metadata named no brokers")
	}
	return brokers, nil
}
