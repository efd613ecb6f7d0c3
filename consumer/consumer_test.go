package consumer_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/fakebroker"
	"github.com/kreactor/kreactor/internal/clienttest"
	"github.com/kreactor/kreactor/managers"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestConfigErrorNamesField(t *testing.T) {
	cfg := consumer.DefaultConfig()
	cfg.BootstrapServers = []string{"127.0.0.1:9092"}
	cfg.RetryBackoff = 0
	_, err := consumer.New(cfg)
	var ce *consumer.ConfigError
	if !errors.As(err, &ce) || ce.Field != "RetryBackoff" {
		t.Fatalf("err = %v, want ConfigError on RetryBackoff", err)
	}
	cfg = consumer.DefaultConfig()
	_, err = consumer.New(cfg)
	if !errors.As(err, &ce) || ce.Field != "BootstrapServers" {
		t.Fatalf("err = %v, want ConfigError on BootstrapServers", err)
	}
}

// String values are quoted in the message, so blank and empty ones show.
func TestConfigErrorQuotesStrings(t *testing.T) {
	base := consumer.DefaultConfig()
	base.BootstrapServers = []string{"127.0.0.1:9092"}
	for _, tc := range []struct {
		set  func(*consumer.Config)
		want string
	}{
		{func(c *consumer.Config) { c.GroupID = "  " }, `invalid GroupID (group.id) = "  ": must not have leading or trailing spaces`},
		{func(c *consumer.Config) { c.ClientID = "" }, `invalid ClientID (client.id) = "": must not be empty`},
		{func(c *consumer.Config) { c.BootstrapServers = []string{" "} }, `invalid BootstrapServers (bootstrap.servers) = " ": not a host:port address`},
		{func(c *consumer.Config) { c.BootstrapServers = nil }, `invalid BootstrapServers (bootstrap.servers) = []: at least one`},
		{func(c *consumer.Config) { c.IsolationLevel = "" }, `invalid IsolationLevel (isolation.level) = "": must be`},
		{func(c *consumer.Config) { c.RetryBackoff = 0 }, `invalid RetryBackoff (retry.backoff.ms) = 0s: must be >= 1ms`},
	} {
		cfg := base
		tc.set(&cfg)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v, want it to contain %s", err, tc.want)
		}
	}
}

func TestConsumeCommitClose(t *testing.T) {
	b, err := fakebroker.Start(fakebroker.Config{Topics: map[string]int32{"t": 3}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := b.Produce(ctx, "t", 300, nil); err != nil {
		t.Fatal(err)
	}
	cfg := consumer.DefaultConfig()
	cfg.BootstrapServers = b.Addrs()
	cfg.GroupID = "g"
	cfg.AutoOffsetReset = "earliest"
	c, err := consumer.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Subscribe("t"); err != nil {
		t.Fatal(err)
	}
	seen := map[int32]int64{}
	n := 0
	for n < 300 {
		pctx, pcancel := context.WithTimeout(ctx, time.Second)
		recs, err := c.Poll(pctx)
		pcancel()
		if err != nil {
			t.Fatal(err)
		}
		if ctx.Err() != nil {
			t.Fatalf("timed out with %d records; %s", n, c.Diagnostics().Diagnose())
		}
		for _, r := range recs {
			if last, ok := seen[r.Partition]; ok && r.Offset != last+1 {
				t.Fatalf("partition %d: offset %d after %d", r.Partition, r.Offset, last)
			}
			seen[r.Partition] = r.Offset
			n++
		}
	}
	if err := c.CommitSync(ctx); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	diag := c.Diagnostics()
	t.Logf("close took %s; %s", time.Since(start), diag.Diagnose())
	returns, early := diag.CommitReturns()
	if !diag.Snapshot().Closed || !diag.Decision().Closed || early != 0 || returns != 1 {
		t.Fatalf("diagnostics after close: snapshot %+v, decision closed %v, commit returns %d (early %d); want closed, 1 return, 0 early",
			diag.Snapshot(), diag.Decision().Closed, returns, early)
	}
	clienttest.CheckLeftAndCommitted(t, b, "g", "t", seen)
}

// Bad input found by an adversarial review: each is refused with an error
// naming the value, before anything is sent.
func TestInputValidation(t *testing.T) {
	base := consumer.DefaultConfig()
	base.BootstrapServers = []string{"127.0.0.1:9092"}
	for _, tc := range []struct {
		field string
		edit  func(*consumer.Config)
	}{
		{"BootstrapServers", func(c *consumer.Config) { c.BootstrapServers = []string{"127.0.0.1:notaport"} }},
		{"BootstrapServers", func(c *consumer.Config) { c.BootstrapServers = []string{"127.0.0.1:99999"} }},
		{"BootstrapServers", func(c *consumer.Config) { c.BootstrapServers = []string{":9092"} }},
		{"FetchMaxWait", func(c *consumer.Config) { c.FetchMaxWait = 30 * 24 * time.Hour }},
		{"RetryBackoffMax", func(c *consumer.Config) { c.RetryBackoffMax = 1 << 62 }},
	} {
		cfg := base
		tc.edit(&cfg)
		_, err := consumer.New(cfg)
		var ce *consumer.ConfigError
		if !errors.As(err, &ce) || ce.Field != tc.field {
			t.Errorf("err = %v, want a ConfigError on %s", err, tc.field)
		}
	}
	c, err := consumer.New(base)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	var pe *consumer.InvalidPartitionError
	if err := c.Assign(managers.TopicPartition{Topic: "t", Partition: -1}); !errors.As(err, &pe) {
		t.Fatalf("Assign(t/-1) = %v, want InvalidPartitionError", err)
	}
	if err := c.Assign(managers.TopicPartition{Partition: 0}); !errors.As(err, &pe) {
		t.Fatalf("Assign(/0) = %v, want InvalidPartitionError", err)
	}
}

// A canceled ctx closes at once: outstanding work fails now, not after 30 s.
func TestCloseWithCanceledContextIsImmediate(t *testing.T) {
	b, err := fakebroker.Start(fakebroker.Config{Topics: map[string]int32{"t": 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	cfg := consumer.DefaultConfig()
	cfg.BootstrapServers = b.Addrs()
	cfg.GroupID = "g-cancel"
	c, err := consumer.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Subscribe("t"); err != nil {
		t.Fatal(err)
	}
	h, _ := b.CoordinatorUnavailable("g-cancel")
	defer h.Heal()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	_ = c.Close(ctx)
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("Close(canceled ctx) took %s", took)
	}
}
