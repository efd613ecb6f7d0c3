package proxy

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// Start waits for an upstream that refuses connections at first (a cluster
// still starting) instead of failing on the first refusal.
func TestStartWaitsForUpstream(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // refused until kfake listens there
	started := make(chan *kfake.Cluster, 1)
	go func() {
		time.Sleep(1500 * time.Millisecond)
		kf, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(portOf(t, addr)))
		if err != nil {
			t.Errorf("kfake: %v", err)
		}
		started <- kf
	}()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	p, err := Start(ctx, Config{Upstream: []string{addr}})
	kf := <-started
	if kf != nil {
		defer kf.Close()
	}
	if err != nil {
		t.Fatalf("Start against a cluster that comes up after 1.5 s: %v", err)
	}
	p.Close()
}

// An upstream that is not Kafka (an HTTP server) fails Start when ctx ends
// with an error saying so and naming the address.
func TestStartNotKafka(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.NotFoundHandler(), ReadHeaderTimeout: time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	p, err := Start(ctx, Config{Upstream: []string{ln.Addr().String()}})
	if err == nil {
		p.Close()
		t.Fatal("Start against an HTTP server succeeded")
	}
	if !strings.Contains(err.Error(), "did not answer as Kafka") || !strings.Contains(err.Error(), ln.Addr().String()) {
		t.Errorf("err = %v, want it to say the upstream %s did not answer as Kafka", err, ln.Addr())
	}
}

func portOf(t *testing.T, addr string) int {
	t.Helper()
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(port)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
