package control

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kreactor/kreactor/containers/proxy"
	"github.com/kreactor/kreactor/fakebroker"
)

// TestProxyGroupBoundedWhenUpstreamDies: once the upstream cluster is
// gone, GET /v1/groups/{group} through the proxy backend answers 502
// within the admin timeout, saying so, instead of after the admin
// client's retries.
func TestProxyGroupBoundedWhenUpstreamDies(t *testing.T) {
	fb, err := fakebroker.Start(fakebroker.Config{Brokers: 1, Topics: map[string]int32{"t": 1}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	p, err := proxy.Start(ctx, proxy.Config{Upstream: fb.Addrs()})
	if err != nil {
		fb.Close()
		t.Fatal(err)
	}
	defer p.Close()
	backend, err := Proxy(p, fb.Addrs())
	if err != nil {
		fb.Close()
		t.Fatal(err)
	}
	defer backend.Close()
	const timeout = 500 * time.Millisecond
	backend.(*proxyBackend).timeout = timeout
	if _, err := backend.Group(ctx, "g"); err != nil {
		t.Fatalf("Group while the upstream runs: %v", err)
	}
	fb.Close()
	start := time.Now()
	_, err = backend.Group(ctx, "g")
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "did not answer within 500ms") {
		t.Errorf("Group after the upstream died: %v, want the admin timeout named", err)
	}
	// Coordinator and the describe each get up to the timeout, in one bound.
	if took > timeout+2*time.Second {
		t.Errorf("Group after the upstream died took %s, want about %s", took, timeout)
	}
}
