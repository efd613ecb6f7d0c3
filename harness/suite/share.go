package suite

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/managers"
)

// PollShare polls c until n records arrived (ack, if set, is called for
// each record before the next Poll), or fails the spec with the diagnosis
// after harness.WaitTimeout. Each Poll waits at most harness.PollSlice.
func PollShare(ctx context.Context, c harness.ShareConsumer, n int, ack func(consumer.ShareRecord)) []consumer.ShareRecord {
	ginkgo.GinkgoHelper()
	var out []consumer.ShareRecord
	deadline := time.Now().Add(harness.WaitTimeout)
	for len(out) < n {
		gomega.Expect(time.Now().Before(deadline)).To(gomega.BeTrue(), "%d of %d records after %s\n%s", len(out), n, harness.WaitTimeout, harness.Diagnose(c))
		pctx, cancel := context.WithTimeout(ctx, harness.PollSlice)
		recs, err := c.Poll(pctx)
		cancel()
		gomega.Expect(err).NotTo(gomega.HaveOccurred(), harness.Diagnose(c))
		for _, r := range recs {
			if ack != nil {
				ack(r)
			}
		}
		out = append(out, recs...)
	}
	return out
}

// AckLog collects a share consumer's acknowledgement callback outcomes, per
// offset. Safe from any goroutine.
type AckLog struct {
	mu       sync.Mutex                          // guards the maps: callbacks run on the application goroutine
	accepted map[managers.TopicPartition][]int64 // guarded by mu
	failed   map[managers.TopicPartition][]int64 // guarded by mu
	errs     map[string]int                      // guarded by mu; failure errors by text, for failure messages
}

// NewAckLog sets c's acknowledgement commit callback to one that records
// into the returned log.
func NewAckLog(c harness.ShareConsumer) *AckLog {
	l := &AckLog{accepted: map[managers.TopicPartition][]int64{}, failed: map[managers.TopicPartition][]int64{}, errs: map[string]int{}}
	c.SetAcknowledgementCommitCallback(func(offs map[managers.TopicPartition][]int64, err error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		for tp, os := range offs {
			if err == nil {
				l.accepted[tp] = append(l.accepted[tp], os...)
			} else {
				l.failed[tp] = append(l.failed[tp], os...)
				l.errs[err.Error()] += len(os)
			}
		}
	})
	return l
}

// Errors returns the failure errors seen, with how many offsets each
// failed.
func (l *AckLog) Errors() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.errs)
}

// reports counts how often each offset was reported; the caller holds mu.
func (l *AckLog) reports() (seen map[managers.TopicPartition]map[int64]int, accepted, failed int) {
	seen = map[managers.TopicPartition]map[int64]int{}
	count := func(m map[managers.TopicPartition][]int64) int {
		n := 0
		for tp, os := range m {
			if seen[tp] == nil {
				seen[tp] = map[int64]int{}
			}
			for _, o := range os {
				seen[tp][o]++
				n++
			}
		}
		return n
	}
	accepted, failed = count(l.accepted), count(l.failed)
	return seen, accepted, failed
}

// Counts returns how many offsets were reported accepted and failed, and
// how many reports repeated an offset already reported.
func (l *AckLog) Counts() (accepted, failed, duplicates int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	seen, accepted, failed := l.reports()
	for _, os := range seen {
		for _, n := range os {
			duplicates += n - 1
		}
	}
	return accepted, failed, duplicates
}

// Account checks that every offset of delivered was reported exactly once
// and nothing else was: it returns how many were accepted and failed, and
// the offsets reported twice, never reported, or reported without
// delivery.
func (l *AckLog) Account(delivered map[managers.TopicPartition][]int64) (accepted, failed int, problems []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	seen, accepted, failed := l.reports()
	for tp, os := range delivered {
		for _, o := range os {
			switch n := seen[tp][o]; {
			case n == 0:
				problems = append(problems, fmt.Sprintf("%s@%d never reported", tp, o))
			case n > 1:
				problems = append(problems, fmt.Sprintf("%s@%d reported %d times", tp, o, n))
			}
			delete(seen[tp], o)
		}
	}
	for tp, os := range seen {
		for o := range os {
			problems = append(problems, fmt.Sprintf("%s@%d reported but never delivered", tp, o))
		}
	}
	return accepted, failed, problems
}
