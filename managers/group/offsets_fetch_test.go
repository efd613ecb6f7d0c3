package group_test

import (
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
	"github.com/kreactor/kreactor/reactor"
)

var tp0 = managers.TopicPartition{Topic: topic, Partition: 0}

func newFetch(r *rig) *group.Fetch {
	return group.NewFetch(group.FetchConfig{MaxWait: 500 * ms, MinBytes: 1, MaxBytes: 1 << 20, PartitionMaxBytes: 1 << 20,
		MaxBuffered: 100, Backoff: r.back}, r.meta)
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

func complete(r *rig, req *reactor.Request, c errorCase, answer func(code int16) any) {
	if code, transport := c.code(); transport {
		req.OnComplete(r.tx(), nil, c.err)
	} else {
		req.OnComplete(r.tx(), answer(code), nil)
	}
}

func apiOf(req *reactor.Request) kmsg.Key {
	return kmsg.Key(req.Payload.(*managers.Call).Req.Key())
}

// expectRetry checks a retry after one backoff step and, for metadata
// errors, a refresh asked for.
func expectRetry(t *testing.T, r *rig, res reactor.Result, class managers.ErrorClass, repolls int) {
	t.Helper()
	if res.Kind != reactor.KindRetryAt || res.At != r.now.Add(r.back.Delay(1)) {
		t.Fatalf("poll %s, want RetryAt(+%s)", res, r.back.Delay(1))
	}
	if class == managers.ClassMetadata && r.host.Repolls == repolls {
		t.Fatal("no metadata refresh asked for")
	}
}

// Every OffsetFetch error (group level and partition level) has the
// effect its class says on the initial position of an assigned partition.
func TestOffsetFetchErrorsByClass(t *testing.T) {
	for _, scope := range []managers.Scope{managers.ScopeResponse, managers.ScopePartition} {
		for _, c := range errorCases(t, kmsg.OffsetFetch, scope) {
			t.Run(scope.String()+"/"+c.name(), func(t *testing.T) {
				r := newRig(t)
				f := newFetch(r)
				o := group.NewOffsets(group.ResetEarliest, r.back, r.coord, r.meta, f)
				v := r.view(nil, tp0)
				f.Poll(r.tx(), v)
				req := r.only(o.Poll(r.tx(), v))
				if apiOf(req) != kmsg.OffsetFetch {
					t.Fatalf("first request %s, want OffsetFetch", kmsg.NameForKey(int16(apiOf(req))))
				}
				complete(r, req, c, func(code int16) any {
					if scope == managers.ScopeResponse {
						return offsetFetchAnswer(code, 0, -1)
					}
					return offsetFetchAnswer(0, code, -1)
				})
				next := o.Poll(r.tx(), r.view(nil, tp0))
				owed := f.TakeErrors()
				switch c.row.Class {
				case managers.ClassIgnored: // nothing committed: auto.offset.reset decides
					if req := r.only(next); apiOf(req) != kmsg.ListOffsets {
						t.Fatalf("after %v: %s, want ListOffsets", c.err, next)
					}
				case managers.ClassCoordinator:
					if _, known := r.coord.Known(); known || next.Kind != reactor.KindAwait || next.Inputs&reactor.InputCoordinator == 0 {
						t.Fatalf("coordinator known %v, poll %s", known, next)
					}
				case managers.ClassRetriable, managers.ClassMetadata:
					expectRetry(t, r, next, c.row.Class, r.host.Repolls)
					if len(owed) != 0 {
						t.Fatalf("retriable error owed %v", owed)
					}
				default:
					expectRetry(t, r, next, c.row.Class, r.host.Repolls)
					if len(owed) != 1 || !errors.Is(owed[0], c.err) {
						t.Fatalf("owed %v, want %v", owed, c.err)
					}
				}
			})
		}
	}
}

// Every ListOffsets error (auto.offset.reset) has the effect its class
// says; a good answer sets the position.
func TestListOffsetsErrorsByClass(t *testing.T) {
	for _, c := range errorCases(t, kmsg.ListOffsets, managers.ScopePartition) {
		t.Run(c.name(), func(t *testing.T) {
			r := newRig(t)
			f := newFetch(r)
			o := group.NewOffsets(group.ResetLatest, r.back, r.coord, r.meta, f)
			v := r.view(nil, tp0)
			v.GroupID = "" // no group: straight to auto.offset.reset
			f.Poll(r.tx(), v)
			req := r.only(o.Poll(r.tx(), v))
			if lo := req.Payload.(*managers.Call).Req.(*kmsg.ListOffsetsRequest); lo.Topics[0].Partitions[0].Timestamp != -1 {
				t.Fatalf("latest asks timestamp %d", lo.Topics[0].Partitions[0].Timestamp)
			}
			repolls := r.host.Repolls
			complete(r, req, c, func(code int16) any { return listOffsetsAnswer(code, 0) })
			next := o.Poll(r.tx(), v)
			owed := f.TakeErrors()
			expectRetry(t, r, next, c.row.Class, repolls)
			switch c.row.Class {
			case managers.ClassAuthorization, managers.ClassFailed:
				if len(owed) != 1 || !errors.Is(owed[0], c.err) {
					t.Fatalf("owed %v, want %v", owed, c.err)
				}
			default:
				if len(owed) != 0 {
					t.Fatalf("owed %v for a retried error", owed)
				}
			}
			// The retry after the backoff sets the position.
			r.now = next.At
			r.only(o.Poll(r.tx(), v)).OnComplete(r.tx(), listOffsetsAnswer(0, 42), nil)
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
	rt.Topic, rt.TopicID = topic, topicID
	p := kmsg.NewFetchResponseTopicPartition()
	p.Partition, p.ErrorCode, p.HighWatermark = 0, partCode, 42
	rt.Partitions = append(rt.Partitions, p)
	resp.Topics = append(resp.Topics, rt)
	return resp
}

// positioned returns a fetch manager owning t/0 at offset 42.
func positioned(t *testing.T, r *rig) (*group.Fetch, group.View) {
	t.Helper()
	f := newFetch(r)
	v := r.view(nil, tp0)
	f.Poll(r.tx(), v)
	needs := f.NeedingPosition()
	if len(needs) != 1 || !f.SetPosition(tp0, managers.Position{Offset: 42, LeaderEpoch: -1}, needs[0].Gen) {
		t.Fatalf("cannot position t/0: %v", needs)
	}
	return f, v
}

// Every Fetch error (whole response and partition) has the effect its
// class says.
func TestFetchErrorsByClass(t *testing.T) {
	for _, scope := range []managers.Scope{managers.ScopeResponse, managers.ScopePartition} {
		for _, c := range errorCases(t, kmsg.Fetch, scope) {
			t.Run(scope.String()+"/"+c.name(), func(t *testing.T) {
				r := newRig(t)
				f, v := positioned(t, r)
				repolls := r.host.Repolls
				complete(r, r.only(f.Poll(r.tx(), v)), c, func(code int16) any {
					if scope == managers.ScopeResponse {
						return fetchAnswer(code, 0)
					}
					return fetchAnswer(0, code)
				})
				next := f.Poll(r.tx(), v)
				owed := f.TakeErrors()
				switch c.row.Class {
				case managers.ClassOffsetReset:
					if needs := f.NeedingPosition(); len(needs) != 1 || !needs[0].Reset {
						t.Fatalf("needing %v, want t/0 to be reset", needs)
					}
				case managers.ClassAuthorization, managers.ClassFailed:
					var pe *group.PartitionError
					if len(owed) != 1 || !errors.As(owed[0], &pe) || !errors.Is(owed[0], c.err) {
						t.Fatalf("owed %v, want a PartitionError with %v", owed, c.err)
					}
					expectRetry(t, r, next, c.row.Class, repolls)
				default:
					if len(owed) != 0 {
						t.Fatalf("owed %v for a retried error", owed)
					}
					expectRetry(t, r, next, c.row.Class, repolls)
				}
			})
		}
	}
}

// A partition that keeps failing backs off more each time (before: one
// base backoff every time), and a good answer starts over.
func TestFetchPartitionBackoffGrows(t *testing.T) {
	r := newRig(t)
	f, v := positioned(t, r)
	var waits []time.Duration
	for range 5 {
		r.only(f.Poll(r.tx(), v)).OnComplete(r.tx(), fetchAnswer(0, kerr.NotLeaderForPartition.Code), nil)
		next := f.Poll(r.tx(), v)
		waits = append(waits, next.At.Sub(r.now))
		r.now = next.At
	}
	want := []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, time.Second}
	for i := range want {
		if waits[i] != want[i] {
			t.Fatalf("partition waits %v, want %v", waits, want)
		}
	}
	r.only(f.Poll(r.tx(), v)).OnComplete(r.tx(), fetchAnswer(0, 0), nil)
	r.only(f.Poll(r.tx(), v)).OnComplete(r.tx(), fetchAnswer(0, kerr.NotLeaderForPartition.Code), nil)
	if next := f.Poll(r.tx(), v); next.At.Sub(r.now) != 100*ms {
		t.Fatalf("after a good answer the backoff is %s, want 100ms", next.At.Sub(r.now))
	}
}
