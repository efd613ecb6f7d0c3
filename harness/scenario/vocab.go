package scenario

// The vocabulary as data: every step, fault kind, expectation, consumer
// setting and limit, with one line of documentation and one example each,
// read from the registries themselves (stepDefs, faultDefs, expectDefs,
// Settings' tags, limits below). specs/scenarios/README.md holds
// VocabularyMarkdown between its vocabulary markers (TestREADMEVocabulary
// keeps it current), and TestVocabularyExamples parses, validates and, on
// kfake, runs every example.

import (
	"fmt"
	"strings"
)

// Sections of the vocabulary (VocabEntry.Section).
const (
	SectionStep        = "step"
	SectionFault       = "fault"
	SectionExpectation = "expectation"
	SectionConsumer    = "consumer"
	SectionLimit       = "limit"
)

// VocabEntry is one word of the scenario language.
type VocabEntry struct {
	Section string // SectionStep, SectionFault, ...
	Name    string // the key a file writes (a limit: its Go constant)
	Doc     string // one line, Markdown
	// Example is one use as it appears in a file: a list item for steps,
	// faults and expectations, a `key: value` line of a consumer mapping
	// for settings; for a limit, an input that breaks it.
	Example string
	// Kinds are the consumer kinds a step or setting applies to
	// (KindRegular, KindShare); nil for any or none.
	Kinds []string
}

// consumerKeys are the consumer mapping's keys that are not Settings.
var consumerKeys = []VocabEntry{
	{Name: "kind", Doc: "`regular` (KafkaConsumer, default) or `share` (KafkaShareConsumer, KIP-932)", Example: "kind: share"},
	{Name: "group", Doc: "`true`: the run's group (unique per run); another name: a second group of the run (consumers naming the same group are members of one group); absent: no group.id (a share consumer is in the run's group)", Example: "group: true"},
	{Name: "bootstrap", Doc: "`cluster` (default) or `unreachable` (a loopback port nothing listens on)", Example: "bootstrap: unreachable"},
	{Name: "group_configs", Doc: "dynamic configs of the consumer's group, set before the first step (a share group gets share.auto.offset.reset=earliest unless it says otherwise)", Example: "group_configs: {share.record.lock.duration.ms: \"15000\"}", Kinds: []string{KindShare}},
}

// settingExamples are the settings' examples (a value the reactor accepts
// with the other defaults).
var settingExamples = map[string]string{
	"auto_offset_reset":                     "latest",
	"enable_auto_commit":                    "true",
	"auto_commit_interval":                  "100ms",
	"retry_backoff":                         "50ms",
	"retry_backoff_max":                     "2s",
	"reconnect_backoff":                     "20ms",
	"reconnect_backoff_max":                 "2s",
	"socket_connection_setup_timeout":       "5s",
	"socket_connection_setup_timeout_max":   "20s",
	"request_timeout":                       "20s",
	"default_api_timeout":                   "30s",
	"max_poll_interval":                     "5s",
	"metadata_max_age":                      "1m",
	"metadata_recovery_strategy":            "none",
	"metadata_recovery_rebootstrap_trigger": "30s",
	"fetch_max_wait":                        "100ms",
	"max_poll_records":                      "5",
	"fetch_min_bytes":                       "1",
	"fetch_max_bytes":                       "1048576",
	"max_partition_fetch_bytes":             "65536",
	"max_buffered_records":                  "100",
	"isolation_level":                       "read_committed",
	"group_instance_id":                     "member-1",
}

// limitDocs are the limits, in the order limits.go gives them, each with
// an input that breaks it.
var limitDocs = []VocabEntry{
	{Name: "MaxFileBytes", Doc: fmt.Sprintf("largest file read (%d bytes); only regular files are read (a FIFO, a device such as /dev/zero, a directory are refused before any read)", MaxFileBytes), Example: "kreactor check /dev/zero"},
	{Name: "MaxSteps", Doc: fmt.Sprintf("most steps of a file (%d)", MaxSteps), Example: fmt.Sprintf("%d steps", MaxSteps+1)},
	{Name: "MaxExpectations", Doc: fmt.Sprintf("most expectations of a file (%d)", MaxExpectations), Example: fmt.Sprintf("%d expectations", MaxExpectations+1)},
	{Name: "MaxConsumers", Doc: fmt.Sprintf("most consumers of a file (%d)", MaxConsumers), Example: fmt.Sprintf("%d consumers", MaxConsumers+1)},
	{Name: "MaxBrokers", Doc: fmt.Sprintf("most brokers of a cluster (%d); `brokers: 0` is refused, not defaulted", MaxBrokers), Example: "cluster: {brokers: 6}"},
	{Name: "MaxTopics", Doc: fmt.Sprintf("most topics of a cluster (%d)", MaxTopics), Example: fmt.Sprintf("%d topics", MaxTopics+1)},
	{Name: "MaxPartitions", Doc: fmt.Sprintf("most partitions of a topic (%d)", MaxPartitions), Example: "topics: {t: 1000}"},
	{Name: "MaxProduce", Doc: fmt.Sprintf("most records of one produce step (%d)", MaxProduce), Example: "- produce: {topic: t, count: 2000000000}"},
	{Name: "MaxProduceTotal", Doc: fmt.Sprintf("most records all produce steps of a file write (%d)", MaxProduceTotal), Example: "11 steps of - produce: {topic: t, count: 100000}"},
	{Name: "MaxRate", Doc: fmt.Sprintf("fastest paced producer (%d records/s)", MaxRate), Example: "- produce: {topic: t, count: 10, rate: 20000}"},
	{Name: "MaxCallTimeout", Doc: fmt.Sprintf("longest timeout of one application call: poll, commit_sync, close, consume, wait_assigned (%s)", MaxCallTimeout), Example: "- poll: {timeout: 87600h}"},
	{Name: "MaxStepDuration", Doc: fmt.Sprintf("longest poll_for, sleep, fault delay, at: offset, cluster interval (%s)", MaxStepDuration), Example: "- sleep: 61s"},
	{Name: "MaxTimeline", Doc: fmt.Sprintf("longest timeline: the sum of every sequential step's longest duration plus the latest at: offset (%s); the run's context is the file's bound plus RunSlack (%s)", MaxTimeline, RunSlack), Example: "4 steps of - sleep: 60s"},
	{Name: "MaxCount", Doc: fmt.Sprintf("largest count in a bound: min, max, records (%d); counts are written in digits (2e9 is refused)", MaxCount), Example: "- delivered: {records: 2000000000}"},
	{Name: "MaxNameLen", Doc: fmt.Sprintf("longest name: id, step, window, consumer, topic (%d characters; no spaces, printable characters only)", MaxNameLen), Example: fmt.Sprintf("- window: (a name of %d characters)", MaxNameLen+1)},
	{Name: "MaxListLen", Doc: fmt.Sprintf("longest other list: topics of a subscribe, partitions of an assign, covers, signals, where keys (%d)", MaxListLen), Example: fmt.Sprintf("- assign: {t: [%d partitions]}", MaxListLen+1)},
}

// Vocabulary lists every step, fault kind, expectation, consumer key and
// setting, and limit, in the README's order.
func Vocabulary() []VocabEntry {
	var out []VocabEntry
	for _, d := range stepDefs {
		out = append(out, VocabEntry{Section: SectionStep, Name: d.kind, Doc: d.doc, Example: d.example, Kinds: d.consumer})
	}
	for _, d := range faultDefs {
		out = append(out, VocabEntry{Section: SectionFault, Name: d.kind, Doc: d.doc, Example: d.example})
	}
	for _, d := range expectDefs {
		out = append(out, VocabEntry{Section: SectionExpectation, Name: d.kind, Doc: d.doc, Example: d.example})
	}
	for _, e := range consumerKeys {
		e.Section = SectionConsumer
		out = append(out, e)
	}
	for _, f := range settingFields() {
		doc := "consumer.Config." + f.field
		if f.java != "" {
			doc += " (`" + f.java + "`)"
		}
		kinds := []string{KindRegular}
		if f.share {
			doc += "; also consumer.ShareConfig." + f.field
			kinds = append(kinds, KindShare)
		}
		out = append(out, VocabEntry{Section: SectionConsumer, Name: f.key, Doc: doc, Example: f.key + ": " + settingExamples[f.key], Kinds: kinds})
	}
	for _, l := range limitDocs {
		l.Section = SectionLimit
		out = append(out, l)
	}
	return out
}

// VocabularyMarkdown renders Vocabulary as the README's tables.
func VocabularyMarkdown() string {
	var b strings.Builder
	titles := []struct{ section, title, intro string }{
		{SectionStep, "Steps", "Each step is a list item with one key, its kind. Every step may also carry `as: NAME` (expectations, `at:` anchors, `heal` and `join` refer to it), `consumer: NAME` (default: the first consumer), and where the registry allows `at: OFFSET` (a timed step: `300ms` from the start, `NAME+300ms` from the start of step NAME, `NAME.end+100ms` from its end) or `background: true` (the sequence goes on; `join` waits for it)."},
		{SectionFault, "Faults", "A `fault` step's `kind`, with the same meaning on every target (kfake through fakebroker, real Kafka through containers/proxy). `error`, `hold` and `delay` take body selectors: `where: {FIELD: VALUE}` (request fields, e.g. `member_epoch: 0`), `first: N` (only the first N matching requests: a one-shot is `first: 1`), `node: N | coordinator`."},
		{SectionExpectation, "Expectations", "Each expectation is a list item with one key. Counts take `min`, `max` or `report_only: true` (a figure recorded for the report, no bound); a literal upper bound carries a comment saying where it comes from."},
		{SectionConsumer, "Consumers", "`consumer:` (one, named main) or `consumers: {NAME: {...}}` (named; the first is the default of every step and expectation). Settings not given keep Java's defaults, except `auto_offset_reset` (earliest here) and `enable_auto_commit` (false here). A configuration the subject refuses is an error at load (with its line) unless a `config_rejected` expectation names its field."},
		{SectionLimit, "Limits", "Each is checked when the file loads: the error names the file, the line, the key and the limit (harness/scenario/limits.go)."},
	}
	vocab := Vocabulary()
	for _, t := range titles {
		fmt.Fprintf(&b, "### %s\n\n%s\n\n", t.title, t.intro)
		fmt.Fprintf(&b, "| %s | what it means | example |\n| --- | --- | --- |\n", t.section)
		for _, e := range vocab {
			if e.Section != t.section {
				continue
			}
			doc := e.Doc
			if len(e.Kinds) == 1 {
				doc += " (" + e.Kinds[0] + " consumers only)"
			}
			fmt.Fprintf(&b, "| `%s` | %s | `%s` |\n", e.Name, mdCell(doc), mdCell(e.Example))
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// mdCell escapes a Markdown table cell.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
