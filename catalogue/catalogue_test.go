package catalogue

import (
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestLoadEmbedded(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := []string{
		"E2E-1", "E2E-2", "E2E-3", "P1", "P2", "P3", "P4", "P5", "P6",
		"KAFKA-20253", "KAFKA-20426", "KAFKA-20970", "KAFKA-20854", "KAFKA-18641",
		"KAFKA-20397", "KAFKA-18569", "KAFKA-19357", "KAFKA-21031", "KAFKA-21049",
		"SHARE-1", "SHARE-2", "SHARE-3", "SHARE-4",
		"CONTRACT-1", "CONTRACT-2", "CONTRACT-3", "CONTRACT-4", "CONTRACT-5", "CONTRACT-6", "CONTRACT-7",
		"CONTRACT-8", "CONTRACT-9", "CONTRACT-10",
		"CONTRACT-ZERO-TIMEOUT", "CONTRACT-RETRY-DEADLINE", "CONTRACT-TIMER-REFERENCE", "CONTRACT-JOIN-IN-POLL", "CONTRACT-EMPTY-FETCH-PACING",
		"CONTRACT-REBALANCE", "CONTRACT-STATIC-MEMBER",
		"EXT-KAFKA-19884", "EXT-SARAMA-546", "EXT-KAFKA-PYTHON-1764", "EXT-KAFKA-PYTHON-1848", "EXT-KAFKAJS-395",
		"EXT-PLATFORMATIC-340", "EXT-LIBRDKAFKA-1002", "SCENARIO-FILES",
		"FIDELITY", "FIDELITY-SHARE-BATCHES", "FIDELITY-HEARTBEAT-UNKNOWN-GROUP", "FIDELITY-STOP-LAST-BROKER",
	}
	for i, id := range want {
		it, ok := c.Lookup(id)
		if !ok {
			t.Errorf("item %s missing", id)
			continue
		}
		if c.Position(id) != i {
			t.Errorf("item %s at position %d, want %d", id, c.Position(id), i)
		}
		if it.Kind == KindRegression && it.Source != it.ID {
			t.Errorf("regression %s: source %q, want the Jira key", id, it.Source)
		}
		if it.Kind == KindExternal && !strings.HasPrefix(it.URL, "https://") {
			t.Errorf("external %s: url %q, want its source's https URL", id, it.URL)
		}
	}
	if len(c.Items) != len(want) {
		t.Errorf("catalogue has %d items, want %d", len(c.Items), len(want))
	}
	if c.Position("nope") != -1 {
		t.Error("Position of unknown id should be -1")
	}
	for _, it := range c.Items {
		if r, ok := it.Excluded("kafka"); ok {
			t.Errorf("%s excludes kafka (%s): every item runs on both targets", it.ID, r)
		}
	}
}

func TestExcluded(t *testing.T) {
	c, err := Parse([]byte(`{"items":[{"id":"P1","kind":"property","title":"It MUST hold.","source":"s","shape":"structural",
		"targets_excluded":[{"target":"kafka","reason":"checked against the code"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := c.Items[0].Excluded("kafka"); !ok || r != "checked against the code" {
		t.Fatalf("Excluded(kafka) = %q %v", r, ok)
	}
	if _, ok := c.Items[0].Excluded("kfake"); ok {
		t.Fatal("Excluded(kfake) should be false")
	}
}

func TestParseRejects(t *testing.T) {
	const good = `{"id":"P1","kind":"property","title":"It MUST work.","source":"KIP","shape":"structural"}`
	tests := []struct {
		name  string
		json  string
		wants []string // substrings the error must contain
	}{
		{"malformed", `{"items": [`, []string{"catalogue: decode"}},
		{"unknown field", `{"items":[{"id":"P1","colour":"red"}]}`, []string{"colour"}},
		{"empty", `{"items":[]}`, []string{"no items"}},
		{"duplicate id", `{"items":[` + good + `,` + good + `]}`, []string{`item 2 (P1): field "id": duplicate of item 1`}},
		{"missing fields", `{"items":[{"id":"X"}]}`, []string{
			`item 1 (X): field "kind": missing`, `field "title": missing`,
			`field "source": missing`, `field "shape": missing`,
		}},
		{"missing id", `{"items":[{"kind":"property","title":"MUST","source":"s","shape":"lifecycle"}]}`, []string{`item 1: field "id": missing`}},
		{"bad id", `{"items":[{"id":"P 1","kind":"property","title":"MUST","source":"s","shape":"lifecycle"}]}`, []string{`field "id": "P 1" must match`}},
		{"bad enums", `{"items":[{"id":"X","kind":"wish","title":"MUST","source":"s","shape":"round"}]}`, []string{
			`field "kind": unknown value "wish"`, `field "shape": unknown value "round"`,
		}},
		{"not MUST", `{"items":[{"id":"X","kind":"property","title":"should","source":"s","shape":"lifecycle"}]}`, []string{`field "title": must be a MUST sentence`}},
		{"external without url", `{"items":[{"id":"EXT-X","kind":"external","title":"It MUST work.","source":"a/b#1","shape":"lifecycle"}]}`, []string{`item 1 (EXT-X): field "url": an external item cites its source's URL`}},
		{"url not http", `{"items":[{"id":"X","kind":"property","title":"MUST","source":"s","shape":"lifecycle","url":"ftp://x"}]}`, []string{`field "url": "ftp://x" is not an http(s) URL`}},
		{"bad exclusion", `{"items":[{"id":"X","kind":"property","title":"MUST","source":"s","shape":"lifecycle",
			"targets_excluded":[{"target":"kafka"},{"target":"kafka","reason":"r"}]}]}`, []string{
			`field "targets_excluded[0].reason": missing`, `field "targets_excluded[1].target": target "kafka" excluded twice`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.json))
			if err == nil {
				t.Fatal("Parse succeeded, want error")
			}
			for _, w := range tt.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}
