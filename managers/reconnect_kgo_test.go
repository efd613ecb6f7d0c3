package managers_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/managers"
)

// The error franz-go returns for a broker nobody listens on is a connection
// error, one that starts the reconnect backoff; a request timeout is not.
func TestIsConnectErrorOnKgoDialFailure(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nobody listens there now
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RequestRetries(0), kgo.DialTimeout(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = cl.SeedBrokers()[0].Request(ctx, kmsg.NewPtrMetadataRequest())
	if err == nil || !managers.IsConnectError(err) {
		t.Fatalf("kgo dial failure %v (%T): IsConnectError = false", err, err)
	}
	r := managers.NewReconnect(managers.DefaultReconnectBackoff())
	now := time.Now()
	r.Failed(addr, now, err)
	if r.Wait(addr, now) == nil {
		t.Fatal("a failed dial did not start the reconnect backoff")
	}
	if managers.IsConnectError(context.DeadlineExceeded) {
		t.Fatal("a request timeout is not a connection failure")
	}
}
