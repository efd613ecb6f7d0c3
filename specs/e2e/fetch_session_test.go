package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/consume"
	"github.com/kreactor/kreactor/harness/suite"
)

// Fetch sessions (KIP-227), seen broker-side on every target: kfake keeps
// sessions as Kafka does, and on real Kafka the recording proxy sees the
// requests. One broker, so one session holds all three partitions (session
// ids are per broker, and the observer does not see the node).
const (
	// sessionRecords are consumed first (every partition's position moves).
	sessionRecords = 30
	// sessionSettle is how long the consumer polls after that before the
	// window opens, so each session has sent the Fetch naming the
	// partitions' last positions: three fetch.max.wait.ms (500 ms) cycles.
	sessionSettle = 1500 * time.Millisecond
	// sessionWindow is how long the consumer polls after one more record
	// (to partition 0 only) arrived: a few idle Fetches per session.
	sessionWindow = 1500 * time.Millisecond
	// minIncremental is the fewest incremental Fetches the window must
	// hold: the one bringing the record, the one naming partition 0's new
	// position, and at least one idle one.
	minIncremental = 3
)

// seenFetch is one Fetch request as the broker received it.
type seenFetch struct {
	at            time.Time
	id, epoch     int32
	named, forgot []int32 // partitions of the topic named / forgotten
}

var _ = Describe("Fetch sessions (KIP-227)", func() {
	It("keeps its fetch session and sends incremental Fetches naming only the partitions whose position changed",
		suite.Spec("fetch-session-incremental", []string{"E2E-3"}, subject.Name(), target.Name()), SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			const topic = "sessions"
			cl := suite.StartCluster(ctx, target, harness.TargetConfig{Brokers: 1, Topics: map[string]int32{topic: 3}})
			groupID, clientID := suite.UniqueName("session"), suite.UniqueName("session-client")

			var (
				mu    sync.Mutex // guards seen, dedup: the observer runs on the broker's goroutines
				seen  []seenFetch
				dedup = map[*kmsg.FetchRequest]bool{} // kfake may observe a request once per partition it checks
			)
			f, err := cl.Observe(ctx, kmsg.Fetch, func(o harness.Observed) {
				r, ok := o.Req.(*kmsg.FetchRequest)
				if !ok || r.ReplicaID >= 0 {
					return // a follower's Fetch
				}
				s := seenFetch{at: o.At, id: r.SessionID, epoch: r.SessionEpoch}
				for _, t := range r.Topics {
					if t.Topic == topic || t.Topic == "" {
						for _, p := range t.Partitions {
							s.named = append(s.named, p.Partition)
						}
					}
				}
				for _, t := range r.ForgottenTopics {
					for _, p := range t.Partitions {
						s.forgot = append(s.forgot, p)
					}
				}
				mu.Lock()
				defer mu.Unlock()
				if !dedup[r] {
					dedup[r] = true
					seen = append(seen, s)
				}
			})
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(f.Heal)

			By(fmt.Sprintf("consuming %d records from 3 partitions, then polling %s more", sessionRecords, sessionSettle))
			_, err = cl.Produce(ctx, topic, sessionRecords, nil)
			Expect(err).NotTo(HaveOccurred())
			c := suite.NewConsumer(subject, suite.ConsumerConfig(cl, groupID, clientID))
			Expect(c.Subscribe(topic)).To(Succeed())
			wctx, cancel := context.WithTimeout(ctx, harness.WaitTimeout)
			defer cancel()
			_, _, err = consume.PollUntil(wctx, c, sessionRecords)
			Expect(err).NotTo(HaveOccurred(), "polling for %d records\n%s", sessionRecords, harness.Diagnose(c))
			_, _, err = consume.PollFor(ctx, c, sessionSettle)
			Expect(err).NotTo(HaveOccurred())

			By("one more record, to partition 0 only, and polling on")
			mark := time.Now()
			_, err = cl.Produce(ctx, topic, 1, nil) // record 0 goes to partition 0
			Expect(err).NotTo(HaveOccurred())
			_, _, err = consume.PollUntil(wctx, c, 1)
			Expect(err).NotTo(HaveOccurred(), "polling for the record to partition 0\n%s", harness.Diagnose(c))
			_, _, err = consume.PollFor(ctx, c, sessionWindow)
			Expect(err).NotTo(HaveOccurred())
			end := time.Now()

			mu.Lock()
			var window []seenFetch
			for _, s := range seen {
				if !s.at.Before(mark) && s.at.Before(end) {
					window = append(window, s)
				}
			}
			total := len(seen)
			mu.Unlock()

			incremental, empty, namedP0, maxNamed := 0, 0, 0, 0
			epochs := map[int32][]int32{} // session id -> epochs in order
			var others []string
			for _, s := range window {
				if s.id != 0 && s.epoch > 0 {
					incremental++
					epochs[s.id] = append(epochs[s.id], s.epoch)
				}
				maxNamed = max(maxNamed, len(s.named))
				switch {
				case len(s.named) == 0:
					empty++
				case len(s.named) == 1 && s.named[0] == 0:
					namedP0++
				default:
					others = append(others, fmt.Sprintf("id=%d epoch=%d named %v", s.id, s.epoch, s.named))
				}
			}
			suite.Figure("fetch_requests", float64(total), "requests", "")
			suite.Figure("window_fetches", float64(len(window)), "requests", "")
			suite.Figure("incremental_fetches", float64(incremental), "requests", fmt.Sprintf(">= %d, all of the window's", minIncremental))
			suite.Figure("fetch_sessions", float64(len(epochs)), "sessions", "== 1")
			suite.Figure("fetches_naming_no_partition", float64(empty), "requests", ">= 1")
			suite.Figure("fetches_naming_partition_0_only", float64(namedP0), "requests", ">= 1")
			suite.Figure("max_partitions_named", float64(maxNamed), "partitions", "<= 1")

			Expect(incremental).To(BeNumerically(">=", minIncremental), "incremental Fetches (session id set, epoch > 0) in the window: %d of %d", incremental, len(window))
			Expect(incremental).To(Equal(len(window)), "every Fetch in the window is incremental: %+v", window)
			Expect(others).To(BeEmpty(), "Fetches naming partitions whose position did not change (only partition 0 got a record)")
			Expect(namedP0).To(BeNumerically(">=", 1), "no incremental Fetch named partition 0 after its record arrived: %+v", window)
			Expect(empty).To(BeNumerically(">=", 1), "no incremental Fetch omitted every (unchanged) partition: %+v", window)
			Expect(epochs).To(HaveLen(1), "fetch sessions in the window (one broker): the session is kept")
			for id, es := range epochs {
				for i := 1; i < len(es); i++ {
					Expect(es[i]).To(Equal(es[i-1]+1), "session %d: epochs %v: each request moves the epoch on by one", id, es)
				}
			}

			// Evidence: every Fetch of the consumer, relative to the
			// record produced to partition 0 (the window starts there).
			mu.Lock()
			var lines []string
			for _, s := range seen {
				lines = append(lines, fmt.Sprintf("%+6dms session %d epoch %d: %d partition(s) named %v, forgotten %v",
					s.at.Sub(mark).Milliseconds(), s.id, s.epoch, len(s.named), s.named, s.forgot))
			}
			mu.Unlock()
			AddReportEntry("fetch_requests_seen", strings.Join(lines, "\n"))

			By("closing: the session's final Fetch (epoch -1) is sent best effort, as Java's")
			cctx, ccancel := context.WithTimeout(ctx, harness.CloseTimeout)
			defer ccancel()
			closed := time.Now()
			Expect(c.Close(cctx)).To(Succeed())
			mu.Lock()
			final := 0
			for _, s := range seen {
				if !s.at.Before(closed) && s.epoch == -1 {
					final++
				}
			}
			mu.Unlock()
			suite.Figure("session_close_requests", float64(final), "requests", "best effort, not asserted")
		})
})
