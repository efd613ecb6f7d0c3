package suite

import (
	"context"
	"errors"
	"fmt"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
)

// StartCluster starts a cluster of target for the running spec and closes it
// in the spec's cleanup (after the consumers built later, since DeferCleanup
// runs in reverse order).
func StartCluster(ctx context.Context, target harness.Target, cfg harness.TargetConfig) harness.Cluster {
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
func ConsumerConfig(cl harness.Cluster, groupID, clientID string) consumer.Config {
	cfg := consumer.DefaultConfig()
	cfg.BootstrapServers = cl.Addrs()
	cfg.GroupID = groupID
	cfg.ClientID = clientID
	cfg.AutoOffsetReset = "earliest"
	cfg.EnableAutoCommit = false
	return cfg
}

// ShareConsumerConfig returns share consumer defaults pointed at cl.
func ShareConsumerConfig(cl harness.Cluster, groupID, clientID string) consumer.ShareConfig {
	cfg := consumer.DefaultShareConfig()
	cfg.BootstrapServers = cl.Addrs()
	cfg.GroupID = groupID
	cfg.ClientID = clientID
	return cfg
}

// NewConsumer builds a consumer of subject for the running spec, or skips
// the spec as n/a for a subject without regular consumers. Its cleanup
// closes it (CloseTimeout) unless the spec already did; the cleanup's Close
// error is not checked, because specs that care close explicitly.
func NewConsumer(subject harness.Subject, cfg consumer.Config) harness.Consumer {
	ginkgo.GinkgoHelper()
	c, err := subject.New(cfg)
	skipUnsupported(subject, err, "regular")
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "new %s consumer", subject.Name())
	closeInCleanup(c.Close, c)
	return c
}

// NewShareConsumer builds a share consumer of subject for the running spec,
// or skips the spec as n/a for a subject without share consumers; cleanup
// closes it as NewConsumer's.
func NewShareConsumer(subject harness.Subject, cfg consumer.ShareConfig) harness.ShareConsumer {
	ginkgo.GinkgoHelper()
	ss, ok := subject.(harness.ShareSubject)
	if !ok {
		skipUnsupported(subject, errors.ErrUnsupported, "share")
	}
	c, err := ss.NewShare(cfg)
	skipUnsupported(subject, err, "share")
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "new %s share consumer", subject.Name())
	closeInCleanup(c.Close, c)
	return c
}

func skipUnsupported(subject harness.Subject, err error, kind string) {
	if errors.Is(err, errors.ErrUnsupported) {
		ginkgo.Skip(fmt.Sprintf("n/a: subject %s has no %s consumer for this spec: %v", subject.Name(), kind, err))
	}
}

// closeInCleanup closes c (by closeFn) in the spec's cleanup.
func closeInCleanup(closeFn func(context.Context) error, c any) {
	ginkgo.DeferCleanup(func(sctx context.Context) {
		ctx, cancel := context.WithTimeout(sctx, harness.CloseTimeout)
		defer cancel()
		if err := closeFn(ctx); err != nil && !errors.Is(err, consumer.ErrClosed) {
			ginkgo.GinkgoWriter.Printf("cleanup: Close: %v\n%s\n", err, harness.Diagnose(c))
		}
	}, ginkgo.NodeTimeout(2*harness.CloseTimeout))
}
