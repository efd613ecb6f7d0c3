package control

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/kreactor/kreactor/fakebroker"
	"github.com/kreactor/kreactor/fakebroker/vocab"
	"github.com/kreactor/kreactor/wire"
)

// FakeBroker is the Backend of a fakebroker cluster. Group and topic state
// come from kfake's in-process API, so they are not in the request log.
// Topics lists the topics of the Broker's Config and those created or
// produced to through the API (kfake has no in-process topic listing).
func FakeBroker(b *fakebroker.Broker) Backend {
	fb := &fakeBackend{b: b, topics: map[string]bool{}}
	for t := range b.Config().Topics {
		fb.topics[t] = true
	}
	return fb
}

type fakeBackend struct {
	b *fakebroker.Broker

	mu     sync.Mutex
	topics map[string]bool // guarded by mu
}

func (f *fakeBackend) Mode() string             { return "broker" }
func (f *fakeBackend) Addrs() []string          { return f.b.Addrs() }
func (f *fakeBackend) Recorder() *wire.Recorder { return f.b.Recorder() }
func (f *fakeBackend) Close() error             { return nil }

func (f *fakeBackend) Nodes() []int32 {
	out := make([]int32, f.b.Config().Brokers)
	for i := range out {
		out[i] = int32(i)
	}
	return out
}

// Inject installs spec with fakebroker's helpers (Broker.Inject, as the
// kfake target does).
func (f *fakeBackend) Inject(spec vocab.Spec) (Fault, error) { return f.b.Inject(spec) }

func (f *fakeBackend) StopBroker(_ context.Context, node int32) (Fault, error) {
	h, err := f.b.StopNode(node)
	if err != nil {
		return nil, err
	}
	return h, nil
}

func (f *fakeBackend) Coordinator(_ context.Context, group string) (int32, error) {
	return f.b.CoordinatorFor(group), nil
}

func (f *fakeBackend) Group(_ context.Context, group string) (Group, error) {
	out := Group{Group: group, Coordinator: f.b.CoordinatorFor(group), Members: []GroupMember{}, Commits: []Commit{}}
	gi := f.b.GroupInfo(group)
	if gi == nil {
		return out, nil
	}
	out.Exists, out.State, out.Epoch = true, gi.State, gi.Epoch
	for i := range gi.Members {
		m := &gi.Members[i]
		out.Members = append(out.Members, GroupMember{MemberID: m.MemberID, ClientID: m.ClientID, Assigned: m.NumAssigned()})
	}
	for topic, ps := range gi.Commits {
		for p, c := range ps {
			out.Commits = append(out.Commits, Commit{Topic: topic, Partition: p, Offset: c.Offset})
		}
	}
	sortCommits(out.Commits)
	return out, nil
}

func (f *fakeBackend) Topics(context.Context) ([]Topic, error) {
	f.mu.Lock()
	names := make([]string, 0, len(f.topics))
	for t := range f.topics {
		names = append(names, t)
	}
	f.mu.Unlock()
	slices.Sort(names)
	out := []Topic{}
	for _, name := range names {
		ps := f.b.Cluster().PartitionInfos(name)
		if ps == nil {
			continue
		}
		t := Topic{Name: name, Partitions: []Partition{}}
		for _, p := range ps {
			t.Partitions = append(t.Partitions, Partition{Partition: p.Partition, Leader: p.Leader, HighWatermark: p.HighWatermark})
		}
		slices.SortFunc(t.Partitions, func(a, b Partition) int { return int(a.Partition - b.Partition) })
		out = append(out, t)
	}
	return out, nil
}

func (f *fakeBackend) CreateTopic(_ context.Context, name string, partitions int32) error {
	if err := f.b.Cluster().CreateTopic(name, partitions, nil); err != nil {
		return err
	}
	f.mu.Lock()
	f.topics[name] = true
	f.mu.Unlock()
	return nil
}

func (f *fakeBackend) Produce(ctx context.Context, topic string, n int, fn func(i int) (key, value []byte)) (map[int32]int, error) {
	if f.b.Cluster().TopicInfo(topic) == nil {
		return nil, &Error{Status: 404, Field: "topic", Value: topic, Msg: "no such topic"}
	}
	f.mu.Lock()
	f.topics[topic] = true
	f.mu.Unlock()
	return f.b.Produce(ctx, topic, n, fn)
}

func sortCommits(cs []Commit) {
	slices.SortFunc(cs, func(a, b Commit) int {
		if a.Topic != b.Topic {
			if a.Topic < b.Topic {
				return -1
			}
			return 1
		}
		return int(a.Partition - b.Partition)
	})
}

// ErrUnsupported is returned by a Backend for what it cannot do.
var ErrUnsupported = errors.New("not supported by this backend")
