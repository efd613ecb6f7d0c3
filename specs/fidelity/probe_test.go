package fidelity

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kreactor/kreactor/catalogue"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/suite"
)

// Catalogue items the suite covers: FIDELITY, and the known differences
// (items excluded on a target).
const (
	itemFidelity         = "FIDELITY"
	itemShareBatches     = "FIDELITY-SHARE-BATCHES"
	itemHeartbeatUnknown = "FIDELITY-HEARTBEAT-UNKNOWN-GROUP"
	itemStopLastBroker   = "FIDELITY-STOP-LAST-BROKER"
)

// labelKnownDifference marks the specs of items some target is excluded
// from (ginkgo --label-filter='!known-difference' leaves them out).
const labelKnownDifference = "known-difference"

// probeClientID is the client id of every probe request.
const probeClientID = "kreactor-fidelity-probe"

// newest sends a request at the newest version both sides know.
const newest int16 = -1

// spec returns the report labels of a probe covering item.
func spec(id, item string) Labels {
	return suite.Spec(id, []string{item}, subject.Name(), target.Name())
}

// startCluster starts the one-broker cluster every probe uses (one pooled
// real cluster serves the whole suite on the kafka target) with topics, and
// a probe of it.
func startCluster(ctx context.Context, topics map[string]int32) (harness.Cluster, *probe) {
	GinkgoHelper()
	cl := suite.StartCluster(ctx, target, harness.TargetConfig{Brokers: 1, Topics: topics})
	return cl, newProbe(cl)
}

// startTopic is startCluster with one topic of partitions, named after
// prefix (suite.UniqueName); it returns the topic's name too.
func startTopic(ctx context.Context, prefix string, partitions int32) (harness.Cluster, *probe, string) {
	GinkgoHelper()
	topic := suite.UniqueName(prefix)
	cl, p := startCluster(ctx, map[string]int32{topic: partitions})
	return cl, p, topic
}

// probe sends raw requests to one cluster and returns exactly what a broker
// answered: each request goes to the broker named, at the version pinned,
// through kgo's Broker.Request (no retry, no sharding, no merging).
type probe struct {
	cl harness.Cluster

	mu      sync.Mutex
	clients map[[2]int16]*kgo.Client // guarded by mu; by (key, pinned version)
}

// newProbe returns a probe of cl; the spec's cleanup closes its clients.
func newProbe(cl harness.Cluster) *probe {
	p := &probe{cl: cl, clients: map[[2]int16]*kgo.Client{}}
	DeferCleanup(p.close)
	return p
}

func (p *probe) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.clients {
		c.Close()
	}
}

// client returns the client that sends key at version v (newest: the
// newest both sides know), with the cluster's metadata loaded so Broker(id)
// knows every node.
func (p *probe) client(ctx context.Context, key kmsg.Key, v int16) *kgo.Client {
	GinkgoHelper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := p.clients[[2]int16{int16(key), v}]; c != nil {
		return c
	}
	vs := kversion.Stable()
	if v != newest {
		vs.SetMaxKeyVersion(int16(key), v)
	}
	c, err := kgo.NewClient(kgo.SeedBrokers(p.cl.Addrs()...), kgo.ClientID(probeClientID), kgo.MaxVersions(vs))
	Expect(err).NotTo(HaveOccurred())
	_, err = c.Request(ctx, kmsg.NewPtrMetadataRequest())
	Expect(err).NotTo(HaveOccurred(), "probe client: first metadata")
	p.clients[[2]int16{int16(key), v}] = c
	return c
}

// send sends req to node at version v and returns the answer, failing the
// spec if the broker cannot answer at v.
func (p *probe) send(ctx context.Context, node int32, v int16, req kmsg.Request) kmsg.Response {
	GinkgoHelper()
	resp, err := p.trySend(ctx, node, v, req)
	Expect(err).NotTo(HaveOccurred(), "%s v%d to node %d", kmsg.NameForKey(req.Key()), v, node)
	return resp
}

// trySend is send returning the transport error.
func (p *probe) trySend(ctx context.Context, node int32, v int16, req kmsg.Request) (kmsg.Response, error) {
	GinkgoHelper()
	resp, err := p.client(ctx, kmsg.Key(req.Key()), v).Broker(int(node)).Request(ctx, req)
	if err != nil {
		return nil, err
	}
	if v != newest {
		Expect(resp.GetVersion()).To(Equal(v), "%s: the broker answered v%d, not the pinned v%d (it does not support it)", kmsg.NameForKey(req.Key()), resp.GetVersion(), v)
	}
	return resp, nil
}

// metadata returns the cluster's metadata for topics from any broker.
func (p *probe) metadata(ctx context.Context, topics ...string) *kmsg.MetadataResponse {
	GinkgoHelper()
	resp, err := p.tryMetadata(ctx, topics...)
	Expect(err).NotTo(HaveOccurred(), "Metadata")
	for _, t := range resp.Topics {
		Expect(t.ErrorCode).To(BeZero(), "Metadata for %v: %v", t.Topic, kerr.ErrorForCode(t.ErrorCode))
	}
	return resp
}

// tryMetadata is metadata with the request's error returned, not failed:
// for a poll while brokers stop (the broker asked may be the one stopping,
// which on real Kafka closes the connection during ApiVersions).
func (p *probe) tryMetadata(ctx context.Context, topics ...string) (*kmsg.MetadataResponse, error) {
	req := kmsg.NewPtrMetadataRequest()
	for _, t := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, rt)
	}
	return req.RequestWith(ctx, p.client(ctx, kmsg.Metadata, newest))
}

// topicID returns topic's id from Metadata.
func (p *probe) topicID(ctx context.Context, topic string) [16]byte {
	GinkgoHelper()
	md := p.metadata(ctx, topic)
	Expect(md.Topics).To(HaveLen(1))
	return md.Topics[0].TopicID
}

// node returns the (only) broker's node id.
func (p *probe) node(ctx context.Context) int32 {
	GinkgoHelper()
	md := p.metadata(ctx)
	Expect(md.Brokers).NotTo(BeEmpty())
	return md.Brokers[0].NodeID
}

// coordinator returns the node of key's group coordinator, asking until
// FindCoordinator names one (a real broker creates __consumer_offsets on
// the first lookup and answers COORDINATOR_NOT_AVAILABLE meanwhile).
func (p *probe) coordinator(ctx context.Context, key string) int32 {
	GinkgoHelper()
	node := p.node(ctx)
	var coord int32
	Eventually(ctx, func(g Gomega) {
		req := kmsg.NewPtrFindCoordinatorRequest()
		req.CoordinatorKeys = []string{key}
		resp := p.send(ctx, node, newest, req).(*kmsg.FindCoordinatorResponse)
		g.Expect(resp.Coordinators).To(HaveLen(1))
		c := resp.Coordinators[0]
		g.Expect(c.ErrorCode).To(BeZero(), "FindCoordinator(%s): %v", key, kerr.ErrorForCode(c.ErrorCode))
		coord = c.NodeID
	}).WithTimeout(harness.WaitTimeout).WithPolling(100 * harness.PollInterval).Should(Succeed())
	return coord
}

// toCoordinator sends req, a group request, to group's coordinator at
// version v, again while the coordinator is still loading the group's
// partition (NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS, as every
// client does after a broker starts); code extracts the answer's
// group-level error.
func (p *probe) toCoordinator(ctx context.Context, group string, v int16, req kmsg.Request, code func(kmsg.Response) int16) kmsg.Response {
	GinkgoHelper()
	coord := p.coordinator(ctx, group)
	var resp kmsg.Response
	Eventually(ctx, func() int16 {
		resp = p.send(ctx, coord, v, req)
		return code(resp)
	}).WithTimeout(harness.WaitTimeout).WithPolling(100*harness.PollInterval).
		ShouldNot(BeElementOf(kerr.NotCoordinator.Code, kerr.CoordinatorLoadInProgress.Code), "%s for %s: the coordinator kept loading", kmsg.NameForKey(req.Key()), group)
	return resp
}

// groupListed reports whether the broker lists group (ListGroups, every
// type and state): whether the group exists as the coordinator sees it.
func (p *probe) groupListed(ctx context.Context, group string) bool {
	GinkgoHelper()
	resp := p.send(ctx, p.node(ctx), newest, kmsg.NewPtrListGroupsRequest()).(*kmsg.ListGroupsResponse)
	Expect(resp.ErrorCode).To(BeZero(), "ListGroups: %s", errName(resp.ErrorCode))
	for _, g := range resp.Groups {
		if g.Group == group {
			return true
		}
	}
	return false
}

// excluded returns the catalogue's reason when item excludes the target.
func excluded(item string) (string, bool) {
	GinkgoHelper()
	cat, err := catalogue.Load()
	Expect(err).NotTo(HaveOccurred())
	it, ok := cat.Lookup(item)
	Expect(ok).To(BeTrue(), "catalogue item %s", item)
	return it.Excluded(target.Name())
}

// kafkaAnswers asserts that actual, the target's answer, is Kafka 4.4's (m)
// for catalogue item. On a target the item excludes, a differing answer is
// the known difference: the spec is skipped with the answer measured; an
// answer Kafka would give fails the spec, so the exclusion is removed.
func kafkaAnswers(item string, actual any, m types.GomegaMatcher, what string) {
	GinkgoHelper()
	reason, known := excluded(item)
	if !known {
		Expect(actual).To(m, what)
		return
	}
	if ok, err := m.Match(actual); err == nil && ok {
		Fail(fmt.Sprintf("%s: %s now answers as Kafka 4.4 does (%v), but the catalogue excludes %s there (%s): remove the exclusion", what, target.Name(), actual, item, reason))
	}
	suite.Note("known_difference", fmt.Sprintf("%s: %v", what, actual))
	Skip(fmt.Sprintf("catalogue %s excludes target %s: %s. Measured: %s: %v", item, target.Name(), reason, what, actual))
}

// memberID returns a client-generated member id (KIP-1082: 22 URL-safe
// base64 characters, as the Java client makes them).
func memberID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// errName renders a Kafka error code by its protocol name ("NONE" for 0),
// for answers compared and noted.
func errName(code int16) string {
	if code == 0 {
		return "NONE"
	}
	if e, ok := kerr.ErrorForCode(code).(*kerr.Error); ok {
		return e.Message
	}
	return fmt.Sprint(code)
}
