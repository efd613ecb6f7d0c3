package sim

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/fakebroker"
)

// TestLoopbackWall runs a consumer against brokers on TCP loopback sockets
// (Config.Loopback, the cluster a driver process reaches): the consumer
// config carries no in-process dialer, the brokers listen on 127.0.0.1, and
// the records produced are delivered.
func TestLoopbackWall(t *testing.T) {
	const records = 20
	h, err := RunWall(context.Background(), Config{Seed: seed, Loopback: true, MaxVirtual: 30 * time.Second,
		Cluster: fakebroker.Config{Brokers: 1, Topics: map[string]int32{"t": 1}}}, func(env *Env) error {
		for _, a := range env.Broker.Addrs() {
			if !strings.HasPrefix(a, "127.0.0.1:") {
				return errors.New("broker address " + a + ": want 127.0.0.1")
			}
		}
		cfg := env.ConsumerConfig("c1")
		if cfg.Dial != nil {
			return errors.New("ConsumerConfig set a dialer on a loopback cluster")
		}
		cfg.GroupID = "g"
		cfg.AutoOffsetReset = "earliest"
		c, err := consumer.New(cfg)
		if err != nil {
			return err
		}
		env.Defer(func() { _ = c.Close(context.Background()) })
		if _, err := env.Broker.Produce(env.Context(), "t", records, nil); err != nil {
			return err
		}
		if err := c.Subscribe("t"); err != nil {
			return err
		}
		got := 0
		for got < records && env.Context().Err() == nil {
			ctx, cancel := context.WithTimeout(env.Context(), 200*time.Millisecond)
			recs, _ := c.Poll(ctx)
			cancel()
			env.Delivered("c1", recs)
			got += len(recs)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Deliveries) != records {
		t.Fatalf("%d records delivered over loopback, want %d", len(h.Deliveries), records)
	}
}

// TestLoopbackNotInBubble: a bubble cannot wait on sockets, so Run refuses
// Loopback with a ConfigError naming it.
func TestLoopbackNotInBubble(t *testing.T) {
	_, err := Run(t, Config{Loopback: true}, func(*Env) error { return nil })
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Field != "Loopback" {
		t.Fatalf("Run with Loopback: %v, want a ConfigError on Loopback", err)
	}
}
