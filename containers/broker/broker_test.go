package broker

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"go.uber.org/goleak"

	"github.com/kreactor/kreactor/containers"
)

// EnvRequireImage makes TestContainer fail, not skip, without the image
// (make broker-process-tests sets it after make broker-image).
const EnvRequireImage = "KREACTOR_REQUIRE_BROKER_IMAGE"

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestContainer starts the image (make broker-image), produces and
// consumes through it from the host, sets a fault over HTTP and sees it
// hit, and stops it. Skipped without Docker or the image unless
// KREACTOR_REQUIRE_DOCKER is set.
func TestContainer(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := containers.DockerAvailable(ctx); err != nil {
		skipOrFail(t, err)
	}
	if err := containers.ImagePresent(ctx, DefaultImage); err != nil {
		if os.Getenv(EnvRequireImage) == "" {
			t.Skipf("skipped: %v (make broker-image builds it; set %s=1 to fail instead)", err, EnvRequireImage)
		}
		t.Fatal(err)
	}
	b, err := Start(ctx, Options{Brokers: 2, Topics: map[string]int32{"t": 2}, Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Terminate(context.Background())
	post := func(path, body string) map[string]any {
		req, _ := http.NewRequestWithContext(ctx, "POST", b.ControlURL()+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		if resp.StatusCode >= 300 {
			t.Fatalf("POST %s: %d %v", path, resp.StatusCode, out)
		}
		return out
	}
	post("/produce", `{"topic": "t", "count": 4}`)
	f := post("/faults", `{"kind": "error", "key": "ListOffsets", "error": "NOT_LEADER_FOR_PARTITION", "first": 1}`)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Bootstrap()...), kgo.ConsumeTopics("t"), kgo.ConsumeResetOffset(kgo.NewOffset().AtEnd().Relative(-2)))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	n := 0
	for n < 4 && ctx.Err() == nil {
		n += len(cl.PollFetches(ctx).Records())
	}
	if n < 4 {
		t.Fatalf("consumed %d of 4 through the container", n)
	}
	req, _ := http.NewRequestWithContext(ctx, "GET", b.ControlURL()+"/faults/"+f["id"].(string), nil)
	req.Header.Set("Authorization", "Bearer tok")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if st["hits"] != float64(1) {
		t.Errorf("fault %v: hits %v, want 1", f["id"], st["hits"])
	}
}

func skipOrFail(t *testing.T, err error) {
	t.Helper()
	if os.Getenv(containers.EnvRequireDocker) == "" {
		t.Skipf("skipped: %v (set %s=1 to fail instead)", err, containers.EnvRequireDocker)
	}
	t.Fatal(err)
}
