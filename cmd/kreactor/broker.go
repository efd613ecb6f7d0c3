package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kreactor/kreactor/fakebroker"
	"github.com/kreactor/kreactor/fakebroker/control"
	"github.com/kreactor/kreactor/fakebroker/vocab"
)

// runBroker is `kreactor broker`: a fakebroker cluster (KIP-848, KIP-932
// and classic groups; answers corrected to Kafka 4.4's) on TCP ports until
// SIGTERM, with the HTTP control API.
func runBroker(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("kreactor broker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cf controlFlags
	cf.register(fs)
	brokers := fs.Int("brokers", 3, "number of brokers (node ids 0..N-1)")
	topics := fs.String("topics", "", "topics to create at start: `NAME:PARTITIONS`,... (e.g. orders:3,audit:1)")
	listen := fs.String("listen", "127.0.0.1", "`HOST` the brokers listen on (0.0.0.0 in a container)")
	advertise := fs.String("advertise", "", "`HOST` the brokers tell clients to connect to (default: the listen address)")
	ports := fs.String("ports", "", "the brokers' TCP `PORTS`, comma-separated, one per broker (default: free ones)")
	heartbeat := fs.Duration("heartbeat-interval", fakebroker.DefaultHeartbeatInterval, "KIP-848 / KIP-932 heartbeat interval given to members")
	session := fs.Duration("session-timeout", fakebroker.DefaultSessionTimeout, "KIP-848 / KIP-932 member session timeout")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kreactor broker [flags]\n\nServes a fake Kafka cluster until SIGTERM; prints its bootstrap address and the control API's URL.\nThe control API (HTTP/JSON, /v1; GET /v1/openapi.json) sets faults, reads the request log, groups and topics.\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	bad := func(format string, a ...any) error {
		fmt.Fprintf(stderr, "kreactor broker: "+format+"\n", a...)
		fs.Usage()
		return errUsage
	}
	if fs.NArg() > 0 {
		return bad("unexpected argument %q", fs.Arg(0))
	}
	if err := cf.check(); err != nil {
		return bad("%v", err)
	}
	if *brokers < 1 || *brokers > 64 {
		return bad("-brokers %d: want 1..64", *brokers)
	}
	cfg := fakebroker.Config{Brokers: *brokers, HeartbeatInterval: *heartbeat, SessionTimeout: *session, MaxRecords: cf.maxRecords,
		ListenHost: *listen, AdvertiseHost: *advertise}
	var err error
	if cfg.Topics, err = parseTopics(*topics); err != nil {
		return bad("-topics: %v", err)
	}
	if cfg.Ports, err = parsePorts(*ports); err != nil {
		return bad("-ports: %v", err)
	}
	b, err := fakebroker.Start(cfg)
	if err != nil {
		return err
	}
	defer b.Close()
	backend := control.FakeBroker(b)
	return cf.serve(context.Background(), backend, nil, stdout, stderr)
}

// parseTopics reads NAME:PARTITIONS,... Errors name the item: a name
// Kafka refuses (vocab.CheckTopicName), a count outside 1..10000, a topic
// given twice.
func parseTopics(s string) (map[string]int32, error) {
	out := map[string]int32{}
	if s == "" {
		return out, nil
	}
	for _, item := range strings.Split(s, ",") {
		name, n, ok := strings.Cut(strings.TrimSpace(item), ":")
		if !ok {
			n = "1"
		}
		p, err := strconv.ParseInt(n, 10, 32)
		if name == "" || err != nil || p < 1 || p > 10_000 {
			return nil, fmt.Errorf("%q: want NAME:PARTITIONS with 1..10000 partitions", item)
		}
		if err := vocab.CheckTopicName(name); err != nil {
			return nil, fmt.Errorf("%q: %w", item, err)
		}
		if prev, dup := out[name]; dup {
			return nil, fmt.Errorf("%q: topic %q given twice (first with %d partitions)", item, name, prev)
		}
		out[name] = int32(p)
	}
	return out, nil
}

// parsePorts reads PORT,...
func parsePorts(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, item := range strings.Split(s, ",") {
		p, err := strconv.Atoi(strings.TrimSpace(item))
		if err != nil || p < 1 || p > 65535 {
			return nil, fmt.Errorf("%q: want a TCP port 1..65535", item)
		}
		out = append(out, p)
	}
	return out, nil
}
