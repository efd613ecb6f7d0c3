package share

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/suite"
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
