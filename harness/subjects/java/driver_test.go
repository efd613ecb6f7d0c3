package java

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDriverKilledMidCall: a driver killed from outside during poll(10 s)
// fails the call at once with a *DriverError carrying the exit status and
// the stderr tail (Kafka logs at INFO here, so stderr has content).
func TestDriverKilledMidCall(t *testing.T) {
	requireJava(t)
	b := startBroker(t, map[string]int32{"idle": 1})
	o := DefaultOptions()
	o.ExtraJVMArgs = append(o.ExtraJVMArgs, "-Dorg.slf4j.simpleLogger.defaultLogLevel=info")
	c := newConsumer(t, o, props(t, b, "gkill", "consumer"))
	if err := c.Subscribe("idle"); err != nil {
		t.Fatal(err)
	}
	pid := c.PID()
	timer := time.AfterFunc(500*time.Millisecond, func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	defer timer.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := c.Poll(ctx)
	var de *DriverError
	if !errors.As(err, &de) {
		t.Fatalf("poll on a killed driver: %v, want *DriverError", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the failure came only at the poll deadline")
	}
	if de.Op != "poll" || de.PID != pid || !strings.Contains(de.Exit, "killed") {
		t.Errorf("driver error op=%q pid=%d exit=%q, want poll, %d, killed", de.Op, de.PID, de.Exit, pid)
	}
	if !strings.Contains(de.Stderr, "ConsumerConfig values") {
		t.Errorf("stderr tail lacks Kafka's log: %q", tail(de.Stderr, 300))
	}
	t.Logf("error (abridged): %s", tail(err.Error(), 300))
	if _, err := c.Poll(ctx); !errors.As(err, &de) {
		t.Errorf("next poll: %v, want *DriverError", err)
	}
	if err := c.Close(ctx); !errors.As(err, &de) {
		t.Errorf("Close of a dead driver: %v, want its *DriverError", err)
	}
}

// TestDriverHung: a driver that stops answering (SIGSTOP) is killed once
// the call's timeout plus CallGrace passed, with ErrNoReply.
func TestDriverHung(t *testing.T) {
	requireJava(t)
	b := startBroker(t, map[string]int32{"idle": 1})
	c := newConsumer(t, DefaultOptions(), props(t, b, "ghung", "consumer"))
	if err := c.Subscribe("idle"); err != nil {
		t.Fatal(err)
	}
	c.d.opts.CallGrace = time.Second // only this goroutine calls from here on
	if err := syscall.Kill(c.PID(), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := c.Poll(ctx)
	if !errors.Is(err, ErrNoReply) {
		t.Fatalf("poll on a stopped driver: %v, want ErrNoReply", err)
	}
	if c.Alive() {
		t.Error("hung driver still alive")
	}
	var de *DriverError
	if err := c.Close(context.Background()); !errors.As(err, &de) {
		t.Errorf("Close of the killed driver: %v, want its *DriverError", err)
	}
}

// TestBadInput: each bad value is an error naming it; nothing starts.
func TestBadInput(t *testing.T) {
	requireJava(t)
	ctx := context.Background()
	cases := []struct {
		name  string
		o     Options
		props map[string]string
		want  string
	}{
		{"no client.id", Options{}, map[string]string{"bootstrap.servers": "127.0.0.1:1"}, "client.id"},
		{"no bootstrap", Options{}, map[string]string{"client.id": "x"}, "bootstrap.servers"},
		{"bad release", Options{Clients: "4.4"}, map[string]string{"client.id": "x", "bootstrap.servers": "127.0.0.1:1"}, `"4.4"`},
		{"missing jar", Options{Classpath: []string{"/nonexistent/kafka-clients.jar"}}, map[string]string{"client.id": "x", "bootstrap.servers": "127.0.0.1:1"}, "/nonexistent/kafka-clients.jar"},
		{"unknown release", Options{Clients: "4.9.99"}, map[string]string{"client.id": "x", "bootstrap.servers": "127.0.0.1:1"}, "4.9.99"},
		{"bad property", Options{}, map[string]string{"client.id": "x", "bootstrap.servers": "127.0.0.1:1", "group.protocol": "bogus"}, "group.protocol"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewConsumer(ctx, tc.o, tc.props)
			if err == nil {
				_ = c.Close(ctx)
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not name %s", tail(err.Error(), 400), tc.want)
			}
		})
	}
	if _, err := NewShareConsumer(ctx, Options{}, map[string]string{"client.id": "x", "bootstrap.servers": "127.0.0.1:1"}); err == nil || !strings.Contains(err.Error(), "group.id") {
		t.Errorf("share consumer without group.id: %v", err)
	}
}

// TestJavaMissing: without a java binary the constructor says so.
func TestJavaMissing(t *testing.T) {
	_, err := NewConsumer(context.Background(), Options{Java: "/nonexistent/bin/java"}, map[string]string{"client.id": "x", "bootstrap.servers": "127.0.0.1:1"})
	if err == nil {
		t.Fatal("started without java")
	}
	t.Setenv("PATH", t.TempDir())
	t.Setenv("JAVA_HOME", "")
	_, err = NewConsumer(context.Background(), Options{}, map[string]string{"client.id": "x", "bootstrap.servers": "127.0.0.1:1"})
	if !errors.Is(err, ErrJavaMissing) {
		t.Fatalf("no java on PATH: %v, want ErrJavaMissing", err)
	}
}
