package scenario

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Every shipped scenario file loads.
func TestShippedScenariosLoad(t *testing.T) {
	scs, err := LoadDir("../../specs/scenarios")
	if err != nil {
		t.Fatal(err)
	}
	if len(scs) < 10 {
		t.Fatalf("loaded %d scenarios, want at least 10", len(scs))
	}
	for _, sc := range scs {
		if sc.Title == "" || len(sc.Covers) == 0 || len(sc.Steps) == 0 || len(sc.Expect) == 0 {
			t.Errorf("%s: incomplete: %+v", sc.File, sc)
		}
	}
}

const good = `# checks something
id: x.y
covers: [KAFKA-20253]
cluster:
  topics: {t: 1}
consumer:
  group: true
steps:
  - subscribe: [t]
  - window: w
  - poll_for: {duration: 1s}
  - end_window: w
expect:
  - steps: {window: w, max: 10}
  - delivered: {records: 0}
signals: [steps.w]
liveness: [delivered]
`

func TestParseGood(t *testing.T) {
	sc, err := Parse("good.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if sc.ID != "x.y" || sc.Title != "checks something" || len(sc.Steps) != 4 || sc.Cluster.Topics["t"] != 1 {
		t.Fatalf("parsed %+v", sc)
	}
}

// Bad files fail with an error naming the file, the line and the key.
func TestParseErrorsNameFileLineKey(t *testing.T) {
	tests := []struct {
		name, from, to string
		line           int
		key            string
		msg            string
	}{
		{"unknown top-level key", "expect:", "expekt:", 13, "expekt", "unknown key in scenario"},
		{"unknown step", "  - subscribe: [t]", "  - subscrib: [t]", 9, "subscrib", "unknown step"},
		{"unknown step argument", "  - poll_for: {duration: 1s}", "  - poll_for: {duration: 1s, jitter: 2}", 11, "jitter", "unknown key in step poll_for"},
		{"unknown fault kind", "  - window: w", "  - fault: {kind: meteor}", 10, "meteor", "unknown fault kind"},
		{"unknown API", "  - window: w", "  - fault: {kind: hold, key: FindCoordinatr}", 10, "FindCoordinatr", "unknown Kafka API"},
		{"unknown Kafka error", "  - window: w", "  - fault: {kind: error, key: Fetch, error: NOT_AN_ERROR}", 10, "NOT_AN_ERROR", "unknown Kafka error"},
		{"unknown expectation", "  - steps: {window: w, max: 10}", "  - stepz: {window: w, max: 10}", 14, "stepz", "unknown expectation"},
		{"unknown window", "  - steps: {window: w, max: 10}", "  - steps: {window: nope, max: 10}", 14, "nope", "unknown window"},
		{"bad duration", "{duration: 1s}", "{duration: soon}", 11, "", "want a duration"},
		{"missing required", "id: x.y\n", "", 2, "id", "missing required key"},
		{"unknown catalogue item", "covers: [KAFKA-20253]", "covers: [KAFKA-99999]", 1, "KAFKA-99999", "catalogue does not have"},
		{"negative bound", "max: 10}", "max: -5}", 14, "", "non-negative"},
		{"signal names no expectation", "signals: [steps.w]", "signals: [steps.x]", 16, "steps.x", "names a key no expectation has"},
		{"regression without liveness", "liveness: [delivered]\n", "", 1, "liveness", "names its liveness"},
		{"YAML syntax", "  - window: w\n", "  - window: w\n   bad: indent\n", 0, "", "not valid YAML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(good, tt.from, tt.to, 1)
			if src == good {
				t.Fatalf("replacement %q not found", tt.from)
			}
			_, err := Parse("bad.yaml", []byte(src))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if e.File != "bad.yaml" || (tt.line != 0 && e.Line != tt.line) || e.Key != tt.key || !strings.Contains(e.Msg, tt.msg) {
				t.Fatalf("err = %q (line %d key %q), want line %d key %q containing %q", err, e.Line, e.Key, tt.line, tt.key, tt.msg)
			}
			if !strings.HasPrefix(err.Error(), "bad.yaml:") {
				t.Fatalf("message %q does not start with the file name", err)
			}
		})
	}
}

func TestParseRequiresOpeningComment(t *testing.T) {
	_, err := Parse("x.yaml", []byte(strings.TrimPrefix(good, "# checks something\n")))
	if err == nil || !strings.Contains(err.Error(), "first line") {
		t.Fatalf("err = %v", err)
	}
}

func TestLoadMissingFileNamesIt(t *testing.T) {
	_, err := Load("no/such/file.yaml")
	if err == nil || !strings.Contains(err.Error(), "no/such/file.yaml") {
		t.Fatalf("err = %v", err)
	}
}

// The consumer section sets the Java keys of issue 10 (max.poll.interval.ms,
// reconnect.backoff.ms, reconnect.backoff.max.ms,
// socket.connection.setup.timeout.ms and .max.ms, default.api.timeout.ms)
// into the consumer's configuration; a bad value names its key.
func TestParseContractConfigKeys(t *testing.T) {
	src := strings.Replace(good, "  group: true\n", `  group: true
  max_poll_interval: 1s
  reconnect_backoff: 20ms
  reconnect_backoff_max: 400ms
  socket_connection_setup_timeout: 2s
  socket_connection_setup_timeout_max: 4s
  default_api_timeout: 7s
`, 1)
	sc, err := Parse("keys.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}

	cs := sc.Client
	for name, kv := range map[string]struct {
		got  *time.Duration
		want time.Duration
	}{
		"max_poll_interval": {cs.MaxPollInterval, time.Second}, "reconnect_backoff": {cs.ReconnectBackoff, 20 * time.Millisecond},
		"reconnect_backoff_max": {cs.ReconnectBackoffMax, 400 * time.Millisecond}, "socket_connection_setup_timeout": {cs.SocketConnectionSetupTimeout, 2 * time.Second},
		"socket_connection_setup_timeout_max": {cs.SocketConnectionSetupTimeoutMax, 4 * time.Second}, "default_api_timeout": {cs.DefaultAPITimeout, 7 * time.Second},
	} {
		if kv.got == nil || *kv.got != kv.want {
			t.Fatalf("%s parsed as %v, want %s", name, kv.got, kv.want)
		}
	}

	bad := strings.Replace(src, "max_poll_interval: 1s", "max_poll_interval: soon", 1)
	var pe *Error
	if _, err := Parse("bad.yaml", []byte(bad)); !errors.As(err, &pe) || pe.Line == 0 {
		t.Fatalf("bad max_poll_interval: %v, want an *Error with its line", err)
	}
}
