package properties

// P3: observations are applied by the single state owner, each against the
// state version (and member epoch) that produced its request, so a stale
// answer never overwrites newer state.
//
// The first specs drive the real managers on a core of their own, as the
// result-kinds table does (no network, no loop; rig in
// result_kinds_test.go): build a
// request, change the state it was built from (revoke or reassign the
// partition, leave the group, take a newer epoch), then deliver the answer
// and check that the newer state stands. They say nothing about a subject,
// so they run on the reference subject only.
//
// The last spec is black-box, on kfake: an OffsetCommit the broker acts on
// only after the member was fenced (its session timed out while the commit,
// and the heartbeats queued behind it on the connection, were delayed) must
// be refused, and the consumer must end with the newer member epoch it
// rejoined with and with committed offsets that are exactly what it last
// committed successfully.

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/consume"
	"github.com/kreactor/kreactor/harness/suite"
	"github.com/kreactor/kreactor/managers"
	"github.com/kreactor/kreactor/managers/group"
	"github.com/kreactor/kreactor/reactor"
)

const (
	// staleRecords is how many records a stale Fetch answer carries.
	staleRecords = 5
	// newPosition is the position a reassigned partition gets, far from
	// the stale request's.
	newPosition = 50
	// staleCommitted is the committed offset a stale OffsetFetch answer
	// carries.
	staleCommitted = 42

	// fenceSessionTimeout is the member session timeout of the black-box
	// spec's cluster; fenceCommitDelay delays the OffsetCommit (and the
	// heartbeats queued behind it) past it, so the broker fences the
	// member before it acts on the commit.
	fenceSessionTimeout = time.Second
	fenceCommitDelay    = 2500 * time.Millisecond
	fenceRecords        = 60
	fenceMoreRecords    = 30
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// recordBatch encodes n records at offsets base.. as one v2 record batch
// with a valid length and CRC, as a broker would return it in a Fetch.
func recordBatch(base int64, n int) []byte {
	var recs []byte
	for i := range n {
		r := kmsg.Record{OffsetDelta: int32(i), Value: fmt.Appendf(nil, "stale-%d", base+int64(i))}
		r.Length = int32(len(r.AppendTo(nil)) - 1) // everything after the (1-byte, zero) length
		recs = r.AppendTo(recs)
	}
	b := kmsg.RecordBatch{FirstOffset: base, PartitionLeaderEpoch: 1, Magic: 2, LastOffsetDelta: int32(n - 1),
		ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1, NumRecords: int32(n), Records: recs}
	b.Length = int32(len(b.AppendTo(nil)) - 12) // after FirstOffset and Length
	raw := b.AppendTo(nil)
	b.CRC = int32(crc32.Checksum(raw[21:], castagnoli))
	return b.AppendTo(nil)
}

// fetchAnswer is a Fetch response for rigTP: n records from base, or the
// partition error code.
func fetchAnswer(base int64, n int, code int16) *kmsg.FetchResponse {
	resp := kmsg.NewPtrFetchResponse()
	t := kmsg.NewFetchResponseTopic()
	t.Topic, t.TopicID = rigTopic, rigTopicID
	p := kmsg.NewFetchResponseTopicPartition()
	p.Partition, p.ErrorCode = rigTP.Partition, code
	p.HighWatermark, p.LastStableOffset, p.LogStartOffset = base+int64(n), base+int64(n), 0
	if n > 0 {
		p.RecordBatches = recordBatch(base, n)
	}
	t.Partitions = append(t.Partitions, p)
	resp.Topics = append(resp.Topics, t)
	return resp
}

// offsetFetchAnswer is an OffsetFetch v8+ response committing offset for
// rigTP.
func offsetFetchAnswer(offset int64) *kmsg.OffsetFetchResponse {
	resp := kmsg.NewPtrOffsetFetchResponse()
	g := kmsg.NewOffsetFetchResponseGroup()
	g.Group = rigGroup
	t := kmsg.NewOffsetFetchResponseGroupTopic()
	t.Topic = rigTopic
	p := kmsg.NewOffsetFetchResponseGroupTopicPartition()
	p.Partition, p.Offset, p.LeaderEpoch = rigTP.Partition, offset, -1
	t.Partitions = append(t.Partitions, p)
	g.Topics = append(g.Topics, t)
	resp.Groups = append(resp.Groups, g)
	return resp
}

// heartbeatAnswer is a successful ConsumerGroupHeartbeat response with
// epoch, assigning rigTP.
func heartbeatAnswer(r *rig, epoch int32) *kmsg.ConsumerGroupHeartbeatResponse {
	resp := kmsg.NewPtrConsumerGroupHeartbeatResponse()
	resp.MemberID = kmsg.StringPtr(r.member.MemberID())
	resp.MemberEpoch = epoch
	resp.HeartbeatIntervalMillis = int32(rigInterval.Milliseconds())
	a := kmsg.NewConsumerGroupHeartbeatResponseAssignment()
	at := kmsg.NewConsumerGroupHeartbeatResponseAssignmentTopic()
	at.TopicID, at.Partitions = rigTopicID, []int32{rigTP.Partition}
	a.Topics = append(a.Topics, at)
	resp.Assignment = &a
	return resp
}

// assign sets the rig's manual assignment to tps at a new assignment
// version and lets the fetch manager adopt it.
func (r *rig) assign(version uint64, tps ...managers.TopicPartition) group.View {
	r.assigned = tps
	v := r.view()
	v.Assignment, v.AssignmentVersion = tps, version
	r.pollView(r.fetch, v)
	return v
}

// needsPosition reports whether rigTP is waiting for a position.
func needsPosition(f *group.Fetch) (group.PositionNeed, bool) {
	for _, n := range f.NeedingPosition() {
		if n.TP == rigTP {
			return n, true
		}
	}
	return group.PositionNeed{}, false
}

// staleFetch leaves the rig with a Fetch for rigTP at position 0 in flight
// and returns it.
func staleFetch(r *rig) *reactor.Request {
	GinkgoHelper()
	r.learnTopic()
	v := r.assign(1, rigTP)
	n, ok := needsPosition(r.fetch)
	Expect(ok).To(BeTrue(), "partition needs a position after assignment")
	Expect(r.fetch.SetPosition(rigTP, managers.Position{Offset: 0, LeaderEpoch: -1}, n.Gen)).To(BeTrue())
	return sent(r.pollView(r.fetch, v))
}

// reassignAt revokes rigTP and assigns it again with position pos (from a
// fresh OffsetFetch, say), as a rebalance or Assign(none); Assign(tp) would.
func reassignAt(r *rig, pos int64) {
	GinkgoHelper()
	r.assign(2)
	r.assign(3, rigTP)
	n, ok := needsPosition(r.fetch)
	Expect(ok).To(BeTrue(), "reassigned partition needs a position")
	Expect(r.fetch.SetPosition(rigTP, managers.Position{Offset: pos, LeaderEpoch: -1}, n.Gen)).To(BeTrue(), "position of the reassigned partition")
}

// staleOffsetFetch leaves the rig with an OffsetFetch for rigTP in flight
// (coordinator known, manual assignment) and returns it.
func staleOffsetFetch(r *rig) *reactor.Request {
	GinkgoHelper()
	r.findCoordinator()
	r.learnTopic()
	v := r.assign(1, rigTP)
	res := r.pollView(r.offsets, v)
	return sent(res)
}

// positionOf returns rigTP's fetch position as the consumed positions show
// it right after SetPosition, or false if it has none.
func positionOf(f *group.Fetch) (managers.Position, bool) {
	if _, needs := needsPosition(f); needs {
		return managers.Position{}, false
	}
	pos, ok := f.Consumed()[rigTP]
	return pos, ok
}

var _ = Describe("Stale observations", func() {
	Context("applied to the managers directly", func() {
		BeforeEach(func() { suite.OnReferenceOnly(subject, "the managers on a core of the spec's own") })

		It("ignores a Fetch answer for a partition revoked since the request was built",
			suite.Spec("stale-observations.fetch-after-revoke", []string{"P3"}, subject.Name(), target.Name()),
			func() {
				r := newRig(false)
				req := staleFetch(r)
				r.assign(2) // revoked
				r.complete(req, fetchAnswer(0, staleRecords, 0), nil)
				suite.Figure("records_buffered", float64(r.fetch.Buffered()), "records", "== 0")
				Expect(r.fetch.Buffered()).To(BeZero(), "records of a revoked partition buffered from a stale Fetch answer")
				Expect(r.fetch.TakeErrors()).To(BeEmpty(), "errors from a stale Fetch answer")
			})

		It("ignores a Fetch answer, records or OFFSET_OUT_OF_RANGE, for a partition reassigned at a new position since the request was built",
			suite.Spec("stale-observations.fetch-after-reposition", []string{"P3"}, subject.Name(), target.Name()),
			func() {
				for _, answer := range []struct {
					name string
					resp *kmsg.FetchResponse
				}{
					{"records from the old position", fetchAnswer(0, staleRecords, 0)},
					{"OFFSET_OUT_OF_RANGE", fetchAnswer(0, 0, kerr.OffsetOutOfRange.Code)},
				} {
					By("answering with " + answer.name)
					r := newRig(false)
					req := staleFetch(r)
					reassignAt(r, newPosition)
					r.complete(req, answer.resp, nil)
					pos, ok := positionOf(r.fetch)
					Expect(ok).To(BeTrue(), "the reassigned partition lost its position to a stale answer (%s)", answer.name)
					Expect(pos.Offset).To(BeEquivalentTo(newPosition), "position after a stale answer (%s)", answer.name)
					Expect(r.fetch.Buffered()).To(BeZero(), "records buffered from a stale answer (%s)", answer.name)
				}
			})

		// Generations are unique per Fetch manager, so a request built for
		// an earlier assignment of the same partition, even at the same
		// position, cannot match (no ABA on the state version).
		It("ignores a Fetch answer for a partition reassigned since the request was built, even at the same position",
			suite.Spec("stale-observations.fetch-after-reassign-same-position", []string{"P3"}, subject.Name(), target.Name()),
			func() {
				r := newRig(false)
				req := staleFetch(r)
				reassignAt(r, 0)
				r.complete(req, fetchAnswer(0, staleRecords, 0), nil)
				Expect(r.fetch.Buffered()).To(BeZero(), "records buffered for the new assignment from a Fetch built for the old one")
			})

		It("does not let a heartbeat answer that arrives after Leave started resurrect the member",
			suite.Spec("stale-observations.heartbeat-after-leave", []string{"P3"}, subject.Name(), target.Name()),
			func() {
				r := newRig(false)
				r.findCoordinator()
				r.learnTopic()
				r.join()
				r.advance(rigInterval)
				req := sent(r.poll(r.member))
				epochBefore := r.member.Epoch()

				r.member.Leave()
				Expect(r.member.State()).To(Equal(managers.MemberLeaving))
				r.complete(req, heartbeatAnswer(r, epochBefore+1), nil)

				owned, _ := r.member.Owned()
				suite.Note("state_after_stale_answer", r.member.State().String())
				Expect(r.member.State()).To(Equal(managers.MemberLeaving), "member state after a heartbeat answer from before Leave")
				Expect(r.member.Epoch()).To(Equal(epochBefore), "member epoch after a heartbeat answer from before Leave")
				Expect(owned).To(BeEmpty(), "assignment after a heartbeat answer from before Leave")

				By("the next poll sends the leave heartbeat, with epoch -1")
				leave := sent(r.poll(r.member))
				hb, ok := leave.Payload.(*managers.Call).Req.(*kmsg.ConsumerGroupHeartbeatRequest)
				Expect(ok).To(BeTrue(), "payload of the membership request")
				Expect(hb.MemberEpoch).To(BeEquivalentTo(-1), "member epoch of the request after Leave")
				owned, _ = r.member.Owned()
				Expect(owned).To(BeEmpty(), "assignment adopted from the stale answer's target")
			})

		It("does not lower the member epoch on a heartbeat answer carrying an older epoch than the one already taken",
			suite.Spec("stale-observations.older-member-epoch", []string{"P3"}, subject.Name(), target.Name()),
			func() {
				r := newRig(false)
				r.findCoordinator()
				r.learnTopic()
				r.join()
				const newer, older = 5, 3
				r.advance(rigInterval)
				r.complete(sent(r.poll(r.member)), heartbeatAnswer(r, newer), nil)
				Expect(r.member.Epoch()).To(BeEquivalentTo(newer), "epoch taken from the newer answer")
				r.advance(rigInterval)
				r.complete(sent(r.poll(r.member)), heartbeatAnswer(r, older), nil)
				suite.Figure("member_epoch", float64(r.member.Epoch()), "", fmt.Sprintf("== %d", newer))
				Expect(r.member.Epoch()).To(BeEquivalentTo(newer), "member epoch after an answer with the older epoch %d", older)
				Expect(r.member.State()).To(Equal(managers.MemberStable))
			})

		It("ignores an OffsetFetch answer for a partition revoked since the request was built",
			suite.Spec("stale-observations.offset-fetch-after-revoke", []string{"P3"}, subject.Name(), target.Name()),
			func() {
				r := newRig(false)
				req := staleOffsetFetch(r)
				r.assign(2)
				r.complete(req, offsetFetchAnswer(staleCommitted), nil)
				r.assign(3, rigTP)
				_, needs := needsPosition(r.fetch)
				Expect(needs).To(BeTrue(), "the partition, assigned again, must still need a position: the stale committed offset %d must not be its position", staleCommitted)
			})

		// A member that lost a partition and got it back must not resume
		// from an offset fetched for the earlier assignment (duplicates).
		It("ignores an OffsetFetch answer for a partition whose generation changed (revoked and reassigned) since the request was built",
			suite.Spec("stale-observations.offset-fetch-after-reassign", []string{"P3"}, subject.Name(), target.Name()),
			func() {
				r := newRig(false)
				req := staleOffsetFetch(r)
				r.assign(2)
				r.assign(3, rigTP)
				r.complete(req, offsetFetchAnswer(staleCommitted), nil)
				_, needs := needsPosition(r.fetch)
				Expect(needs).To(BeTrue(), "the reassigned partition took the committed offset %d from an OffsetFetch built for its previous assignment", staleCommitted)
			})
	})

	It("refuses an OffsetCommit the broker acts on after the member was fenced; the consumer ends on the newer epoch with consistent committed offsets",
		suite.Spec("stale-observations.commit-across-fence", []string{"P3"}, subject.Name(), target.Name()),
		SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			const topic = "invoices"
			cl := suite.StartCluster(ctx, target, harness.TargetConfig{Brokers: 1, Topics: map[string]int32{topic: 3}, SessionTimeout: fenceSessionTimeout})
			groupID, clientID := suite.UniqueName("p3-fence"), suite.UniqueName("p3-fence-client")
			c := suite.NewConsumer(subject, suite.ConsumerConfig(cl, groupID, clientID))
			// The member epoch is the consumer's own state: read from its
			// snapshot, n/a for a black-box subject (the commits the
			// brokers kept still decide).
			probe, probed := suite.RequireProbe(c, "member_epoch")

			By(fmt.Sprintf("consuming and committing %d records", fenceRecords))
			counts, err := cl.Produce(ctx, topic, fenceRecords, nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(c.Subscribe(topic)).To(Succeed())
			wctx, cancel := context.WithTimeout(ctx, harness.WaitTimeout)
			defer cancel()
			recs, _, err := consume.PollUntil(wctx, c, fenceRecords)
			Expect(err).NotTo(HaveOccurred(), "consuming\n%s", harness.Diagnose(c))
			first, err := consume.CheckDelivery(recs, consume.Partitions(topic, counts), nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(c.CommitSync(ctx)).To(Succeed())
			var epochBefore int32
			if probed {
				before := probe.Snapshot()
				Expect(before.MemberState).To(Equal(managers.MemberStable))
				epochBefore = before.MemberEpoch
			}

			By(fmt.Sprintf("consuming %d more, then committing with the OffsetCommit delayed %s, past the %s session timeout", fenceMoreRecords, fenceCommitDelay, fenceSessionTimeout))
			counts, err = cl.Produce(ctx, topic, fenceMoreRecords, nil)
			Expect(err).NotTo(HaveOccurred())
			recs, _, err = consume.PollUntil(wctx, c, fenceMoreRecords)
			Expect(err).NotTo(HaveOccurred(), "consuming more\n%s", harness.Diagnose(c))
			_, err = consume.CheckDelivery(recs, consume.Partitions(topic, counts), first.Next)
			Expect(err).NotTo(HaveOccurred())
			fault, err := cl.Inject(ctx, harness.FaultSpec{Kind: harness.FaultDelay, Key: kmsg.OffsetCommit, Delay: fenceCommitDelay})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(fault.Heal)
			cctx, ccancel := context.WithTimeout(ctx, harness.WaitTimeout)
			defer ccancel()
			start := time.Now()
			commitErr := c.CommitSync(cctx)
			took := time.Since(start)
			fault.Heal() // the consumer does not retry a commit refused for an unknown member: one OffsetCommit was delayed
			suite.Figure("delayed_commit_took", float64(took.Milliseconds()), "ms", fmt.Sprintf(">= %d ms", fenceCommitDelay.Milliseconds()))
			suite.Note("delayed_commit_error", fmt.Sprint(commitErr))
			Expect(harness.IsCommitFailure(commitErr)).To(BeTrue(), "CommitSync of a commit the broker refused: want a commit failure (*group.CommitError; Java's CommitFailedException), got %v", commitErr)
			Expect(errors.Is(commitErr, kerr.UnknownMemberID) || errors.Is(commitErr, kerr.StaleMemberEpoch) || errors.Is(commitErr, kerr.FencedMemberEpoch)).
				To(BeTrue(), "the refused commit's cause: want UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH or FENCED_MEMBER_EPOCH, got %v", commitErr)
			gi, err := cl.GroupInfo(ctx, groupID)
			Expect(err).NotTo(HaveOccurred())
			Expect(gi.Commits).To(Equal(first.Next), "committed offsets after the refused commit: the stale commit must not have landed")
			Expect(fault.Hits()).To(Equal(1), "OffsetCommit requests the broker delayed: the consumer must not retry a commit the coordinator refused for an unknown member")

			var epochAfter int32
			if probed {
				By("rejoining: the member takes a newer epoch")
				Eventually(ctx, func(g Gomega) {
					s := probe.Snapshot()
					g.Expect(s.MemberState).To(Equal(managers.MemberStable))
					g.Expect(s.MemberEpoch).To(BeNumerically(">", epochBefore))
					g.Expect(s.Assignment).To(HaveLen(3))
				}).WithTimeout(harness.WaitTimeout).WithPolling(harness.PollInterval).Should(Succeed(), "a stable member with a newer epoch than %d\n%s", epochBefore, harness.Diagnose(c))
				epochAfter = probe.Snapshot().MemberEpoch
			}

			By("consuming from the committed offsets again and committing: the commit lands, the epoch stays")
			recs, _, err = consume.PollUntil(wctx, c, fenceMoreRecords)
			Expect(err).NotTo(HaveOccurred(), "consuming after the rejoin\n%s", harness.Diagnose(c))
			again, err := consume.CheckDelivery(recs, consume.Partitions(topic, counts), first.Next)
			Expect(err).NotTo(HaveOccurred(), "records after the rejoin must resume at the committed offsets")
			Expect(c.CommitSync(ctx)).To(Succeed(), "CommitSync after the rejoin\n%s", harness.Diagnose(c))
			gi, err = cl.GroupInfo(ctx, groupID)
			Expect(err).NotTo(HaveOccurred())
			Expect(gi.Commits).To(Equal(again.Next), "committed offsets after the rejoin")
			if probed {
				final := probe.Snapshot()
				suite.Figure("member_epoch_before", float64(epochBefore), "", "")
				suite.Figure("member_epoch_after", float64(final.MemberEpoch), "", fmt.Sprintf("> %d", epochBefore))
				Expect(final.MemberEpoch).To(BeNumerically(">=", epochAfter), "member epoch lowered after the rejoin")
			}
		})
})
