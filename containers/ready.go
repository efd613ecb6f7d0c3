package containers

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/testcontainers/testcontainers-go/wait"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Readiness probing.
const (
	// probeInterval is the pause between two probes of a broker.
	probeInterval = 250 * time.Millisecond
	// probeTimeout bounds one probe (dial, ApiVersions, Metadata).
	probeTimeout = 3 * time.Second
)

// metadata asks the broker at addr (and only it) for cluster metadata,
// without topics (or for topics). One attempt, bounded by probeTimeout. A
// raw request on the seed broker rather than kadm's BrokerMetadata / Metadata,
// which send to any broker the client knows: a readiness probe must hear
// this broker's own view.
func metadata(ctx context.Context, addr string, topics ...string) (*kmsg.MetadataResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DialTimeout(probeTimeout),
		kgo.ClientID("kreactor-containers"))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	req := kmsg.NewPtrMetadataRequest()
	if len(topics) > 0 {
		for _, t := range topics {
			rt := kmsg.NewMetadataRequestTopic()
			rt.Topic = kmsg.StringPtr(t)
			req.Topics = append(req.Topics, rt)
		}
	} else {
		req.Topics = []kmsg.MetadataRequestTopic{} // none (nil would be all)
	}
	resp, err := cl.SeedBrokers()[0].Request(ctx, req)
	if err != nil {
		return nil, err
	}
	return resp.(*kmsg.MetadataResponse), nil
}

// brokerIDs are the node ids a metadata response lists, sorted.
func brokerIDs(resp *kmsg.MetadataResponse) []int32 {
	ids := make([]int32, 0, len(resp.Brokers))
	for _, b := range resp.Brokers {
		ids = append(ids, b.NodeID)
	}
	slices.Sort(ids)
	return ids
}

// serving is the wait strategy of one node: a Metadata request to its
// advertised address answers and lists the node itself (it is registered
// and unfenced) and a controller. It fails at once when the container stops
// running.
type serving struct {
	node int32
	addr string
}

var _ wait.Strategy = serving{}

func (s serving) String() string {
	return fmt.Sprintf("Kafka node %d serving Metadata on %s", s.node, s.addr)
}

// WaitUntilReady implements wait.Strategy. It returns when the node serves,
// or the last probe error when ctx ends (testcontainers-go bounds ctx by
// the request's startup timeout).
func (s serving) WaitUntilReady(ctx context.Context, target wait.StrategyTarget) error {
	var last error
	for {
		if state, err := target.State(ctx); err == nil && !state.Running {
			return fmt.Errorf("node %d: container %s (exit code %d) before Kafka served", s.node, state.Status, state.ExitCode)
		}
		resp, err := metadata(ctx, s.addr)
		switch {
		case err != nil:
			last = err
		case !slices.Contains(brokerIDs(resp), s.node):
			last = fmt.Errorf("metadata lists brokers %v, not yet node %d", brokerIDs(resp), s.node)
		case resp.ControllerID < 0:
			last = fmt.Errorf("metadata names no controller")
		default:
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("node %d not serving on %s: %w (last probe: %v)", s.node, s.addr, ctx.Err(), last)
		case <-time.After(probeInterval):
		}
	}
}

// waitView waits until every broker in addrs (node id -> address) answers
// Metadata listing exactly the node ids of addrs. Errors: ctx ends first
// (with the last disagreement).
func waitView(ctx context.Context, addrs map[int32]string) error {
	want := make([]int32, 0, len(addrs))
	for id := range addrs {
		want = append(want, id)
	}
	slices.Sort(want)
	var last error
	for {
		last = nil
		for _, id := range want {
			resp, err := metadata(ctx, addrs[id])
			if err != nil {
				last = fmt.Errorf("node %d: %w", id, err)
				break
			}
			if got := brokerIDs(resp); !slices.Equal(got, want) {
				last = fmt.Errorf("node %d lists brokers %v, want %v", id, got, want)
				break
			}
		}
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster view: %w (last probe: %v)", ctx.Err(), last)
		case <-time.After(probeInterval):
		}
	}
}
