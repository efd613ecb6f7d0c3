package share

import (
	"context"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/suite"
	"github.com/kreactor/kreactor/managers"
)

// newShareGroup starts a cluster with topic (partitions) and a share group
// reading it from the earliest offset.
func newShareGroup(ctx context.Context, topic string, partitions int32) (harness.Cluster, string) {
	GinkgoHelper()
	cl := suite.StartCluster(ctx, target, harness.TargetConfig{Brokers: 3, Topics: map[string]int32{topic: partitions}})
	group := suite.UniqueName("share")
	Expect(cl.SetGroupConfigs(ctx, group, map[string]string{"share.auto.offset.reset": "earliest"})).To(Succeed())
	return cl, group
}

// newShareConsumer builds a share consumer of the selected subject,
// subscribed to topic, closed in cleanup unless the spec closed it (n/a for
// a subject without share consumers).
func newShareConsumer(cl harness.Cluster, group, clientID, topic string) harness.ShareConsumer {
	GinkgoHelper()
	c := suite.NewShareConsumer(subject, suite.ShareConsumerConfig(cl, group, clientID))
	Expect(c.Subscribe(topic)).To(Succeed())
	return c
}

// newExplicitShareConsumer is newShareConsumer for a spec that acknowledges
// records itself: explicit acknowledgement mode on every subject
// (suite.NewExplicitShareConsumer).
func newExplicitShareConsumer(cl harness.Cluster, group, clientID, topic string) harness.ShareConsumer {
	GinkgoHelper()
	c := suite.NewExplicitShareConsumer(subject, suite.ShareConsumerConfig(cl, group, clientID))
	Expect(c.Subscribe(topic)).To(Succeed())
	return c
}

// pollShare polls until n records arrived (ack, if set, is called for each
// record before the next Poll), or fails with the diagnosis.
func pollShare(ctx context.Context, c harness.ShareConsumer, n int, ack func(consumer.ShareRecord)) []consumer.ShareRecord {
	GinkgoHelper()
	var out []consumer.ShareRecord
	deadline := time.Now().Add(harness.WaitTimeout)
	for len(out) < n {
		Expect(time.Now().Before(deadline)).To(BeTrue(), "%d of %d records after %s\n%s", len(out), n, harness.WaitTimeout, harness.Diagnose(c))
		pctx, cancel := context.WithTimeout(ctx, harness.PollSlice)
		recs, err := c.Poll(pctx)
		cancel()
		Expect(err).NotTo(HaveOccurred(), harness.Diagnose(c))
		for _, r := range recs {
			if ack != nil {
				ack(r)
			}
		}
		out = append(out, recs...)
	}
	return out
}

// ackLog collects acknowledgement callback outcomes.
type ackLog struct {
	mu       sync.Mutex
	accepted map[managers.TopicPartition][]int64
	failed   map[managers.TopicPartition][]int64
	errs     []error
}

func newAckLog(c harness.ShareConsumer) *ackLog {
	l := &ackLog{accepted: map[managers.TopicPartition][]int64{}, failed: map[managers.TopicPartition][]int64{}}
	c.SetAcknowledgementCommitCallback(func(offs map[managers.TopicPartition][]int64, err error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		for tp, os := range offs {
			if err == nil {
				l.accepted[tp] = append(l.accepted[tp], os...)
			} else {
				l.failed[tp] = append(l.failed[tp], os...)
				l.errs = append(l.errs, err)
			}
		}
	})
	return l
}

// counts returns how many offsets were reported accepted and failed, and
// how many were reported more than once.
func (l *ackLog) counts() (accepted, failed, duplicates int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	seen := map[managers.TopicPartition]map[int64]bool{}
	add := func(m map[managers.TopicPartition][]int64) int {
		n := 0
		for tp, os := range m {
			if seen[tp] == nil {
				seen[tp] = map[int64]bool{}
			}
			for _, o := range os {
				if seen[tp][o] {
					duplicates++
				}
				seen[tp][o] = true
				n++
			}
		}
		return n
	}
	return add(l.accepted), add(l.failed), duplicates
}
