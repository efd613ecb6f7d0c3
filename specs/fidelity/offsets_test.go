package fidelity

import (
	"context"
	"fmt"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/suite"
)

// fetchedPart is one partition of an OffsetFetch answer, as compared: the
// topic by name (a v10 answer names it by id, mapped back here), the
// offset, leader epoch, metadata ("<null>" for null) and error.
type fetchedPart struct {
	Topic     string
	Partition int32
	Offset    int64
	Epoch     int32
	Metadata  string
	Error     string
}

// fetchedGroup is one group of an OffsetFetch answer.
type fetchedGroup struct {
	Group, Error string
	Parts        []fetchedPart
}

// offsetFetch sends an OffsetFetch at version v for groups (v1-7 carry
// only the first) asking for topic's partitions ps (by name, and by id for
// v10), or for all topics when topic is ""; member and epoch go in v9+
// requests when member is non-empty. It returns the answer per group.
func offsetFetch(ctx context.Context, p *probe, v int16, groups []string, topic string, id [16]byte, ps []int32, member string, epoch int32) []fetchedGroup {
	GinkgoHelper()
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Group = groups[0]
	if topic != "" {
		rt := kmsg.NewOffsetFetchRequestTopic()
		rt.Topic, rt.Partitions = topic, ps
		req.Topics = append(req.Topics, rt)
	}
	for _, g := range groups {
		rg := kmsg.NewOffsetFetchRequestGroup()
		rg.Group = g
		if member != "" {
			rg.MemberID, rg.MemberEpoch = kmsg.StringPtr(member), epoch
		}
		if topic != "" {
			gt := kmsg.NewOffsetFetchRequestGroupTopic()
			gt.Topic, gt.TopicID, gt.Partitions = topic, id, ps
			rg.Topics = append(rg.Topics, gt)
		}
		req.Groups = append(req.Groups, rg)
	}
	resp := p.toCoordinator(ctx, groups[0], v, req, offsetFetchCode).(*kmsg.OffsetFetchResponse)
	name := func(t string, tid [16]byte) string {
		if v >= 10 && tid == id {
			return topic
		}
		return t
	}
	part := func(t string, tid [16]byte, pt int32, off int64, ep int32, md *string, code int16) fetchedPart {
		m := "<null>"
		if md != nil {
			m = *md
		}
		return fetchedPart{Topic: name(t, tid), Partition: pt, Offset: off, Epoch: ep, Metadata: m, Error: errName(code)}
	}
	if v <= 7 {
		g := fetchedGroup{Group: groups[0], Error: errName(resp.ErrorCode)}
		for _, t := range resp.Topics {
			for _, x := range t.Partitions {
				g.Parts = append(g.Parts, part(t.Topic, [16]byte{}, x.Partition, x.Offset, x.LeaderEpoch, x.Metadata, x.ErrorCode))
			}
		}
		return []fetchedGroup{g}
	}
	var out []fetchedGroup
	for _, rg := range resp.Groups {
		g := fetchedGroup{Group: rg.Group, Error: errName(rg.ErrorCode)}
		for _, t := range rg.Topics {
			for _, x := range t.Partitions {
				g.Parts = append(g.Parts, part(t.Topic, t.TopicID, x.Partition, x.Offset, x.LeaderEpoch, x.Metadata, x.ErrorCode))
			}
		}
		out = append(out, g)
	}
	return out
}

// offsetFetchCode is an OffsetFetch answer's first group-level error or,
// without one, its first partition error: v0-v1 have no group-level error,
// so a coordinator still loading the group's offsets (Kafka's
// GroupCoordinator right after __consumer_offsets moves) answers
// COORDINATOR_LOAD_IN_PROGRESS on every partition, which toCoordinator
// must see to retry.
func offsetFetchCode(r kmsg.Response) int16 {
	resp := r.(*kmsg.OffsetFetchResponse)
	var codes []int16 // the group's error first, then its partitions'
	if resp.Version <= 7 || len(resp.Groups) == 0 {
		codes = append(codes, resp.ErrorCode)
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				codes = append(codes, p.ErrorCode)
			}
		}
	} else {
		g := resp.Groups[0]
		codes = append(codes, g.ErrorCode)
		for _, t := range g.Topics {
			for _, p := range t.Partitions {
				codes = append(codes, p.ErrorCode)
			}
		}
	}
	for _, c := range codes {
		if c != 0 {
			return c
		}
	}
	return 0
}

// offsetCommit sends an OffsetCommit at version v for group (generation or
// member epoch gen, member) committing offset on topic's partition 0 (by
// name up to v9, by id from v10) with metadata, and returns the answer.
func offsetCommit(ctx context.Context, p *probe, v int16, group string, gen int32, member, topic string, id [16]byte, offset int64, metadata string) *kmsg.OffsetCommitResponse {
	GinkgoHelper()
	req := kmsg.NewPtrOffsetCommitRequest()
	req.Group, req.Generation, req.MemberID = group, gen, member
	rt := kmsg.NewOffsetCommitRequestTopic()
	rt.Topic, rt.TopicID = topic, id
	rp := kmsg.NewOffsetCommitRequestTopicPartition()
	rp.Offset, rp.Metadata = offset, kmsg.StringPtr(metadata)
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return p.toCoordinator(ctx, group, v, req, offsetCommitCode).(*kmsg.OffsetCommitResponse)
}

// offsetCommitCode is an OffsetCommit answer's first partition error.
func offsetCommitCode(r kmsg.Response) int16 {
	resp := r.(*kmsg.OffsetCommitResponse)
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			return p.ErrorCode
		}
	}
	return 0
}

// noCommit is Kafka's answer for a partition of topic with nothing committed.
func noCommit(topic string, partition int32) fetchedPart {
	return fetchedPart{Topic: topic, Partition: partition, Offset: -1, Epoch: -1, Metadata: "", Error: "NONE"}
}

var _ = Describe("OffsetFetch and OffsetCommit", func() {
	It("answers OffsetFetch for groups that never committed with offset -1 and no error, at every version (v1-v10; v8+ with two groups; v9+ also with a member id and epoch)",
		spec("fidelity.offset-fetch-never-committed", itemFidelity), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			_, p, topic := startTopic(ctx, "fid-offsets", 2)
			id := p.topicID(ctx, topic)
			g1, g2 := suite.UniqueName("fid-never"), suite.UniqueName("fid-never")
			want := func(groups ...string) []fetchedGroup {
				var out []fetchedGroup
				for _, g := range groups {
					out = append(out, fetchedGroup{Group: g, Error: "NONE", Parts: []fetchedPart{noCommit(topic, 0), noCommit(topic, 1)}})
				}
				return out
			}
			for v := int16(1); v <= 10; v++ {
				groups := []string{g1}
				if v >= 8 {
					groups = append(groups, g2)
				}
				By(fmt.Sprintf("OffsetFetch v%d for %d group(s)", v, len(groups)))
				got := offsetFetch(ctx, p, v, groups, topic, id, []int32{0, 1}, "", -1)
				suite.Note(fmt.Sprintf("answer_v%d", v), fmt.Sprint(got))
				Expect(got).To(Equal(want(groups...)), "OffsetFetch v%d for groups that never committed", v)

				all := offsetFetch(ctx, p, v, groups[:1], "", [16]byte{}, nil, "", -1)
				Expect(all).To(Equal([]fetchedGroup{{Group: g1, Error: "NONE"}}), "OffsetFetch v%d for all topics of a group that never committed: no error, no topics", v)

				if v >= 9 {
					got := offsetFetch(ctx, p, v, groups[:1], topic, id, []int32{0, 1}, memberID(), 3)
					Expect(got).To(Equal(want(g1)), "OffsetFetch v%d with a member id and epoch 3 for a group that does not exist", v)
				}
			}
		})

	It("answers OffsetFetch for a group with commits with the committed offset and metadata, -1 for the other partitions, by topic name up to v9 and by topic id from v10 (v8+ together with a group that never committed)",
		spec("fidelity.offset-fetch-committed", itemFidelity), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			_, p, topic := startTopic(ctx, "fid-offsets", 2)
			id := p.topicID(ctx, topic)
			group := suite.UniqueName("fid-committed")
			r := offsetCommit(ctx, p, 10, group, -1, "", topic, id, 5, "fidelity")
			Expect(offsetCommitCode(r)).To(BeZero(), "simple commit (generation -1): %s", errName(offsetCommitCode(r)))
			want := []fetchedGroup{{Group: group, Error: "NONE", Parts: []fetchedPart{
				{Topic: topic, Partition: 0, Offset: 5, Epoch: -1, Metadata: "fidelity", Error: "NONE"}, noCommit(topic, 1),
			}}}
			never := suite.UniqueName("fid-never")
			for _, v := range []int16{1, 7, 8, 9, 10} {
				groups, expect := []string{group}, want
				if v >= 8 { // one request for a group with commits and one without
					groups = append(groups, never)
					expect = append(slices.Clip(expect), fetchedGroup{Group: never, Error: "NONE", Parts: []fetchedPart{noCommit(topic, 0), noCommit(topic, 1)}})
				}
				got := offsetFetch(ctx, p, v, groups, topic, id, []int32{0, 1}, "", -1)
				suite.Note(fmt.Sprintf("answer_v%d", v), fmt.Sprint(got))
				Expect(got).To(Equal(expect), "OffsetFetch v%d after a commit of offset 5 on partition 0 of %s", v, group)
			}
			By("v10 answers by topic id, v9 by name")
			for _, v := range []int16{9, 10} {
				req := kmsg.NewPtrOffsetFetchRequest()
				rg := kmsg.NewOffsetFetchRequestGroup()
				rg.Group = group
				gt := kmsg.NewOffsetFetchRequestGroupTopic()
				gt.Topic, gt.TopicID, gt.Partitions = topic, id, []int32{0}
				rg.Topics = append(rg.Topics, gt)
				req.Groups = append(req.Groups, rg)
				resp := p.toCoordinator(ctx, group, v, req, offsetFetchCode).(*kmsg.OffsetFetchResponse)
				Expect(resp.Groups).To(HaveLen(1))
				Expect(resp.Groups[0].Topics).To(HaveLen(1))
				t := resp.Groups[0].Topics[0]
				if v == 9 {
					Expect([]any{t.Topic, t.TopicID}).To(Equal([]any{topic, [16]byte{}}), "OffsetFetch v9 names the topic, with no id")
				} else {
					Expect([]any{t.Topic, t.TopicID}).To(Equal([]any{"", id}), "OffsetFetch v10 gives the topic id (the name is not on the wire)")
				}
			}
		})

	It("answers OffsetFetch v10 for a topic id no topic has with UNKNOWN_TOPIC_ID on each partition, for a group with commits and one without",
		spec("fidelity.offset-fetch-unknown-topic-id", itemFidelity), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			_, p, topic := startTopic(ctx, "fid-offsets", 1)
			id := p.topicID(ctx, topic)
			committed, never := suite.UniqueName("fid-committed"), suite.UniqueName("fid-never")
			Expect(offsetCommitCode(offsetCommit(ctx, p, 10, committed, -1, "", topic, id, 1, ""))).To(BeZero())
			bogus := [16]byte{0xf1, 0xde, 0x11, 0x7e}
			for _, g := range []string{committed, never} {
				req := kmsg.NewPtrOffsetFetchRequest()
				rg := kmsg.NewOffsetFetchRequestGroup()
				rg.Group = g
				gt := kmsg.NewOffsetFetchRequestGroupTopic()
				gt.TopicID, gt.Partitions = bogus, []int32{0, 1}
				rg.Topics = append(rg.Topics, gt)
				req.Groups = append(req.Groups, rg)
				resp := p.toCoordinator(ctx, g, 10, req, offsetFetchCode).(*kmsg.OffsetFetchResponse)
				var parts []fetchedPart
				for _, t := range resp.Groups[0].Topics {
					Expect(t.TopicID).To(Equal(bogus))
					for _, x := range t.Partitions {
						parts = append(parts, fetchedPart{Partition: x.Partition, Offset: x.Offset, Epoch: x.LeaderEpoch, Metadata: deref(x.Metadata), Error: errName(x.ErrorCode)})
					}
				}
				suite.Note("answer_"+g, fmt.Sprint(errName(resp.Groups[0].ErrorCode), parts))
				Expect(resp.Groups[0].ErrorCode).To(BeZero(), "group error for %s", g)
				unknown := fetchedPart{Offset: -1, Epoch: -1, Metadata: "", Error: "UNKNOWN_TOPIC_ID"}
				u0, u1 := unknown, unknown
				u1.Partition = 1
				Expect(parts).To(Equal([]fetchedPart{u0, u1}), "OffsetFetch v10 of %s for an unknown topic id", g)
			}
		})

	It("answers OffsetCommit by topic name up to v9 and by topic id from v10, and a v10 commit to an unknown topic id with UNKNOWN_TOPIC_ID",
		spec("fidelity.offset-commit-name-or-id", itemFidelity), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			_, p, topic := startTopic(ctx, "fid-offsets", 1)
			id := p.topicID(ctx, topic)
			group := suite.UniqueName("fid-commit")
			type committedTopic struct {
				Topic string
				ID    [16]byte
				Error string
			}
			answer := func(r *kmsg.OffsetCommitResponse) []committedTopic {
				var out []committedTopic
				for _, t := range r.Topics {
					for _, x := range t.Partitions {
						out = append(out, committedTopic{t.Topic, t.TopicID, errName(x.ErrorCode)})
					}
				}
				return out
			}
			v9 := answer(offsetCommit(ctx, p, 9, group, -1, "", topic, id, 3, ""))
			suite.Note("answer_v9", fmt.Sprint(v9))
			Expect(v9).To(Equal([]committedTopic{{topic, [16]byte{}, "NONE"}}), "OffsetCommit v9 answers by topic name")
			v10 := answer(offsetCommit(ctx, p, 10, group, -1, "", topic, id, 4, ""))
			suite.Note("answer_v10", fmt.Sprint(v10))
			Expect(v10).To(Equal([]committedTopic{{"", id, "NONE"}}), "OffsetCommit v10 answers by topic id")
			got := offsetFetch(ctx, p, 10, []string{group}, topic, id, []int32{0}, "", -1)
			Expect(got[0].Parts).To(HaveLen(1))
			Expect(got[0].Parts[0].Offset).To(Equal(int64(4)), "the v10 commit by id landed on the topic")
			bogus := [16]byte{0xf1, 0xde, 0x11, 0x7e}
			unknown := answer(offsetCommit(ctx, p, 10, group, -1, "", "", bogus, 1, ""))
			suite.Note("answer_v10_unknown_id", fmt.Sprint(unknown))
			Expect(unknown).To(Equal([]committedTopic{{"", bogus, "UNKNOWN_TOPIC_ID"}}), "OffsetCommit v10 to an unknown topic id")
		})

	It("answers an OffsetCommit with a member epoch for a group it does not know with GROUP_ID_NOT_FOUND from v9 on (ILLEGAL_GENERATION before) and accepts one without (generation -1)",
		spec("fidelity.offset-commit-unknown-group", itemFidelity), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			_, p, topic := startTopic(ctx, "fid-offsets", 1)
			id := p.topicID(ctx, topic)
			for _, c := range []struct {
				v    int16
				gen  int32
				want string
			}{
				{8, 5, "ILLEGAL_GENERATION"},
				{9, 5, "GROUP_ID_NOT_FOUND"},
				{10, 5, "GROUP_ID_NOT_FOUND"},
				{10, -1, "NONE"},
			} {
				group := suite.UniqueName("fid-unknown")
				got := errName(offsetCommitCode(offsetCommit(ctx, p, c.v, group, c.gen, memberID(), topic, id, 1, "")))
				suite.Note(fmt.Sprintf("answer_v%d_generation_%d", c.v, c.gen), got)
				Expect(got).To(Equal(c.want), "OffsetCommit v%d with generation/epoch %d for a group the coordinator does not know", c.v, c.gen)
				Expect(p.groupListed(ctx, group)).To(Equal(c.gen < 0), "ListGroups lists the group after the commit: only a simple commit (generation -1) creates it")
			}
		})
})

func deref(s *string) string {
	if s == nil {
		return "<null>"
	}
	return *s
}
