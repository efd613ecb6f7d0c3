package suite

import (
	"errors"
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
)

// NewExplicitShareConsumer is NewShareConsumer for a spec that acknowledges
// records itself (Acknowledge, then CommitSync, CommitAsync or the next
// Poll): a subject that must be told up front (ExplicitShareSubject:
// kafka-clients' share.acknowledgement.mode=explicit) builds its consumer in
// explicit mode; the others switch on the first Acknowledge. A spec that
// acknowledges an implicit-mode KafkaShareConsumer breaks its contract:
// Java throws IllegalStateException, a harness error (java.ErrMisuse).
func NewExplicitShareConsumer(subject harness.Subject, cfg consumer.ShareConfig) harness.ShareConsumer {
	ginkgo.GinkgoHelper()
	ss, ok := subject.(harness.ShareSubject)
	if !ok {
		skipUnsupported(subject, errors.ErrUnsupported, "share")
	}
	var c harness.ShareConsumer
	var err error
	if ex, ok := ss.(harness.ExplicitShareSubject); ok {
		c, err = ex.NewExplicitShare(cfg)
	} else {
		c, err = ss.NewShare(cfg)
	}
	skipUnsupported(subject, err, "share")
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "new %s share consumer (explicit acknowledgement)", subject.Name())
	closeInCleanup(c.Close, c)
	return c
}
