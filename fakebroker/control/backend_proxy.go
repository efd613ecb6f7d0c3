package control

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kreactor/kreactor/containers/proxy"
	"github.com/kreactor/kreactor/fakebroker"
	"github.com/kreactor/kreactor/fakebroker/vocab"
	"github.com/kreactor/kreactor/wire"
)

// AdminClientID is the client id of the proxy backend's admin requests
// (group and topic state, topic creation). They go straight to the
// upstream cluster, not through the proxy, so they are not in the request
// log and faults do not hide the cluster's state.
const AdminClientID = "kreactor-control-admin"

// AdminTimeout bounds each call of the proxy backend that asks the upstream
// cluster (GET /v1/groups/{group}, GET /v1/topics, POST /v1/topics, the
// coordinator of node: coordinator, the topic lookup before a produce): a
// cluster that died answers 502 within it (5 s) instead of after the admin
// client's retries.
const AdminTimeout = 5 * time.Second

// Proxy is the Backend of a recording proxy in front of a real cluster
// whose bootstrap addresses are upstream. A broker cannot be stopped
// through it (StopBroker returns ErrUnsupported: the cluster is not ours to
// stop); refuse and black-hole faults stand in for a broker that is down.
func Proxy(p *proxy.Proxy, upstream []string) (Backend, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(upstream...), kgo.ClientID(AdminClientID))
	if err != nil {
		return nil, fmt.Errorf("control: admin client for %v: %w", upstream, err)
	}
	return &proxyBackend{p: p, adm: kadm.NewClient(cl), timeout: AdminTimeout}, nil
}

type proxyBackend struct {
	p       *proxy.Proxy
	adm     *kadm.Client
	timeout time.Duration // AdminTimeout; tests shorten it
}

// timedOut adds to err why ctx (from bound) ended, when it did.
func timedOut(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("%w: %w", context.Cause(ctx), err)
	}
	return err
}

// bound is ctx limited to b.timeout, for one call to the upstream cluster;
// the error then says what ran out.
func (b *proxyBackend) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, b.timeout, fmt.Errorf("the upstream cluster did not answer within %s (AdminTimeout)", b.timeout))
}

func (b *proxyBackend) Mode() string             { return "proxy" }
func (b *proxyBackend) Addrs() []string          { return b.p.Addrs() }
func (b *proxyBackend) Nodes() []int32           { return b.p.Nodes() }
func (b *proxyBackend) Recorder() *wire.Recorder { return b.p.Recorder() }
func (b *proxyBackend) Close() error             { b.adm.Close(); return nil }

// Inject installs spec with the proxy's helpers (proxy.Inject, as the
// kafka target does).
func (b *proxyBackend) Inject(spec vocab.Spec) (Fault, error) {
	f, err := b.p.Inject(spec)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (b *proxyBackend) StopBroker(context.Context, int32) (Fault, error) {
	return nil, fmt.Errorf("stop-broker: %w (proxy mode: the cluster is not ours to stop; use refuse)", ErrUnsupported)
}

func (b *proxyBackend) Coordinator(ctx context.Context, group string) (int32, error) {
	ctx, cancel := b.bound(ctx)
	defer cancel()
	resp := b.adm.FindGroupCoordinators(ctx, group)
	c, ok := resp[group]
	if !ok {
		return -1, fmt.Errorf("no coordinator for group %q", group)
	}
	if c.Err != nil {
		return -1, fmt.Errorf("coordinator of group %q: %w", group, c.Err)
	}
	return c.NodeID, nil
}

func (b *proxyBackend) Group(ctx context.Context, group string) (Group, error) {
	ctx, cancel := b.bound(ctx)
	defer cancel()
	out := Group{Group: group, Coordinator: -1, Members: []GroupMember{}, Commits: []Commit{}}
	if id, err := b.Coordinator(ctx, group); err == nil {
		out.Coordinator = id
	}
	cgs, err := b.adm.DescribeConsumerGroups(ctx, group)
	if err != nil {
		return out, timedOut(ctx, fmt.Errorf("describe consumer group %q: %w", group, err))
	}
	if g, ok := cgs[group]; ok && g.Err == nil {
		out.Exists, out.State, out.Epoch = true, g.State, g.Epoch
		for _, m := range g.Members {
			out.Members = append(out.Members, GroupMember{MemberID: m.MemberID, ClientID: m.ClientID, Assigned: assigned(m.Assignment)})
		}
	} else if sgs, err := b.adm.DescribeShareGroups(ctx, group); err == nil {
		if g, ok := sgs[group]; ok && g.Err == nil {
			out.Exists, out.State, out.Epoch = true, g.GroupState, g.GroupEpoch
			for _, m := range g.Members {
				out.Members = append(out.Members, GroupMember{MemberID: m.MemberID, ClientID: m.ClientID, Assigned: assigned(m.Assignment)})
			}
			return out, nil
		}
	}
	offsets, err := b.adm.FetchOffsets(ctx, group)
	if errors.Is(err, kerr.GroupIDNotFound) {
		return out, nil
	}
	if err != nil {
		return out, timedOut(ctx, fmt.Errorf("fetch offsets of group %q: %w", group, err))
	}
	offsets.Each(func(o kadm.OffsetResponse) {
		if o.Err == nil && o.At >= 0 {
			out.Commits = append(out.Commits, Commit{Topic: o.Topic, Partition: o.Partition, Offset: o.At})
		}
	})
	sortCommits(out.Commits)
	return out, nil
}

func assigned(s kadm.TopicsSet) int {
	n := 0
	for _, ps := range s {
		n += len(ps)
	}
	return n
}

func (b *proxyBackend) Topics(ctx context.Context) ([]Topic, error) {
	ctx, cancel := b.bound(ctx)
	defer cancel()
	td, err := b.adm.ListTopics(ctx)
	if err != nil {
		return nil, timedOut(ctx, err)
	}
	ends, err := b.adm.ListEndOffsets(ctx, td.Names()...)
	if err != nil {
		return nil, timedOut(ctx, err)
	}
	out := []Topic{}
	for _, name := range td.Names() {
		t := Topic{Name: name, Partitions: []Partition{}}
		for _, p := range td[name].Partitions.Sorted() {
			hw := int64(-1)
			if o, ok := ends.Lookup(name, p.Partition); ok && o.Err == nil {
				hw = o.Offset
			}
			t.Partitions = append(t.Partitions, Partition{Partition: p.Partition, Leader: p.Leader, HighWatermark: hw})
		}
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b Topic) int {
		if a.Name < b.Name {
			return -1
		}
		return 1
	})
	return out, nil
}

func (b *proxyBackend) CreateTopic(ctx context.Context, name string, partitions int32) error {
	ctx, cancel := b.bound(ctx)
	defer cancel()
	resp, err := b.adm.CreateTopic(ctx, partitions, -1, nil, name)
	if err != nil {
		return timedOut(ctx, err)
	}
	return resp.Err
}

// Produce writes through the proxy, so faults apply to the producer too.
func (b *proxyBackend) Produce(ctx context.Context, topic string, n int, fn func(i int) (key, value []byte)) (map[int32]int, error) {
	lctx, cancel := b.bound(ctx)
	td, err := b.adm.ListTopics(lctx, topic)
	cancel()
	if err != nil {
		return nil, err
	}
	t, ok := td[topic]
	if !ok || t.Err != nil {
		return nil, &Error{Status: 404, Field: "topic", Value: topic, Msg: "no such topic"}
	}
	return fakebroker.ProduceTo(ctx, b.p.Addrs(), topic, int32(len(t.Partitions)), n, fn)
}
