package contract

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/managers"
)

// heartbeat is one heartbeat a broker received (ConsumerGroupHeartbeat or
// ShareGroupHeartbeat) from the group under test.
type heartbeat struct {
	at    time.Time
	epoch int32
}

// heartbeatLog records the heartbeats of one group the brokers receive.
type heartbeatLog struct {
	mu  sync.Mutex // guards all: the observer runs on the broker's goroutine
	all []heartbeat
}

// observeHeartbeats records group's heartbeats of key until the spec ends.
func observeHeartbeats(ctx context.Context, cl harness.Cluster, key kmsg.Key, group string) *heartbeatLog {
	l := &heartbeatLog{}
	f, err := cl.Observe(ctx, key, func(o harness.Observed) {
		var epoch int32
		switch r := o.Req.(type) {
		case *kmsg.ConsumerGroupHeartbeatRequest:
			if r.Group != group {
				return
			}
			epoch = r.MemberEpoch
		case *kmsg.ShareGroupHeartbeatRequest:
			if r.GroupID != group {
				return
			}
			epoch = r.MemberEpoch
		default:
			return
		}
		l.mu.Lock()
		l.all = append(l.all, heartbeat{o.At, epoch})
		l.mu.Unlock()
	})
	Expect(err).NotTo(HaveOccurred(), "observe heartbeats")
	DeferCleanup(f.Heal)
	return l
}

// beats returns the heartbeats received at or after from.
func (l *heartbeatLog) beats(from time.Time) []heartbeat {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []heartbeat
	for _, b := range l.all {
		if !b.at.Before(from) {
			out = append(out, b)
		}
	}
	return out
}

// first returns the first heartbeat at or after from with epoch, if any.
func (l *heartbeatLog) first(from time.Time, epoch int32) (heartbeat, bool) {
	for _, b := range l.beats(from) {
		if b.epoch == epoch {
			return b, true
		}
	}
	return heartbeat{}, false
}

// ackLog collects acknowledgement callback outcomes, per offset.
type ackLog struct {
	mu       sync.Mutex // guards the maps: callbacks run on the application goroutine
	accepted map[managers.TopicPartition][]int64
	failed   map[managers.TopicPartition][]int64
	errs     map[string]int // failure errors by text, for the failure message
}

func newAckLog(c harness.ShareConsumer) *ackLog {
	l := &ackLog{accepted: map[managers.TopicPartition][]int64{}, failed: map[managers.TopicPartition][]int64{}, errs: map[string]int{}}
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

// errors returns the failure errors seen, with the offsets each failed.
func (l *ackLog) errors() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.errs)
}

// account checks every offset of delivered was reported exactly once and
// nothing else was: it returns how many were accepted and failed, and the
// offsets reported twice, never reported, or reported without delivery.
func (l *ackLog) account(delivered map[managers.TopicPartition][]int64) (accepted, failed int, problems []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	seen := map[managers.TopicPartition]map[int64]int{}
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
