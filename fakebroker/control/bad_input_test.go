package control

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// zeros is an endless body (n bytes of JSON whitespace), so a 100 MB body
// costs no memory in the test.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), z.n)
	for i := range k {
		p[i] = ' '
	}
	z.n -= k
	return int(k), nil
}

// TestBadInput: every kind of bad control input gets a 4xx whose JSON
// error names the value, installs nothing, and the brokers keep serving a
// client that was connected before and one that connects after.
func TestBadInput(t *testing.T) {
	e := newEnv(t, Config{})
	before := e.client(t)
	if code := findCoordinator(t, before, "g"); code != 0 {
		t.Fatalf("FindCoordinator before: code %d", code)
	}
	const hb = "ConsumerGroupHeartbeat"
	cases := []struct {
		name, method, path string
		body               any
		status             int
		names              string // the error must contain this
	}{
		{"unknown kind", "POST", "/v1/faults", `{"kind": "meltdown"}`, 400, `"meltdown"`},
		{"unknown API key", "POST", "/v1/faults", `{"kind": "error", "key": "NoSuchApi", "error": "NOT_COORDINATOR"}`, 400, `"NoSuchApi"`},
		{"unknown API number", "POST", "/v1/faults", `{"kind": "hold", "key": "9999"}`, 400, `"9999"`},
		{"unknown error name", "POST", "/v1/faults", `{"kind": "error", "key": "Fetch", "error": "NOT_A_KAFKA_ERROR"}`, 400, `"NOT_A_KAFKA_ERROR"`},
		{"unknown field", "POST", "/v1/faults", `{"kind": "hold", "key": "Fetch", "colour": "red"}`, 400, `colour`},
		{"argument the kind does not take", "POST", "/v1/faults", `{"kind": "refuse", "key": "Fetch"}`, 400, `key would be ignored`},
		{"missing argument", "POST", "/v1/faults", `{"kind": "delay", "key": "Fetch"}`, 400, `needs delay`},
		{"malformed JSON", "POST", "/v1/faults", `{"kind": "hold",`, 400, `malformed JSON`},
		{"not an object", "POST", "/v1/faults", `["hold"]`, 400, `want a JSON object, got JSON array`},
		{"wrong type", "POST", "/v1/faults", `{"kind": 5}`, 400, `kind`},
		{"empty body", "POST", "/v1/faults", ``, 400, `empty body`},
		{"unknown broker", "POST", "/v1/faults", `{"kind": "refuse", "node": 7}`, 400, `node = 7: no such broker (brokers: 0, 1, 2)`},
		{"negative broker", "POST", "/v1/faults", `{"kind": "hold", "key": "Fetch", "node": -1}`, 400, `node = -1`},
		{"bad node", "POST", "/v1/faults", `{"kind": "refuse", "node": "leader"}`, 400, `"leader"`},
		{"coordinator without group", "POST", "/v1/faults", `{"kind": "black-hole", "node": "coordinator"}`, 400, `needs group`},
		{"selector on a field the API does not have", "POST", "/v1/faults", `{"kind": "error", "key": "` + hb + `", "error": "FENCED_MEMBER_EPOCH", "where": {"colour": 1}}`, 400, `no field "colour" (fields: group, instance_id, member_epoch, member_id`},
		{"selector value of the wrong type", "POST", "/v1/faults", `{"kind": "hold", "key": "` + hb + `", "where": {"member_epoch": "zero"}}`, 400, `"zero"`},
		{"selector value not scalar", "POST", "/v1/faults", `{"kind": "hold", "key": "` + hb + `", "where": {"member_epoch": [0]}}`, 400, `where.member_epoch`},
		{"bad duration", "POST", "/v1/faults", `{"kind": "delay", "key": "Fetch", "delay": "soon"}`, 400, `"soon"`},
		{"zero delay", "POST", "/v1/faults", `{"kind": "delay", "key": "Fetch", "delay": "0s"}`, 400, `delay = "0s"`},
		{"expiry too long", "POST", "/v1/faults", `{"kind": "hold", "key": "Fetch", "expires": "100000h"}`, 400, `"100000h"`},
		{"nth 0", "POST", "/v1/faults", `{"kind": "hold", "key": "Fetch", "nth": 0}`, 400, `nth = 0`},
		{"first and nth", "POST", "/v1/faults", `{"kind": "hold", "key": "Fetch", "nth": 2, "first": 1}`, 400, `give one`},
		{"probability above 1", "POST", "/v1/faults", `{"kind": "hold", "key": "Fetch", "probability": 2}`, 400, `probability = 2`},
		{"probability 0", "POST", "/v1/faults", `{"kind": "error", "key": "Fetch", "error": "NOT_COORDINATOR", "probability": 0}`, 400, `probability = 0: must be > 0 and <= 1`},
		{"probability 0.0", "POST", "/v1/faults", `{"kind": "hold", "key": "Fetch", "probability": 0.0}`, 400, `probability = 0`},
		{"first 0", "POST", "/v1/faults", `{"kind": "hold", "key": "Fetch", "first": 0}`, 400, `first = 0`},
		{"group without node coordinator", "POST", "/v1/faults", `{"kind": "black-hole", "group": "g"}`, 400, `group = "g": fault black-hole reads group only with node: coordinator`},
		{"group with a node id", "POST", "/v1/faults", `{"kind": "refuse", "node": 0, "group": "g"}`, 400, `group = "g"`},
		{"group on a selecting kind without node", "POST", "/v1/faults", `{"kind": "hold", "key": "Fetch", "group": "g"}`, 400, `group = "g"`},
		{"topic on an API without topics", "POST", "/v1/faults", `{"kind": "error", "key": "ApiVersions", "error": "NOT_COORDINATOR", "topic": "t"}`, 400, `topic = "t": ApiVersions requests carry no topic`},
		{"seed without probability", "POST", "/v1/faults", `{"kind": "hold", "key": "Fetch", "seed": 3}`, 400, `seed = 3`},
		{"unknown fault id", "DELETE", "/v1/faults/f42", nil, 404, `"f42"`},
		{"unknown route", "GET", "/v1/brokers/9", nil, 404, `"/v1/brokers/9"`},
		{"log: bad limit", "GET", "/v1/log?limit=many", nil, 400, `"many"`},
		{"log: unknown API", "GET", "/v1/log?key=Fetch,Nope", nil, 400, `"Nope"`},
		{"log: unknown broker", "GET", "/v1/log?broker=9", nil, 400, `broker = "9"`},
		{"log: unknown parameter", "GET", "/v1/log?since=5", nil, 400, `since`},
		{"produce: unknown topic", "POST", "/v1/produce", `{"topic": "nope", "count": 1}`, 404, `"nope"`},
		{"produce: count", "POST", "/v1/produce", `{"topic": "t", "count": 0}`, 400, `count = 0`},
		{"topic: bad name", "POST", "/v1/topics", `{"name": "a b", "partitions": 1}`, 400, `"a b"`},
		{"topic: ..", "POST", "/v1/topics", `{"name": "..", "partitions": 1}`, 400, `name = "..": topic name ".."`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, data := e.do(t, c.method, c.path, c.body)
			checkErr(t, st, data, c.status, c.names)
		})
	}
	t.Run("100 MB body with Content-Length", func(t *testing.T) {
		st, data := e.send(t, &zeros{n: 100 << 20}, 100<<20)
		checkErr(t, st, data, 413, "1048576")
	})
	t.Run("100 MB body chunked", func(t *testing.T) {
		st, data := e.send(t, &zeros{n: 100 << 20}, -1)
		checkErr(t, st, data, 413, "1048576")
	})
	if _, data := e.do(t, "GET", "/v1/faults", nil); strings.TrimSpace(string(data)) != "[]" {
		t.Errorf("bad input installed faults: %s", data)
	}
	// The brokers kept serving: the client connected before answers, and
	// a new one produces and consumes.
	if code := findCoordinator(t, before, "g"); code != 0 {
		t.Errorf("FindCoordinator after: code %d", code)
	}
	st, data := e.do(t, "POST", "/v1/produce", map[string]any{"topic": "t", "count": 3})
	if st != 200 {
		t.Fatalf("produce after bad input: %d %s", st, data)
	}
	after := e.client(t, kgo.ConsumeTopics("t"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	n := 0
	for n < 3 && ctx.Err() == nil {
		n += len(after.PollFetches(ctx).Records())
	}
	if n < 3 {
		t.Errorf("consumed %d of 3 records after bad input", n)
	}
}

// TestToken: with a token, a request without it or with another gets 401;
// with it, 200.
func TestToken(t *testing.T) {
	e := newEnv(t, Config{Token: "s3cret"})
	for _, auth := range []string{"", "Bearer wrong", "s3cret", "Basic s3cret"} {
		req, _ := http.NewRequest("GET", e.url+"/v1", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := e.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		checkErr(t, resp.StatusCode, data, 401, "Bearer")
	}
	req, _ := http.NewRequest("GET", e.url+"/v1", nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err := e.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("with the token: %d", resp.StatusCode)
	}
}

// send POSTs body to /v1/faults with Content-Length n (-1: chunked).
func (e *env) send(t *testing.T, body io.Reader, n int64) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest("POST", e.url+"/v1/faults", body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = n
	resp, err := e.hc.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

func checkErr(t *testing.T, st int, data []byte, status int, names string) {
	t.Helper()
	var e Error
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatalf("status %d, body not an Error: %v: %s", st, err, data)
	}
	if st != status || e.Status != status {
		t.Errorf("status %d (body %d), want %d: %s", st, e.Status, status, data)
	}
	if msg := e.Error(); !strings.Contains(msg, names) {
		t.Errorf("error %q does not name %s", msg, names)
	}
}
