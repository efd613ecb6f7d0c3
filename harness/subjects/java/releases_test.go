package java

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kreactor/kreactor/consumer"
)

// EnvReleases lists the kafka-clients releases TestReleases runs
// (space-separated); default: the oldest and newest supported.
const EnvReleases = "KREACTOR_JAVA_RELEASES"

// TestLocalClasspath runs the driver on kafka-clients given as jar paths
// (as a locally built prototype would be): the 4.3.1 release's jars from
// Maven, through KREACTOR_JAVA_CLASSPATH. The driver must report 4.3.1.
func TestLocalClasspath(t *testing.T) {
	requireJava(t)
	dir, err := findDriverDir(Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), DefaultStartTimeout)
	defer cancel()
	if _, err := runBuild(ctx, dir, "clients", "4.3.1"); err != nil {
		t.Fatal(err)
	}
	jars, err := filepath.Glob(filepath.Join(dir, "target", "clients", "4.3.1", "*.jar"))
	if err != nil || len(jars) == 0 {
		t.Fatalf("no 4.3.1 jars: %v", err)
	}
	t.Setenv(EnvClasspath, strings.Join(jars, ":"))
	t.Setenv(EnvClients, "4.4.0") // must be ignored when a classpath is given
	o := DefaultOptions()

	b := startBroker(t, map[string]int32{"t": 1})
	produce(t, b, "t", 3)
	c := newConsumer(t, o, props(t, b, "glocal", "consumer"))
	if v := c.Info().ClientsVersion; v != "4.3.1" {
		t.Fatalf("driver reports kafka-clients %q, want 4.3.1 (classpath %v)", v, c.Info().Classpath)
	}
	if cp := c.Info().Classpath; !strings.HasSuffix(cp[0], driverJar) || cp[len(cp)-1] != jars[len(jars)-1] {
		t.Errorf("classpath %v: want the driver jar first and the given jars last", cp)
	}
	if err := c.Subscribe("t"); err != nil {
		t.Fatal(err)
	}
	pollN(t, c, 3)
}

// TestReleases runs a regular and a share consumer on each release in
// KREACTOR_JAVA_RELEASES (default 4.0.0 and 4.4.0), checking what differs
// between releases: AcknowledgeType.RENEW (absent in early 4.x is reported
// as ErrUnsupported, never a crash).
func TestReleases(t *testing.T) {
	requireJava(t)
	releases := strings.Fields(os.Getenv(EnvReleases))
	if len(releases) == 0 {
		releases = []string{"4.0.0", "4.4.0"}
	}
	for _, v := range releases {
		t.Run(v, func(t *testing.T) {
			o := DefaultOptions()
			o.Classpath, o.Clients = nil, v
			b := startBroker(t, map[string]int32{"t": 1, "s": 1})
			produce(t, b, "t", 3)
			produce(t, b, "s", 3)

			c := newConsumer(t, o, props(t, b, "g-"+v, "consumer"))
			if got := c.Info().ClientsVersion; got != v {
				t.Fatalf("driver reports %q, want %s", got, v)
			}
			if err := c.Subscribe("t"); err != nil {
				t.Fatal(err)
			}
			pollN(t, c, 3)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := c.CommitSync(ctx); err != nil {
				t.Fatal(err)
			}
			m, err := c.Metrics("select-total")
			if err != nil {
				t.Fatal(err)
			}
			if sel, ok := m.Value("select-total"); !ok || sel <= 0 {
				t.Errorf("select-total %v (found %v)", sel, ok)
			}
			if cpu, err := c.CPU(); err != nil || cpu.Sub(CPUSample{}).Named(ThreadBackground) == 0 {
				t.Errorf("no %s thread with CPU time in /proc (%v): the background thread's name changed?", ThreadBackground, err)
			}
			if err := c.Close(ctx); err != nil {
				t.Fatal(err)
			}

			s := newShareConsumer(t, o, b, "sg-"+v)
			// Its own deadline: the regular consumer's may be mostly spent
			// on a loaded machine (a commitSync with the rest of it timed
			// out at load average 54).
			ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := s.Subscribe("s"); err != nil {
				t.Fatal(err)
			}
			recs := pollShareN(t, s, 1, nil)
			err = s.Acknowledge(recs[0], consumer.Renew)
			switch {
			case err == nil:
				t.Logf("kafka-clients %s: AcknowledgeType.RENEW supported", v)
			case errors.Is(err, ErrUnsupported):
				t.Logf("kafka-clients %s: %v", v, err)
			default:
				t.Errorf("kafka-clients %s: RENEW: %v, want success or ErrUnsupported", v, err)
			}
			for _, r := range recs {
				if err := s.Acknowledge(r, consumer.Accept); err != nil {
					t.Fatalf("accept %d: %v", r.Offset, err)
				}
			}
			if _, err := s.CommitSync(ctx); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}
