package scenario

import (
	"errors"
	"strings"
	"testing"
)

// good is the base every bad input below changes in one place.
const good = `# checks something
id: x.y
covers: [KAFKA-20253]
cluster:
  topics: {t: 3}
consumer:
  group: true
steps:
  - subscribe: [t]
  - window: w
  - poll_for: {duration: 1s}
  - end_window: w
expect:
  # ten steps: an example bound
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
	if sc.ID != "x.y" || sc.Title != "checks something" || len(sc.Steps) != 4 || sc.Cluster.Topics["t"] != 3 || sc.Consumers[0].Name != DefaultConsumer {
		t.Fatalf("parsed %+v", sc)
	}
}

// A bare --- at the end starts an empty document: nothing is lost, so it
// loads (a second document with content does not: TestBadInputsNameFileLineKey).
func TestParseTrailingEmptyDocument(t *testing.T) {
	if _, err := Parse("good.yaml", []byte(good+"---\n")); err != nil {
		t.Fatal(err)
	}
}

// Every bad input is an *Error naming the
// file, the line and the key, with a message saying what is wrong, or the
// limit it breaks; nothing crashes, hangs or grows.
func TestBadInputsNameFileLineKey(t *testing.T) {
	tests := []struct {
		name, from, to string
		line           int
		key            string
		msg            string
	}{
		// Keys, steps, faults, expectations the vocabulary does not have.
		{"unknown top-level key", "expect:", "expekt:", 13, "expekt", "unknown key in scenario"},
		{"unknown step", "  - subscribe: [t]", "  - subscrib: [t]", 9, "subscrib", "unknown step"},
		{"unknown step argument", "  - poll_for: {duration: 1s}", "  - poll_for: {duration: 1s, jitter: 2}", 11, "jitter", "unknown key in step poll_for"},
		{"unknown fault kind", "  - window: w\n", "  - fault: {kind: meteor}\n  - window: w\n", 10, "meteor", "unknown fault kind"},
		{"unknown API", "  - window: w\n", "  - fault: {kind: hold, key: FindCoordinatr}\n  - window: w\n", 10, "FindCoordinatr", "unknown Kafka API"},
		{"unknown Kafka error", "  - window: w\n", "  - fault: {kind: error, key: Fetch, error: NOT_AN_ERROR}\n  - window: w\n", 10, "NOT_AN_ERROR", "unknown Kafka error"},
		{"unknown expectation", "  - steps: {window: w, max: 10}", "  - stepz: {window: w, max: 10}", 15, "stepz", "unknown expectation"},
		{"unknown window", "  - steps: {window: w, max: 10}", "  - steps: {window: nope, max: 10}", 15, "nope", "unknown window"},
		{"bad duration", "{duration: 1s}", "{duration: soon}", 11, "duration", "want a duration"},
		{"missing required", "id: x.y\n", "", 2, "id", "missing required key"},
		{"unknown catalogue item", "covers: [KAFKA-20253]", "covers: [KAFKA-99999]", 3, "KAFKA-99999", "catalogue does not have"},
		{"negative bound", "max: 10}", "max: -5}", 15, "max", "non-negative"},
		{"signal names no expectation", "signals: [steps.w]", "signals: [steps.x]", 17, "steps.x", "names a key no expectation has"},
		{"regression without liveness", "liveness: [delivered]\n", "", 1, "liveness", "names its liveness"},
		{"second YAML document", "liveness: [delivered]\n", "liveness: [delivered]\n---\nid: x\n", 20, "", "a second YAML document"},
		{"garbage after the document's end", "liveness: [delivered]\n", "liveness: [delivered]\n...\ngarbage: [\n", 0, "", "not valid YAML after the scenario's document"},
		{"YAML syntax", "  - window: w\n", "  - window: w\n   bad: indent\n", 0, "", "not valid YAML"},
		{"unknown consumer", "{duration: 1s}", "{duration: 1s, consumer: ghost}", 11, "ghost", "unknown consumer"},
		{"unknown topic", "  - subscribe: [t]", "  - subscribe: [nope]", 9, "nope", "not a topic of the cluster"},
		{"wrong consumer kind", "  - subscribe: [t]", "  - subscribe: [t]\n  - acknowledge: {type: accept}", 10, "acknowledge", "step of a share consumer"},
		{"share setting on a share consumer", "  group: true\n", "  kind: share\n  enable_auto_commit: true\n", 8, "enable_auto_commit", "not a share consumer setting"},
		// An id that crashed the Ginkgo tree at construction.
		{"id with a slash", "id: x.y", "id: X/Y", 2, "X/Y", "spec id"},
		{"id with a colon", "id: x.y", "id: \"x:y\"", 2, "x:y", "spec id"},
		{"covered id with a space", "covers: [KAFKA-20253]", "covers: [KAFKA 20253]", 3, "covers", "must not contain spaces"},
		// Bounds the run would reject or half-ignore.
		{"min above max", "  - steps: {window: w, max: 10}", "  - steps: {window: w, min: 20, max: 10}", 15, "min", "above max"},
		{"two upper bounds", "  - steps: {window: w, max: 10}", "  - steps: {window: w, max: 10}\n  # an example\n  - requests: {key: FindCoordinator, window: w, max: 3, max_backoff_plus: 2}", 17, "max_backoff_plus", "only one would apply"},
		{"report_only with a bound", "  - steps: {window: w, max: 10}", "  - steps: {window: w, max: 10, report_only: true}", 15, "report_only", "no bound"},
		{"no bound", "  - steps: {window: w, max: 10}", "  - steps: {window: w}", 15, "steps", "needs a bound"},
		{"duration min above max", "  - delivered: {records: 0}", "  - delivered: {records: 0}\n  # an example\n  - duration: {of: p, min: 2s, max: 1s}", 18, "min", "above max"},
		{"literal bound without a comment", "  # ten steps: an example bound\n", "", 14, "steps", "literal bound carries a comment"},
		{"two expectations, one key", "  - delivered: {records: 0}", "  - delivered: {records: 0}\n  - delivered: {records: 1}", 17, "delivered", "two expectations have this key"},
		{"where on a field the API lacks", "  - delivered: {records: 0}", "  - delivered: {records: 0}\n  - requests: {key: ConsumerGroupHeartbeat, where: {epoch: 1}, min: 1}", 17, "where", "no field \"epoch\""},
		// Faults: a hold with no key, arguments a kind ignores, nodes that do not exist.
		{"hold with no key", "  - window: w\n", "  - fault: {kind: hold}\n  - window: w\n", 10, "key", "needs key"},
		{"extra argument to a fault", "  - window: w\n", "  - fault: {kind: brokers-down, key: Fetch}\n  - window: w\n", 10, "key", "would be ignored"},
		{"topic on an API without topics", "  - window: w\n", "  - fault: {kind: error, key: ApiVersions, error: NOT_COORDINATOR, topic: t}\n  - window: w\n", 10, "topic", "ApiVersions requests carry no topic: topic \"t\" would never match"},
		{"delay of zero", "  - window: w\n", "  - fault: {kind: delay, key: Fetch, delay: 0s}\n  - window: w\n", 10, "delay", "must be > 0"},
		{"node the cluster lacks", "  - window: w\n", "  - fault: {kind: stop-broker, node: 4}\n  - window: w\n", 10, "4", "the cluster has 3 brokers"},
		{"heal of an unknown fault", "  - window: w\n", "  - heal: ghost\n  - window: w\n", 10, "ghost", "heal of a fault not installed"},
		// A partition that does not exist; brokers: 0 silently defaulted.
		{"partition that does not exist", "  - subscribe: [t]", "  - assign: {t: [5]}", 9, "t", "partition 5 does not exist"},
		{"seek to a partition that does not exist", "  - subscribe: [t]", "  - subscribe: [t]\n  - seek: {topic: t, partition: 3, offset: 0}", 10, "partition", "partition 3 does not exist"},
		{"brokers: 0", "cluster:\n", "cluster:\n  brokers: 0\n", 5, "brokers", "want 1..5 brokers"},
		{"zero heartbeat interval", "cluster:\n", "cluster:\n  heartbeat_interval: 0s\n", 5, "heartbeat_interval", "leave the key out"},
		// Configuration errors at load, with their line (not at run time).
		{"config error at load", "  group: true\n", "  group: true\n  max_poll_records: 0\n", 8, "max_poll_records", "refuses this configuration"},
		{"zero retry backoff without config_rejected", "  group: true\n", "  group: true\n  retry_backoff: 0s\n", 8, "retry_backoff", "config_rejected: {field: RetryBackoff}"},
		{"retry backoff above its max", "  group: true\n", "  group: true\n  retry_backoff: 2s\n", 7, "retry_backoff_max", "its default conflicts"},
		// Limits: counts, durations, sizes.
		{"produce count of 2e9", "  - subscribe: [t]", "  - produce: {topic: t, count: 2000000000}", 9, "count", "MaxProduce"},
		{"count written 2e9", "  - subscribe: [t]", "  - produce: {topic: t, count: 2e9}", 9, "count", "written in digits"},
		{"an 87,600 h poll", "  - poll_for: {duration: 1s}", "  - poll: {timeout: 87600h}", 11, "timeout", "MaxCallTimeout"},
		{"timeline too long", "  - poll_for: {duration: 1s}", strings.Repeat("  - sleep: 60s\n", 4) + "  - poll_for: {duration: 1s}", 1, "steps", "MaxTimeline"},
		{"produce total", "  - subscribe: [t]", strings.Repeat("  - produce: {topic: t, count: 100000}\n", 11) + "  - subscribe: [t]", 19, "count", "MaxProduceTotal"},
		{"YAML alias", "  - poll_for: {duration: 1s}", "  - poll_for: {duration: &d 1s}", 11, "", "anchors and aliases"},
		{"partitions above MaxPartitions", "topics: {t: 3}", "topics: {t: 1000}", 5, "t", "MaxPartitions"},
		// wait_assigned says whether it polls.
		{"wait_assigned without poll", "  - window: w\n", "  - wait_assigned: {timeout: 5s}\n  - window: w\n", 10, "poll", "missing required key"},
		// The timeline: backgrounds, anchors, names.
		{"consumer busy with a background step", "  - end_window: w", "  - poll_for: {duration: 1s, background: true, as: bg}\n  - poll: {timeout: 1s}\n  - end_window: w", 13, "poll", "busy with the background"},
		{"unnamed background step", "  - poll_for: {duration: 1s}", "  - poll_for: {duration: 1s, background: true}", 11, "background", "name a background step"},
		{"at: names no step", "  - end_window: w", "  - end_window: {name: w, at: ghost+1s}", 12, "ghost", "at: names no step"},
		{"at: on a step that cannot be timed", "{duration: 1s}", "{duration: 1s, at: 1s}", 11, "at", "unknown key in step poll_for"},
		{"a name with a NUL", "{duration: 1s}", "{duration: 1s, as: \"p\\0q\"}", 11, "as", "printable characters only"},
		{"a window name with a BEL", "  - end_window: w", "  - end_window: \"w\\a\"", 12, "name", "printable characters only"},
		{"a name used twice", "{duration: 1s}", "{duration: 1s, as: p}\n  - poll: {timeout: 1s, as: p}", 12, "p", "step name used twice"},
		{"join of a step that is not in the background", "  - end_window: w", "  - join: w\n  - end_window: w", 12, "w", "join names no background step"},
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

// A refusal the file expects (config_rejected naming the field) is not a
// load error: the subject decides at run time.
func TestConfigRejectedAllowsItsField(t *testing.T) {
	src := strings.Replace(good, "  group: true\n", "  group: true\n  retry_backoff: 0s\n", 1)
	src = strings.Replace(src, "  - delivered: {records: 0}", "  - delivered: {records: 0}\n  - config_rejected: {field: RetryBackoff}", 1)
	if _, err := Parse("ok.yaml", []byte(src)); err != nil {
		t.Fatal(err)
	}
	// Another field's refusal still is.
	src = strings.Replace(src, "  retry_backoff: 0s\n", "  retry_backoff: 0s\n  max_poll_records: 0\n", 1)
	var e *Error
	if _, err := Parse("bad.yaml", []byte(src)); !errors.As(err, &e) || e.Key != "max_poll_records" {
		t.Fatalf("err = %v, want the max_poll_records refusal", err)
	}
}
