package containers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"go.uber.org/goleak"
)

// testTimeout bounds one test's work with the cluster (starts included).
const testTimeout = 4 * time.Minute

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		// The Docker client's pooled HTTP connections to the engine's
		// socket are closed lazily.
		goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
		goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		goleak.IgnoreTopFunction("internal/poll.runtime_pollWait"),
	)
}

// requireKafka skips t when no Docker engine answers and
// KREACTOR_REQUIRE_DOCKER is unset, and fails it when the engine is absent
// with the variable set, or when the image is absent.
func requireKafka(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := DockerAvailable(ctx); err != nil {
		if os.Getenv(EnvRequireDocker) == "" {
			t.Skipf("skipped: %v (set %s=1 to fail instead)", err, EnvRequireDocker)
		}
		t.Fatalf("%s is set: %v", EnvRequireDocker, err)
	}
	if err := ImagePresent(ctx, ResolveImage("")); err != nil {
		t.Fatal(err)
	}
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

func terminate(t *testing.T, c *Cluster) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := c.Terminate(ctx); err != nil {
			t.Errorf("Terminate: %v", err)
		}
	})
}

// produceConsume writes n records to topic and reads them back in a KIP-848
// consumer group (server-side assignment), returning an error unless every
// value comes back.
func produceConsume(ctx context.Context, c *Cluster, topic, group string, n int) error {
	p, err := c.Client(kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))
	if err != nil {
		return err
	}
	defer p.Close()
	for i := range n {
		if err := p.ProduceSync(ctx, kgo.StringRecord(fmt.Sprintf("%s-%d", group, i))).FirstErr(); err != nil {
			return fmt.Errorf("produce %d: %w", i, err)
		}
	}
	cons, err := c.Client(kgo.ConsumeTopics(topic), kgo.ConsumerGroup(group), kgo.ServerSideBalancer(),
		kgo.Balancers(kgo.RangeBalancer()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		return err
	}
	defer cons.Close()
	want := make(map[string]bool, n)
	for i := range n {
		want[fmt.Sprintf("%s-%d", group, i)] = true
	}
	for len(want) > 0 {
		fs := cons.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("consume: %d of %d records missing: %w", len(want), n, err)
		}
		for _, fe := range fs.Errors() {
			return fmt.Errorf("consume %s[%d]: %w", fe.Topic, fe.Partition, fe.Err)
		}
		fs.EachRecord(func(r *kgo.Record) { delete(want, string(r.Value)) })
	}
	return nil
}

func TestSingleNode(t *testing.T) {
	requireKafka(t)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()

	began := time.Now()
	c, err := StartSingle(ctx, Options{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	terminate(t, c)
	t.Logf("FIGURE single-node start: %v (image %s)", time.Since(began).Round(time.Millisecond), c.Image())

	if bs := c.Brokers(); len(bs) != 1 || bs[0].ID != 1 || bs[0].State != NodeRunning || bs[0].Addr != c.BootstrapAddrs()[0] {
		t.Fatalf("Brokers() = %+v, BootstrapAddrs() = %v", bs, c.BootstrapAddrs())
	}
	if err := c.CreateTopic(ctx, "single", 3, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateTopic(ctx, "single", 3, nil); !errors.Is(err, kerr.TopicAlreadyExists) {
		t.Fatalf("second CreateTopic: %v, want TOPIC_ALREADY_EXISTS", err)
	}
	if err := produceConsume(ctx, c, "single", "g-single", 30); err != nil {
		t.Fatal(err)
	}
	checkGroupProtocols(ctx, t, c, "single")
}

// checkGroupProtocols checks the broker configuration the specs rely on: a
// KIP-848 consumer group heartbeat and a KIP-932 share group heartbeat are
// accepted and hand out the 250 ms interval of BrokerDefaults.
func checkGroupProtocols(ctx context.Context, t *testing.T, c *Cluster, topic string) {
	t.Helper()
	cl, err := c.Client()
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()

	hb := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	hb.Group = "g-848-probe"
	hb.MemberID = "kreactor-probe-member-0000000001"
	hb.MemberEpoch = 0
	hb.RebalanceTimeoutMillis = 5000
	hb.SubscribedTopicNames = []string{topic}
	hb.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{} // joining: empty, not null
	resp, err := hb.RequestWith(ctx, cl)
	if err != nil {
		t.Fatalf("ConsumerGroupHeartbeat: %v", err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		t.Fatalf("ConsumerGroupHeartbeat: %v (%s)", err, deref(resp.ErrorMessage))
	}
	if resp.HeartbeatIntervalMillis != 250 {
		t.Errorf("ConsumerGroupHeartbeat interval %d ms, want 250", resp.HeartbeatIntervalMillis)
	}
	hb.MemberEpoch = -1 // leave
	if _, err := hb.RequestWith(ctx, cl); err != nil {
		t.Errorf("ConsumerGroupHeartbeat (leave): %v", err)
	}

	sh := kmsg.NewPtrShareGroupHeartbeatRequest()
	sh.GroupID = "g-share-probe"
	sh.MemberID = "kreactor-probe-member-0000000002"
	sh.MemberEpoch = 0
	sh.SubscribedTopicNames = []string{topic}
	sresp, err := sh.RequestWith(ctx, cl)
	if err != nil {
		t.Fatalf("ShareGroupHeartbeat: %v", err)
	}
	if err := kerr.ErrorForCode(sresp.ErrorCode); err != nil {
		t.Fatalf("ShareGroupHeartbeat: %v (%s)", err, deref(sresp.ErrorMessage))
	}
	if sresp.HeartbeatIntervalMillis != 250 {
		t.Errorf("ShareGroupHeartbeat interval %d ms, want 250", sresp.HeartbeatIntervalMillis)
	}
	sh.MemberEpoch = -1
	if _, err := sh.RequestWith(ctx, cl); err != nil {
		t.Errorf("ShareGroupHeartbeat (leave): %v", err)
	}
}

func TestClusterRestartPauseKill(t *testing.T) {
	requireKafka(t)
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()

	began := time.Now()
	c, err := StartCluster(ctx, Options{Brokers: 3, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	terminate(t, c)
	t.Logf("FIGURE 3-broker start: %v", time.Since(began).Round(time.Millisecond))
	if len(c.Brokers()) != 3 {
		t.Fatalf("Brokers() = %+v", c.Brokers())
	}
	if err := c.CreateTopic(ctx, "restart", 3, nil); err != nil {
		t.Fatal(err)
	}
	if err := produceConsume(ctx, c, "restart", "g-before", 30); err != nil {
		t.Fatal(err)
	}

	stopped := time.Now()
	if err := c.Stop(ctx, 2); err != nil {
		t.Fatal(err)
	}
	t.Logf("FIGURE stop node 2: %v", time.Since(stopped).Round(time.Millisecond))
	if st := c.Brokers()[1].State; st != NodeStopped {
		t.Fatalf("node 2 state %s after Stop", st)
	}
	if _, err := metadata(ctx, c.BootstrapAddrs()[1]); err == nil {
		t.Fatal("node 2 answered Metadata while stopped")
	}
	if err := produceConsume(ctx, c, "restart", "g-stopped", 30); err != nil {
		t.Fatalf("with node 2 stopped: %v", err)
	}

	restarted := time.Now()
	if err := c.Start(ctx, 2); err != nil {
		t.Fatal(err)
	}
	t.Logf("FIGURE restart node 2: %v", time.Since(restarted).Round(time.Millisecond))
	resp, err := metadata(ctx, c.BootstrapAddrs()[1])
	if err != nil {
		t.Fatalf("node 2 after Start: %v", err)
	}
	if ids := brokerIDs(resp); len(ids) != 3 {
		t.Fatalf("node 2 lists brokers %v after Start", ids)
	}
	if err := produceConsume(ctx, c, "restart", "g-after", 30); err != nil {
		t.Fatalf("after restarting node 2: %v", err)
	}

	if err := c.Pause(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := metadata(ctx, c.BootstrapAddrs()[2]); err == nil {
		t.Fatal("node 3 answered Metadata while paused")
	}
	unpaused := time.Now()
	if err := c.Unpause(ctx, 3); err != nil {
		t.Fatal(err)
	}
	t.Logf("FIGURE unpause node 3 until serving: %v", time.Since(unpaused).Round(time.Millisecond))

	if err := c.Kill(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if st := c.Brokers()[2].State; st != NodeStopped {
		t.Fatalf("node 3 state %s after Kill", st)
	}
	restarted = time.Now()
	if err := c.Start(ctx, 3); err != nil {
		t.Fatal(err)
	}
	t.Logf("FIGURE restart node 3 after SIGKILL: %v", time.Since(restarted).Round(time.Millisecond))
	if err := produceConsume(ctx, c, "restart", "g-killed", 30); err != nil {
		t.Fatalf("after restarting killed node 3: %v", err)
	}
}

// TestNoDocker checks the error of a start without an engine. It runs only
// where no Docker engine answers (testcontainers-go falls back from a bad
// DOCKER_HOST to the default socket, so absence cannot be faked here).
func TestNoDocker(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if DockerAvailable(ctx) == nil {
		t.Skip("skipped: a Docker engine answers; this test checks the error without one")
	}
	began := time.Now()
	c, err := StartSingle(ctx, Options{})
	if err == nil {
		_ = c.Terminate(ctx)
	}
	if !errors.Is(err, ErrNoDocker) {
		t.Fatalf("StartSingle without Docker: %v, want ErrNoDocker", err)
	}
	t.Logf("after %v: %v", time.Since(began).Round(time.Millisecond), err)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
