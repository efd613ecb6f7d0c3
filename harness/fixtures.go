package harness

import (
	"context"
	"errors"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/kreactor/kreactor/consumer"
)

// StartCluster starts a cluster of target for the running spec and closes it
// in the spec's cleanup (after the consumers built later, since DeferCleanup
// runs in reverse order).
func StartCluster(ctx context.Context, target Target, cfg TargetConfig) Cluster {
	ginkgo.GinkgoHelper()
	cl, err := target.Start(ctx, cfg)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "start %s cluster", target.Name())
	ginkgo.DeferCleanup(cl.Close)
	return cl
}

// ConsumerConfig returns Java's defaults (consumer.DefaultConfig) pointed at
// cl, with groupID and clientID, auto.offset.reset=earliest and auto-commit
// off (specs commit explicitly, so every OffsetCommit on the wire is one
// they asked for).
func ConsumerConfig(cl Cluster, groupID, clientID string) consumer.Config {
	cfg := consumer.DefaultConfig()
	cfg.BootstrapServers = cl.Addrs()
	cfg.GroupID = groupID
	cfg.ClientID = clientID
	cfg.AutoOffsetReset = "earliest"
	cfg.EnableAutoCommit = false
	return cfg
}

// NewConsumer builds a consumer of subject for the running spec. Its cleanup
// closes it (CloseTimeout) unless the spec already did; the cleanup's Close
// error is not checked, because specs that care close explicitly.
func NewConsumer(subject Subject, cfg consumer.Config) Consumer {
	ginkgo.GinkgoHelper()
	c, err := subject.New(cfg)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "new %s consumer", subject.Name())
	ginkgo.DeferCleanup(func(sctx context.Context) {
		ctx, cancel := context.WithTimeout(sctx, CloseTimeout)
		defer cancel()
		if err := c.Close(ctx); err != nil && !errors.Is(err, consumer.ErrClosed) {
			ginkgo.GinkgoWriter.Printf("cleanup: Close: %v\n%s\n", err, c.Diagnose())
		}
	}, ginkgo.NodeTimeout(2*CloseTimeout))
	return c
}
