package fakebroker

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/wire"
)

// fetchWait is the MaxWaitMillis of the Fetches below that must not wait:
// answered before half of it is answered at once, as Kafka does.
const fetchWait = 800 * time.Millisecond

// fetchReq is a Fetch in session id at epoch with MaxWaitMillis wait, naming
// partition 0 of the topic with id tid when name is set and forgetting it
// when forget is set.
func fetchReq(id, epoch int32, wait time.Duration, tid [16]byte, name, forget bool) *kmsg.FetchRequest {
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID, req.MinBytes, req.MaxBytes = -1, 1, 1<<20
	req.MaxWaitMillis = int32(wait.Milliseconds())
	req.SessionID, req.SessionEpoch = id, epoch
	if name {
		rt := kmsg.NewFetchRequestTopic()
		rt.Topic, rt.TopicID = "t", tid
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.FetchOffset, rp.PartitionMaxBytes, rp.CurrentLeaderEpoch = 0, 1<<20, -1
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
	}
	if forget {
		req.ForgottenTopics = append(req.ForgottenTopics, kmsg.FetchRequestForgottenTopic{Topic: "t", TopicID: tid, Partitions: []int32{0}})
	}
	return req
}

// timedFetch sends req to node 0 and returns the answer and how long it
// took.
func timedFetch(ctx context.Context, t *testing.T, cl *kgo.Client, req *kmsg.FetchRequest) (*kmsg.FetchResponse, time.Duration) {
	t.Helper()
	start := time.Now()
	kresp, err := cl.Broker(0).Request(ctx, req)
	if err != nil {
		t.Fatalf("Fetch (session %d, epoch %d): %v", req.SessionID, req.SessionEpoch, err)
	}
	return kresp.(*kmsg.FetchResponse), time.Since(start)
}

// TestFetchWithNothingToRead: a Fetch that leaves no partition to read once
// its session is applied is answered at once, as Kafka 4.4 answers it (a
// session close, a sessionless or full Fetch naming none, an incremental
// Fetch forgetting the last partition of its session); kfake's own answer
// comes after MaxWaitMillis. A Fetch with a partition to read and no
// records waits for MaxWaitMillis either way.
func TestFetchWithNothingToRead(t *testing.T) {
	for _, raw := range []bool{false, true} {
		b, cl, ctx := brokerClient(t, Config{Brokers: 1, Topics: map[string]int32{"t": 1}, KfakeAnswers: raw}, "fetch")
		tid := topicID(t, b, "t")
		check := func(what string, req *kmsg.FetchRequest) *kmsg.FetchResponse {
			t.Helper()
			resp, took := timedFetch(ctx, t, cl, req)
			if resp.ErrorCode != 0 {
				t.Errorf("KfakeAnswers %v: %s: %s", raw, what, kerr.ErrorForCode(resp.ErrorCode))
			}
			switch {
			case !raw && took >= fetchWait/2:
				t.Errorf("%s: answered after %v, want at once (before %v, half its MaxWait)", what, took, fetchWait/2)
			case raw && took < fetchWait:
				t.Errorf("KfakeAnswers: %s: answered after %v, want kfake's wait of MaxWait %v", what, took, fetchWait)
			}
			return resp
		}
		open := func() int32 { // a session holding t/0, opened without waiting
			t.Helper()
			resp, _ := timedFetch(ctx, t, cl, fetchReq(0, 0, 0, tid, true, false))
			if resp.ErrorCode != 0 || resp.SessionID <= 0 {
				t.Fatalf("opening a session: %s, session id %d", kerr.ErrorForCode(resp.ErrorCode), resp.SessionID)
			}
			return resp.SessionID
		}

		id := open()
		check("session close (epoch -1 with its id, no partitions)", fetchReq(id, -1, fetchWait, tid, false, false))
		if resp, _ := timedFetch(ctx, t, cl, fetchReq(id, 1, 0, tid, false, false)); resp.ErrorCode != kerr.FetchSessionIDNotFound.Code {
			t.Errorf("KfakeAnswers %v: after the close the session is gone: %s, want FETCH_SESSION_ID_NOT_FOUND", raw, kerr.ErrorForCode(resp.ErrorCode))
		}
		check("sessionless Fetch (id 0, epoch -1) naming no partition", fetchReq(0, -1, fetchWait, tid, false, false))
		if raw {
			continue // one wait each is kfake's difference shown; the rest would wait the same
		}
		id = open()
		check("incremental Fetch forgetting the last partition of its session", fetchReq(id, 1, fetchWait, tid, false, true))
		empty := check("full Fetch (epoch 0) naming no partition", fetchReq(0, 0, fetchWait, tid, false, false))
		check("incremental Fetch of a session with no partition", fetchReq(empty.SessionID, 1, fetchWait, tid, false, false))

		id = open()
		if _, took := timedFetch(ctx, t, cl, fetchReq(id, 1, fetchWait, tid, false, false)); took < fetchWait {
			t.Errorf("an incremental Fetch of a session holding an empty partition: answered after %v, want its MaxWait %v", took, fetchWait)
		}
		if _, took := timedFetch(ctx, t, cl, fetchReq(0, -1, fetchWait, tid, true, false)); took < fetchWait {
			t.Errorf("a sessionless Fetch of an empty partition: answered after %v, want its MaxWait %v", took, fetchWait)
		}
	}
}

// TestFetchWithNothingToReadKeepsFaultsHoldsAndObservers: the correction
// passes the request on to what else acts on Fetch: a hold still holds it
// (answered at once when released), a fault still answers its error, an
// observer and the recorder still see it.
func TestFetchWithNothingToReadKeepsFaultsHoldsAndObservers(t *testing.T) {
	b, cl, ctx := brokerClient(t, Config{Brokers: 1, Topics: map[string]int32{"t": 1}}, "fetch")
	tid := topicID(t, b, "t")

	observed := make(chan int32, 8)
	oh, err := b.ObserveKey(kmsg.Fetch, func(_ time.Time, req kmsg.Request) { observed <- req.(*kmsg.FetchRequest).SessionEpoch })
	if err != nil {
		t.Fatal(err)
	}
	if _, took := timedFetch(ctx, t, cl, fetchReq(0, -1, fetchWait, tid, false, false)); took >= fetchWait/2 {
		t.Errorf("with an observer: answered after %v, want at once", took)
	}
	if got := <-observed; got != -1 {
		t.Errorf("observer saw epoch %d, want -1", got)
	}
	oh.Remove()
	if n := b.Recorder().Count(wire.Filter{Keys: []kmsg.Key{kmsg.Fetch}}); n != 1 {
		t.Errorf("recorder: %d Fetches, want 1", n)
	}

	hold, err := b.HoldKey(kmsg.Fetch)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan time.Time, 1)
	go func() {
		_, _ = cl.Broker(0).Request(ctx, fetchReq(0, -1, fetchWait, tid, false, false))
		done <- time.Now()
	}()
	if err := hold.Wait(ctx, 1); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
		t.Fatal("a held Fetch was answered before its release")
	case <-time.After(fetchWait / 4):
	}
	released := time.Now()
	hold.Release()
	select {
	case at := <-done:
		if took := at.Sub(released); took >= fetchWait/2 {
			t.Errorf("released after %v held: answered %v after the release, want at once", fetchWait/4, took)
		}
	case <-ctx.Done():
		t.Fatal("a released Fetch was not answered")
	}

	fh, err := b.Fault(kfake.Fault{Keys: []kmsg.Key{kmsg.Fetch}, Err: kerr.NotLeaderForPartition, TopLevel: true, Count: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Remove()
	if resp, took := timedFetch(ctx, t, cl, fetchReq(0, -1, fetchWait, tid, false, false)); resp.ErrorCode != kerr.NotLeaderForPartition.Code || took >= fetchWait/2 {
		t.Errorf("with a fault: %s after %v, want NOT_LEADER_OR_FOLLOWER at once", kerr.ErrorForCode(resp.ErrorCode), took)
	}
}

// TestFetchWithNothingToReadControlDoesNotAllocate: the control runs for
// every Fetch.
func TestFetchWithNothingToReadControlDoesNotAllocate(t *testing.T) {
	b := startBroker(t, Config{Brokers: 1, Topics: map[string]int32{"t": 1}})
	tid := topicID(t, b, "t")
	reqs := []*kmsg.FetchRequest{
		fetchReq(0, 0, fetchWait, tid, true, false),   // something to read
		fetchReq(5, 3, fetchWait, tid, false, true),   // a session not tracked
		fetchReq(5, -1, fetchWait, tid, false, false), // a close: lowered
	}
	for _, r := range reqs {
		r.Version = 13 // as kfake reads it off the wire
	}
	if n := testing.AllocsPerRun(100, func() {
		for _, r := range reqs {
			b.fetchNothingToRead(r)
		}
	}); n != 0 {
		t.Errorf("the control allocates %v times per run", n)
	}
	if reqs[0].MaxWaitMillis == 0 || reqs[1].MaxWaitMillis == 0 || reqs[2].MaxWaitMillis != 0 {
		t.Errorf("MaxWaitMillis after the control: %d, %d, %d; want only the close's lowered to 0", reqs[0].MaxWaitMillis, reqs[1].MaxWaitMillis, reqs[2].MaxWaitMillis)
	}
}
