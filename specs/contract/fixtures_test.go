package contract

import (
	"context"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kreactor/kreactor/harness"
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
