package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kreactor/kreactor/containers/proxy"
	"github.com/kreactor/kreactor/fakebroker/control"
)

// runProxy is `kreactor proxy`: the recording, fault-injecting proxy in
// front of a real cluster, with the same control API as kreactor broker.
func runProxy(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("kreactor proxy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cf controlFlags
	cf.register(fs)
	upstream := fs.String("upstream", "", "bootstrap `HOST:PORT`[,...] of the cluster to front (loopback addresses)")
	wait := fs.Duration("wait", 30*time.Second, "how long to wait for the upstream cluster to answer at start")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kreactor proxy -upstream HOST:PORT [flags]\n\nFronts a real Kafka cluster until SIGTERM (one loopback listener per broker), recording every request and\ninjecting faults; prints the bootstrap address and the control API's URL (the same API as kreactor broker).\n\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	bad := func(format string, a ...any) error {
		fmt.Fprintf(stderr, "kreactor proxy: "+format+"\n", a...)
		fs.Usage()
		return errUsage
	}
	if fs.NArg() > 0 {
		return bad("unexpected argument %q", fs.Arg(0))
	}
	if *upstream == "" {
		return bad("-upstream is required")
	}
	if err := cf.check(); err != nil {
		return bad("%v", err)
	}
	if *wait <= 0 {
		return bad("-wait %s: must be > 0", *wait)
	}
	addrs := strings.Split(*upstream, ",")
	ctx, cancel := context.WithTimeout(context.Background(), *wait)
	p, err := proxy.Start(ctx, proxy.Config{Upstream: addrs, MaxRecords: cf.maxRecords})
	cancel()
	if err != nil {
		return err
	}
	defer p.Close()
	backend, err := control.Proxy(p, addrs)
	if err != nil {
		return err
	}
	defer backend.Close()
	return cf.serve(context.Background(), backend, nil, stdout, stderr)
}
