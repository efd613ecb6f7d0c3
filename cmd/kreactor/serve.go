package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kreactor/kreactor/fakebroker/control"
	"github.com/kreactor/kreactor/fakebroker/vocab"
)

// EnvToken is the environment variable the control API's bearer token may
// come from (so it does not show in ps); -token wins.
const EnvToken = "KREACTOR_TOKEN"

// controlFlags are the control API's flags, shared by broker and proxy.
type controlFlags struct {
	addr       string
	token      string
	maxBody    int64
	logBodies  string
	maxRecords int
	verbose    bool
}

func (c *controlFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.addr, "control", "127.0.0.1:0", "`HOST:PORT` of the HTTP control API (loopback unless told otherwise; port 0 picks one)")
	fs.StringVar(&c.token, "token", "", "bearer `TOKEN` every control request must carry (default $"+EnvToken+"; empty: none)")
	fs.Int64Var(&c.maxBody, "max-body", control.DefaultMaxBody, "largest control request body in `bytes`")
	fs.StringVar(&c.logBodies, "log-bodies", "", "`APIs` (comma-separated names) whose request bodies the log keeps; default the group protocol's; none: none")
	fs.IntVar(&c.maxRecords, "max-records", 1_000_000, "most requests the log keeps in memory (older ones are dropped and counted)")
	fs.BoolVar(&c.verbose, "v", false, "log faults installed and healed to stderr")
}

// check validates the flags, naming the bad value.
func (c *controlFlags) check() error {
	if _, _, err := net.SplitHostPort(c.addr); err != nil {
		return fmt.Errorf("-control %q: want HOST:PORT: %v", c.addr, err)
	}
	if c.maxBody < 1 {
		return fmt.Errorf("-max-body %d: must be >= 1", c.maxBody)
	}
	if c.maxRecords < 1 {
		return fmt.Errorf("-max-records %d: must be >= 1", c.maxRecords)
	}
	if c.token == "" {
		c.token = os.Getenv(EnvToken)
	}
	_, err := c.bodies()
	return err
}

// bodies parses -log-bodies (nil: the default).
func (c *controlFlags) bodies() ([]kmsg.Key, error) {
	switch c.logBodies {
	case "":
		return nil, nil
	case "none":
		return []kmsg.Key{}, nil
	}
	var out []kmsg.Key
	for _, name := range strings.Split(c.logBodies, ",") {
		k, ok := vocab.ParseAPIKey(strings.TrimSpace(name))
		if !ok {
			return nil, fmt.Errorf("-log-bodies: unknown Kafka API %q", name)
		}
		out = append(out, k)
	}
	return out, nil
}

// serve runs the control API for backend until SIGTERM or SIGINT (or ctx
// ends), printing the bootstrap and control addresses to stdout first;
// then it heals every fault and shuts the API down. verdict may be nil.
func (c *controlFlags) serve(ctx context.Context, backend control.Backend, verdict func(context.Context) (control.Verdict, error), stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return fmt.Errorf("-control %q: %w", c.addr, err)
	}
	url := "http://" + ln.Addr().String() + "/v1"
	bodies, _ := c.bodies()
	log := slog.New(slog.DiscardHandler)
	if c.verbose {
		log = slog.New(slog.NewTextHandler(stderr, nil))
	}
	srv, err := control.New(control.Config{Backend: backend, Token: c.token, MaxBody: c.maxBody, LogBodies: bodies, Verdict: verdict, ControlURL: url, Logger: log})
	if err != nil {
		ln.Close()
		return err
	}
	defer srv.Close()
	fmt.Fprintf(stdout, "bootstrap: %s\ncontrol: %s\n", strings.Join(backend.Addrs(), ","), url)
	if f, ok := stdout.(*os.File); ok {
		_ = f.Sync()
	}
	err = srv.Serve(ctx, ln)
	srv.Close()
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}
