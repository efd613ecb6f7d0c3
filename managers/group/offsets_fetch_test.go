package group_test

import (
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
	"github.com/kreactor/kreactor/managers/internal/testrig"
	"github.com/kreactor/kreactor/reactor"
)

var tp0 = managers.TopicPartition{Topic: topic, Partition: 0}

func newFetch(r *rig) *group.Fetch {
	return group.NewFetch(group.FetchConfig{MaxWait: 500 * ms, MinBytes: 1, MaxBytes: 1 << 20, PartitionMaxBytes: 1 << 20,
		MaxBuffered: 100, Backoff: r.Back}, r.Meta)
}

func offsetFetchAnswer(groupCode, partCode int16, offset int64) *kmsg.OffsetFetchResponse {
	resp := kmsg.NewPtrOffsetFetchResponse()
	g := kmsg.NewOffsetFetchResponseGroup()
	g.Group, g.ErrorCode = groupID, groupCode
	gt := kmsg.NewOffsetFetchResponseGroupTopic()
	gt.Topic = topic
	p := kmsg.NewOffsetFetchResponseGroupTopicPartition()
	p.Partition, p.Offset, p.LeaderEpoch, p.ErrorCode = 0, offset, -1, partCode
	gt.Partitions = append(gt.Partitions, p)
	g.Topics = append(g.Topics, gt)
	resp.Groups = append(resp.Groups, g)
	return resp
}

func listOffsetsAnswer(code int16, offset int64) *kmsg.ListOffsetsResponse {
	resp := kmsg.NewPtrListOffsetsResponse()
	rt := kmsg.NewListOffsetsResponseTopic()
	rt.Topic = topic
	p := kmsg.NewListOffsetsResponseTopicPartition()
	p.Partition, p.ErrorCode, p.Offset, p.LeaderEpoch = 0, code, offset, -1
	rt.Partitions = append(rt.Partitions, p)
	resp.Topics = append(resp.Topics, rt)
	return resp
}

// offsetsRig is a rig over the fetch and offsets managers of a consumer
// manually assigned t/0 (fetch polled first, as in the consumer), in group
// gid ("": no group).
func offsetsRig(t *testing.T, reset, gid string) (*rig, *group.Fetch, *group.Offsets) {
	r := newRig(t)
	r.assigned, r.groupID = []managers.TopicPartition{tp0}, gid
	f := newFetch(r)
	o := group.NewOffsets(reset, r.Back, r.Coord, r.Meta, f)
	r.start(f, o)
	return r, f, o
}

// Every OffsetFetch error (group level and partition level) has the
// effect its class says on the initial position of an assigned partition.
func TestOffsetFetchErrorsByClass(t *testing.T) {
	for _, scope := range []managers.Scope{managers.ScopeResponse, managers.ScopePartition} {
		for _, c := range testrig.ErrorCases(t, kmsg.OffsetFetch, scope) {
			t.Run(scope.String()+"/"+c.Name(), func(t *testing.T) {
				r, f, o := offsetsRig(t, group.ResetEarliest, groupID)
				req := r.Request(o)
				if testrig.API(req) != kmsg.OffsetFetch {
					t.Fatalf("first request %s, want OffsetFetch", kmsg.NameForKey(int16(testrig.API(req))))
				}
				r.Complete(req, c, func(code int16) any {
					if scope == managers.ScopeResponse {
						return offsetFetchAnswer(code, 0, -1)
					}
					return offsetFetchAnswer(0, code, -1)
				})
				st := r.Step()
				next := r.Result(st, o)
				owed := f.TakeErrors()
				switch c.Row.Class {
				case managers.ClassIgnored: // nothing committed: auto.offset.reset decides
					if req := r.Only(st, o); testrig.API(req) != kmsg.ListOffsets {
						t.Fatalf("after %v: %s, want ListOffsets", c.Err, kmsg.NameForKey(int16(testrig.API(req))))
					}
				case managers.ClassCoordinator:
					if _, known := r.Coord.Known(); known || next.Kind != reactor.KindAwait || next.Inputs&reactor.InputCoordinator == 0 {
						t.Fatalf("coordinator known %v, offsets %s", known, testrig.Describe(next, r.Now))
					}
				case managers.ClassRetriable, managers.ClassMetadata:
					r.ExpectRetry(st, o, c.Row.Class)
					if len(owed) != 0 {
						t.Fatalf("retriable error owed %v", owed)
					}
				default:
					r.ExpectRetry(st, o, c.Row.Class)
					if len(owed) != 1 || !errors.Is(owed[0], c.Err) {
						t.Fatalf("owed %v, want %v", owed, c.Err)
					}
				}
			})
		}
	}
}

// Every ListOffsets error (auto.offset.reset) has the effect its class
// says; a good answer sets the position.
func TestListOffsetsErrorsByClass(t *testing.T) {
	for _, c := range testrig.ErrorCases(t, kmsg.ListOffsets, managers.ScopePartition) {
		t.Run(c.Name(), func(t *testing.T) {
			r, f, o := offsetsRig(t, group.ResetLatest, "") // no group: straight to auto.offset.reset
			req := r.Request(o)
			if lo := req.Payload.(*managers.Call).Req.(*kmsg.ListOffsetsRequest); lo.Topics[0].Partitions[0].Timestamp != -1 {
				t.Fatalf("latest asks timestamp %d", lo.Topics[0].Partitions[0].Timestamp)
			}
			r.Complete(req, c, func(code int16) any { return listOffsetsAnswer(code, 0) })
			st := r.Step()
			owed := f.TakeErrors()
			r.ExpectRetry(st, o, c.Row.Class)
			r.ExpectOwed(c, owed, nil)
			// The retry after the backoff sets the position.
			r.Now = r.Result(st, o).At
			r.Answer(r.Request(o), listOffsetsAnswer(0, 42), nil)
			if needs := f.NeedingPosition(); len(needs) != 0 {
				t.Fatalf("still needing a position: %v", needs)
			}
		})
	}
}

func fetchAnswer(topCode, partCode int16) *kmsg.FetchResponse {
	resp := kmsg.NewPtrFetchResponse()
	resp.ErrorCode = topCode
	rt := kmsg.NewFetchResponseTopic()
	rt.Topic, rt.TopicID = topic, testrig.TopicID
	p := kmsg.NewFetchResponseTopicPartition()
	p.Partition, p.ErrorCode, p.HighWatermark = 0, partCode, 42
	rt.Partitions = append(rt.Partitions, p)
	resp.Topics = append(resp.Topics, rt)
	return resp
}

// positioned returns a rig over a fetch manager owning t/0 at offset 42.
func positioned(t *testing.T) (*rig, *group.Fetch) {
	t.Helper()
	r := newRig(t)
	r.assigned = []managers.TopicPartition{tp0}
	f := newFetch(r)
	r.start(f)
	if res := r.Result(r.Step(), f); res.Kind != reactor.KindAwait || res.Inputs&reactor.InputPositions == 0 {
		t.Fatalf("fetch without a position %s, want Await(positions)", testrig.Describe(res, r.Now))
	}
	needs := f.NeedingPosition()
	if len(needs) != 1 {
		t.Fatalf("cannot position t/0: %v", needs)
	}
	set := false
	r.Do("position", func(*reactor.Tx) {
		set = f.SetPosition(tp0, managers.Position{Offset: 42, LeaderEpoch: -1}, needs[0].Gen)
	})
	if !set {
		t.Fatalf("cannot position t/0: %v", needs)
	}
	return r, f
}

// Every Fetch error (whole response and partition) has the effect its
// class says.
func TestFetchErrorsByClass(t *testing.T) {
	for _, scope := range []managers.Scope{managers.ScopeResponse, managers.ScopePartition} {
		for _, c := range testrig.ErrorCases(t, kmsg.Fetch, scope) {
			t.Run(scope.String()+"/"+c.Name(), func(t *testing.T) {
				r, f := positioned(t)
				r.Complete(r.Request(f), c, func(code int16) any {
					if scope == managers.ScopeResponse {
						return fetchAnswer(code, 0)
					}
					return fetchAnswer(0, code)
				})
				st := r.Step()
				owed := f.TakeErrors()
				switch c.Row.Class {
				case managers.ClassOffsetReset:
					if needs := f.NeedingPosition(); len(needs) != 1 || !needs[0].Reset {
						t.Fatalf("needing %v, want t/0 to be reset", needs)
					}
				case managers.ClassSessionReset:
					// The first reset refetches at once, in full (a
					// new fetch session, KIP-227).
					fr := r.Only(st, f).Payload.(*managers.Call).Req.(*kmsg.FetchRequest)
					if fr.SessionEpoch != 0 || len(owed) != 0 {
						t.Fatalf("after %v: Fetch with epoch %d, owed %v; want a full Fetch (epoch 0) at once, nothing owed", c.Err, fr.SessionEpoch, owed)
					}
				default:
					r.ExpectOwed(c, owed, new(*group.PartitionError))
					r.ExpectRetry(st, f, c.Row.Class)
				}
			})
		}
	}
}

// A partition that keeps failing backs off more each time (before: one
// base backoff every time), and a good answer starts over.
func TestFetchPartitionBackoffGrows(t *testing.T) {
	r, f := positioned(t)
	var waits []time.Duration
	for range 5 {
		r.Answer(r.Request(f), fetchAnswer(0, kerr.NotLeaderForPartition.Code), nil)
		next := r.Result(r.Step(), f)
		waits = append(waits, next.At.Sub(r.Now))
		r.Now = next.At
	}
	want := []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, time.Second}
	for i := range want {
		if waits[i] != want[i] {
			t.Fatalf("partition waits %v, want %v", waits, want)
		}
	}
	r.Answer(r.Request(f), fetchAnswer(0, 0), nil)
	r.Elapse(r.Back.Initial) // the good answer was empty: the next Fetch is paced
	r.Answer(r.Request(f), fetchAnswer(0, kerr.NotLeaderForPartition.Code), nil)
	if next := r.Result(r.Step(), f); next.At.Sub(r.Now) != 100*ms {
		t.Fatalf("after a good answer the backoff is %s, want 100ms", next.At.Sub(r.Now))
	}
}

// A position the application received in an earlier assignment of a
// partition (its record of received positions spans assignments) does not
// replace the position this assignment started from: a partition revoked
// at 10 and assigned back at 42 must not commit 10.
func TestMarkConsumedIgnoresAnEarlierAssignment(t *testing.T) {
	r, f := positioned(t)
	r.Do("mark", func(*reactor.Tx) {
		f.MarkConsumed(map[managers.TopicPartition]managers.Position{tp0: {Offset: 10, LeaderEpoch: -1}})
	})
	if got := f.Consumed()[tp0].Offset; got != 42 {
		t.Fatalf("consumed %d after a position from an earlier assignment, want 42 (this assignment's start)", got)
	}
	r.Do("mark", func(*reactor.Tx) {
		f.MarkConsumed(map[managers.TopicPartition]managers.Position{tp0: {Offset: 60, LeaderEpoch: -1}})
	})
	if got := f.Consumed()[tp0].Offset; got != 42 {
		t.Fatalf("consumed %d after a position nothing in this assignment handed, want 42", got)
	}
}
