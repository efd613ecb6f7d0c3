package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/containers"
	"github.com/kreactor/kreactor/fakebroker/control"
	"github.com/kreactor/kreactor/harness/measure"
	"github.com/kreactor/kreactor/harness/subjects/java"
)

// EnvRequireJava makes the Java process tests fail, instead of skip, when
// the driver cannot start (no java, no `make java-driver`).
const EnvRequireJava = "KREACTOR_REQUIRE_JAVA"

// newJava starts a Java KafkaConsumer (KIP-848) in the driver's JVM
// against bootstrap, or skips when Java is missing.
func newJava(t *testing.T, bootstrap []string, group, client string) *java.Consumer {
	t.Helper()
	cfg := consumer.DefaultConfig()
	cfg.BootstrapServers, cfg.GroupID, cfg.ClientID = bootstrap, group, client
	cfg.AutoOffsetReset, cfg.EnableAutoCommit = "earliest", false
	c, err := java.Subject{Options: java.DefaultOptions()}.New(cfg)
	if errors.Is(err, java.ErrJavaMissing) && os.Getenv(EnvRequireJava) == "" {
		t.Skipf("skipped: %v (set %s=1 to fail instead)", err, EnvRequireJava)
	}
	if err != nil {
		t.Fatalf("java consumer: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = c.Close(ctx)
	})
	return c
}

// pollFor polls c (100 ms polls) for d and returns the records.
func pollFor(t *testing.T, c *java.Consumer, d time.Duration) int {
	t.Helper()
	n := 0
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		ctx, cancel := context.WithTimeout(context.Background(), min(100*time.Millisecond, time.Until(end)+time.Millisecond))
		recs, err := c.Poll(ctx)
		cancel()
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("poll: %v", err)
		}
		n += len(recs)
	}
	return n
}

// pollUntil polls c until it has n records or d passes.
func pollUntil(t *testing.T, c *java.Consumer, n int, d time.Duration) {
	t.Helper()
	got := 0
	deadline := time.Now().Add(d)
	for got < n {
		if time.Now().After(deadline) {
			t.Fatalf("java consumed %d of %d records in %s", got, n, d)
		}
		got += pollFor(t, c, 200*time.Millisecond)
	}
}

// javaOverHTTP drives a Java consumer against s (a kreactor broker or
// proxy process) purely through the control API: it consumes what is
// produced over HTTP, its requests are in the log, a fenced heartbeat set
// over HTTP makes it rejoin, and KAFKA-21031 (a heartbeat in flight past
// its interval: the consumer spins) shows as CPU in a window where a
// delay fault holds every ConsumerGroupHeartbeat 1 s, against a calm
// window (measure.JudgeCPU with measure.DefaultCPUBound, the bound the
// regression suite uses).
func javaOverHTTP(t *testing.T, s *served, topic, group string) {
	const client = "java-proc"
	var res control.ProduceResult
	if st := s.api(t, "POST", "/produce", map[string]any{"topic": topic, "count": 10}, &res); st != 200 {
		t.Fatalf("produce: %d", st)
	}
	c := newJava(t, s.bootstrap, group, client)
	if err := c.Subscribe(topic); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, c, 10, 60*time.Second)
	hbs := s.log(t, "key=ConsumerGroupHeartbeat&client_id="+client)
	if len(hbs) == 0 {
		t.Fatal("no ConsumerGroupHeartbeat of the Java consumer in the log")
	}
	var g control.Group
	s.api(t, "GET", "/groups/"+group, nil, &g)
	if !g.Exists || len(g.Members) != 1 || g.Members[0].ClientID != client {
		t.Errorf("group over HTTP: %+v, want one member %s", g, client)
	}

	// A fenced heartbeat: Java rejoins with member epoch 0.
	mark := hbs[len(hbs)-1].Seq
	var f control.FaultState
	if st := s.api(t, "POST", "/faults", map[string]any{"kind": "error", "key": "ConsumerGroupHeartbeat", "error": "FENCED_MEMBER_EPOCH", "first": 1}, &f); st != 201 {
		t.Fatalf("POST fault: %d", st)
	}
	waitFor(t, 30*time.Second, "the Java consumer to rejoin with member epoch 0", func() bool {
		pollFor(t, c, 100*time.Millisecond)
		return epochZeroAfter(t, s, client, mark)
	})
	s.api(t, "GET", "/faults/"+f.ID, nil, &f)
	if f.Hits != 1 {
		t.Errorf("fenced fault hits = %d, want 1", f.Hits)
	}
	pollFor(t, c, time.Second) // settle into the new epoch

	// KAFKA-21031.
	calm, err := measure.StartCPU(c)
	if err != nil {
		t.Fatal(err)
	}
	pollFor(t, c, 2*time.Second)
	calmUse, err := calm.Stop()
	if err != nil {
		t.Fatal(err)
	}
	before := s.log(t, "key=ConsumerGroupHeartbeat&client_id="+client)
	if st := s.api(t, "POST", "/faults", map[string]any{"kind": "delay", "key": "ConsumerGroupHeartbeat", "delay": "1s", "expires": "1m"}, &f); st != 201 {
		t.Fatalf("POST delay: %d", st)
	}
	slow, err := measure.StartCPU(c)
	if err != nil {
		t.Fatal(err)
	}
	pollFor(t, c, 3*time.Second)
	slowUse, err := slow.Stop()
	if err != nil {
		t.Fatal(err)
	}
	s.api(t, "DELETE", "/faults/"+f.ID, nil, &f)
	after := s.log(t, "key=ConsumerGroupHeartbeat&client_id="+client)
	v, err := measure.JudgeCPU(slowUse, calmUse, measure.DefaultCPUBound)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("KAFKA-21031 over HTTP (%s): calm %s; slow %s; heartbeats in the slow window %d (delayed %d); bound %s: cpu ok %v (max %s), select-total ok %v (max %.0f)",
		s.control, calmUse, slowUse, len(after)-len(before), f.Hits, measure.DefaultCPUBound, v.CPUOK, v.MaxCPU, v.SelectsOK, v.MaxSelects)
	if len(after)-len(before) < 1 {
		t.Error("no heartbeat in the slow window: the fault did not reach the consumer")
	}
	if v.OK() {
		t.Errorf("KAFKA-21031 did not reproduce on kafka-clients: %s", v.Message())
	}

	// Healed, it consumes on.
	s.api(t, "POST", "/produce", map[string]any{"topic": topic, "count": 10}, &res)
	pollUntil(t, c, 10, 60*time.Second)
}

// TestBrokerProcessJava: the Java consumer (its own JVM) against kreactor
// broker (its own process), through HTTP only.
func TestBrokerProcessJava(t *testing.T) {
	b := startServed(t, "broker", "-topics", "t:1")
	javaOverHTTP(t, b, "t", "java-group")
	stopAndCheckPorts(t, b)
}

// EnvProxyDocker runs TestProxyProcessJava (about 45 s: a Kafka container
// and a JVM): make broker-process-tests sets it.
const EnvProxyDocker = "KREACTOR_PROXY_DOCKER"

// TestProxyProcessJava: the same through kreactor proxy in front of Kafka
// 4.4.0 in Docker. It runs with KREACTOR_PROXY_DOCKER=1 (make
// broker-process-tests), then fails without Docker if
// KREACTOR_REQUIRE_DOCKER is set.
func TestProxyProcessJava(t *testing.T) {
	if os.Getenv(EnvProxyDocker) == "" {
		t.Skipf("skipped: set %s=1 (make broker-process-tests) to run it (a Kafka container, about 45 s)", EnvProxyDocker)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := containers.DockerAvailable(ctx); err != nil {
		if os.Getenv(containers.EnvRequireDocker) == "" {
			t.Skipf("skipped: %v (set %s=1 to fail instead)", err, containers.EnvRequireDocker)
		}
		t.Fatal(err)
	}
	kc, err := containers.StartSingle(ctx, containers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		tctx, tcancel := context.WithTimeout(context.Background(), time.Minute)
		defer tcancel()
		_ = kc.Terminate(tctx)
	}()
	p := startServed(t, "proxy", "-upstream", kc.BootstrapAddrs()[0])
	topic := fmt.Sprintf("t-%d", time.Now().UnixNano())
	var tp control.Topic
	if st := p.api(t, "POST", "/topics", map[string]any{"name": topic, "partitions": 1}, &tp); st != 201 {
		t.Fatalf("create topic: %d %+v", st, tp)
	}
	javaOverHTTP(t, p, topic, "java-group-"+topic)
	stopAndCheckPorts(t, p)
}
