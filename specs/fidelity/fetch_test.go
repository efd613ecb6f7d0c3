package fidelity

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/suite"
)

// nothingToReadWait is the MaxWaitMillis of the Fetches that leave nothing
// to read: long enough that an answer before half of it is an answer that
// did not wait.
const nothingToReadWait = 2000 * time.Millisecond

// fetchAnswer is a Fetch answer as compared: its top-level error, its
// session id and how long it took.
type fetchAnswer struct {
	Error   string
	Session int32
	Took    time.Duration
}

// sessionFetch returns a Fetch in session id at epoch with MaxWaitMillis
// wait, naming partition 0 of the topic with tid (at offset 0) when name is
// set and forgetting it when forget is set.
func sessionFetch(id, epoch int32, wait time.Duration, topic string, tid [16]byte, name, forget bool) *kmsg.FetchRequest {
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID, req.MinBytes, req.MaxBytes = -1, 1, 1<<20
	req.MaxWaitMillis = int32(wait.Milliseconds())
	req.SessionID, req.SessionEpoch = id, epoch
	if name {
		t := kmsg.NewFetchRequestTopic()
		t.Topic, t.TopicID = topic, tid
		fp := kmsg.NewFetchRequestTopicPartition()
		fp.PartitionMaxBytes, fp.CurrentLeaderEpoch, fp.LogStartOffset = 1<<20, -1, -1
		t.Partitions = append(t.Partitions, fp)
		req.Topics = append(req.Topics, t)
	}
	if forget {
		req.ForgottenTopics = append(req.ForgottenTopics, kmsg.FetchRequestForgottenTopic{Topic: topic, TopicID: tid, Partitions: []int32{0}})
	}
	return req
}

// timedFetch sends req to node and returns its answer and how long it took.
func timedFetch(ctx context.Context, p *probe, node int32, req *kmsg.FetchRequest) fetchAnswer {
	GinkgoHelper()
	start := time.Now()
	resp := p.send(ctx, node, newest, req).(*kmsg.FetchResponse)
	return fetchAnswer{errName(resp.ErrorCode), resp.SessionID, time.Since(start)}
}

// openSession opens a fetch session on node holding partition 0 of topic
// with a full Fetch that does not wait, again while the new topic's leader
// is not ready, and returns its id.
func openSession(ctx context.Context, p *probe, node int32, topic string, tid [16]byte) int32 {
	GinkgoHelper()
	var id int32
	Eventually(ctx, func(g Gomega) {
		resp := p.send(ctx, node, newest, sessionFetch(0, 0, 0, topic, tid, true, false)).(*kmsg.FetchResponse)
		g.Expect(resp.ErrorCode).To(BeZero(), "Fetch opening a session: %s", errName(resp.ErrorCode))
		g.Expect(resp.Topics).To(HaveLen(1))
		g.Expect(resp.Topics[0].Partitions).To(HaveLen(1))
		g.Expect(resp.Topics[0].Partitions[0].ErrorCode).To(BeZero(), "Fetch opening a session, partition 0: %s", errName(resp.Topics[0].Partitions[0].ErrorCode))
		g.Expect(resp.SessionID).To(BeNumerically(">", 0), "Fetch with epoch 0: the broker opened no session")
		id = resp.SessionID
	}).WithTimeout(harness.WaitTimeout).WithPolling(100 * harness.PollInterval).Should(Succeed())
	return id
}

var _ = Describe("Fetch", func() {
	It("answers a Fetch that leaves no partition to read at once, not after its MaxWait: a session close, a sessionless or full Fetch naming no partition, an incremental Fetch forgetting the last partition of its session",
		spec("fidelity.fetch-nothing-to-read", itemFidelity), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			_, p, topic := startTopic(ctx, "fid-fetch", 1)
			node, tid := p.node(ctx), p.topicID(ctx, topic)
			bound := nothingToReadWait / 2
			answers := map[string]fetchAnswer{}
			ask := func(name string, req *kmsg.FetchRequest) {
				a := timedFetch(ctx, p, node, req)
				answers[name] = a
				suite.Figure("answered_"+name, float64(a.Took.Microseconds())/1000, "ms", fmt.Sprintf("< %d ms (half the request's MaxWait %d ms)", bound.Milliseconds(), nothingToReadWait.Milliseconds()))
				suite.Note("answer_"+name, fmt.Sprintf("%+v", a))
			}

			By("closing a session: epoch -1 with its id, no partitions")
			ask("session_close", sessionFetch(openSession(ctx, p, node, topic, tid), -1, nothingToReadWait, topic, tid, false, false))
			By("a sessionless Fetch naming no partition: id 0, epoch -1")
			ask("sessionless", sessionFetch(0, -1, nothingToReadWait, topic, tid, false, false))
			By("a full Fetch naming no partition: id 0, epoch 0")
			ask("full", sessionFetch(0, 0, nothingToReadWait, topic, tid, false, false))
			By("an incremental Fetch forgetting the only partition of its session")
			ask("forget_all", sessionFetch(openSession(ctx, p, node, topic, tid), 1, nothingToReadWait, topic, tid, false, true))

			for _, name := range []string{"session_close", "sessionless", "full", "forget_all"} {
				a := answers[name]
				Expect(a.Error).To(Equal("NONE"), "%s: the answer's error", name)
				Expect(a.Took).To(BeNumerically("<", bound), "%s: answered after %v; Kafka answers a Fetch with nothing to read at once, not after its MaxWait (%v)", name, a.Took, nothingToReadWait)
			}
			Expect(answers["session_close"].Session).To(BeZero(), "session close: the answer opens no session")
			Expect(answers["sessionless"].Session).To(BeZero(), "sessionless Fetch: the answer opens no session")
		})
})
