package proxy

import (
	"net"
	"strconv"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/wire"
)

// needsParse reports whether the broker's answer to rq must be parsed even
// without a fault: it can carry broker addresses (Metadata, FindCoordinator,
// DescribeCluster, ShareFetch, ShareAcknowledge, and KIP-951 leader
// endpoints in Fetch v16+ and Produce v10+), topic ids (Metadata) or API
// versions to cap (ApiVersions).
func needsParse(rq *request) bool {
	switch rq.Key {
	case kmsg.ApiVersions, kmsg.Metadata, kmsg.FindCoordinator, kmsg.DescribeCluster, kmsg.ShareFetch, kmsg.ShareAcknowledge:
		return true
	case kmsg.Fetch:
		return rq.Version >= 16
	case kmsg.Produce:
		return rq.Version >= 10
	}
	return false
}

// processResponse returns the frame to relay for raw, the broker's answer
// to s.rq: raw itself, or raw re-encoded at the same version after the
// slot's error rules and the address rewrite changed it. Fetch answers also
// update the fetch session tracker. It returns an error wrapping
// wire.ErrMalformed if the answer
// cannot be parsed.
func (p *Proxy) processResponse(node int32, s *slot, raw []byte) ([]byte, error) {
	rq := s.rq
	if rq.Body == nil {
		return raw, nil // unknown to kmsg: relayed as is
	}
	if err := p.sessions.Observe(node, rq.RequestFrame, raw); err != nil { // Fetch answers only
		return nil, err
	}
	if !needsParse(rq) && len(s.errRules) == 0 {
		return raw, nil
	}
	resp, at, err := rq.ParseResponse(raw)
	if err != nil {
		if rq.Key == kmsg.ApiVersions && len(s.errRules) == 0 {
			// A broker answers an ApiVersions version it does not
			// support with UNSUPPORTED_VERSION in a v0 body; the client
			// retries with a version both know.
			return raw, nil
		}
		return nil, err
	}
	if mr, ok := resp.(*kmsg.MetadataResponse); ok {
		p.learnTopics(mr)
	}
	changed := p.applyResponseErrors(s, resp)
	if p.rewriteAddrs(resp) {
		changed = true
	}
	if !changed {
		return raw, nil
	}
	p.rewritten.Add(1)
	return wire.WithResponseBody(raw, at, resp), nil
}

// rewriteAddrs points every broker address in resp at the proxy's listener
// for that node, creating listeners for nodes the proxy has not seen, and
// reports whether it changed anything. Entries without a node (NodeID < 0,
// as in an errored FindCoordinator) are left alone.
func (p *Proxy) rewriteAddrs(resp kmsg.Response) bool {
	changed := false
	fix := func(id int32, host *string, port *int32) {
		if id < 0 {
			return
		}
		n, err := p.ensureNode(id, net.JoinHostPort(*host, strconv.Itoa(int(*port))))
		if err != nil {
			// Closing, or no listener: point the client nowhere rather
			// than at the broker.
			*host, *port = "127.0.0.1", 0
			changed = true
			return
		}
		if *host != n.host || *port != n.port {
			*host, *port = n.host, n.port
			changed = true
		}
	}
	switch r := resp.(type) {
	case *kmsg.ApiVersionsResponse:
		changed = capVersions(r)
	case *kmsg.MetadataResponse:
		fixAll(r.Brokers, func(e *kmsg.MetadataResponseBroker) (int32, *string, *int32) { return e.NodeID, &e.Host, &e.Port }, fix)
	case *kmsg.FindCoordinatorResponse:
		if r.Version < 4 {
			if r.ErrorCode == 0 {
				fix(r.NodeID, &r.Host, &r.Port)
			}
		}
		for i := range r.Coordinators {
			c := &r.Coordinators[i]
			if c.ErrorCode == 0 {
				fix(c.NodeID, &c.Host, &c.Port)
			}
		}
	case *kmsg.DescribeClusterResponse:
		if r.EndpointType == 2 {
			// Controller endpoints (KIP-919): their node ids can
			// equal broker ids on other ports; left as is.
			break
		}
		fixAll(r.Brokers, func(e *kmsg.DescribeClusterResponseBroker) (int32, *string, *int32) {
			return e.NodeID, &e.Host, &e.Port
		}, fix)
	case *kmsg.ShareFetchResponse:
		fixAll(r.NodeEndpoints, func(e *kmsg.ShareFetchResponseNodeEndpoint) (int32, *string, *int32) {
			return e.NodeID, &e.Host, &e.Port
		}, fix)
	case *kmsg.ShareAcknowledgeResponse:
		fixAll(r.NodeEndpoints, func(e *kmsg.ShareAcknowledgeResponseNodeEndpoint) (int32, *string, *int32) {
			return e.NodeID, &e.Host, &e.Port
		}, fix)
	case *kmsg.FetchResponse:
		fixAll(r.Brokers, func(e *kmsg.FetchResponseBroker) (int32, *string, *int32) { return e.NodeID, &e.Host, &e.Port }, fix)
	case *kmsg.ProduceResponse:
		fixAll(r.Brokers, func(e *kmsg.ProduceResponseBroker) (int32, *string, *int32) { return e.NodeID, &e.Host, &e.Port }, fix)
	}
	return changed
}

// fixAll calls fix with each entry's node id, host and port (addr points
// at them).
func fixAll[E any](entries []E, addr func(*E) (int32, *string, *int32), fix func(id int32, host *string, port *int32)) {
	for i := range entries {
		fix(addr(&entries[i]))
	}
}

// learnTopics remembers the topic ids a Metadata answer names.
func (p *Proxy) learnTopics(resp *kmsg.MetadataResponse) {
	p.topicsMu.Lock()
	defer p.topicsMu.Unlock()
	for _, t := range resp.Topics {
		if t.Topic != nil && t.TopicID != ([16]byte{}) {
			p.topics[t.TopicID] = *t.Topic
		}
	}
}

// topicName returns the name of topic id, or "" if the proxy never saw it.
func (p *Proxy) topicName(id [16]byte) string {
	p.topicsMu.RLock()
	defer p.topicsMu.RUnlock()
	return p.topics[id]
}

// name returns topic if set, else the name of id.
func (p *Proxy) name(topic string, id [16]byte) string {
	if topic != "" || id == ([16]byte{}) {
		return topic
	}
	return p.topicName(id)
}

// capVersions lowers each API's MaxVersion in an ApiVersions answer to the
// newest version kmsg (and so the proxy) can parse, so clients never choose
// a version whose addresses or errors the proxy could not rewrite. Keys kmsg
// does not know are left alone (they are relayed as is). It reports whether
// it changed anything.
func capVersions(resp *kmsg.ApiVersionsResponse) bool {
	changed := false
	for i := range resp.ApiKeys {
		k := &resp.ApiKeys[i]
		req := kmsg.RequestForKey(k.ApiKey)
		if req == nil || k.MaxVersion <= req.MaxVersion() {
			continue
		}
		k.MaxVersion = max(req.MaxVersion(), k.MinVersion)
		changed = true
	}
	return changed
}
