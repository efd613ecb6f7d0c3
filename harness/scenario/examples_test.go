package scenario_test

// TestVocabularyExamples: every example of the vocabulary (the README's
// tables) in a small file of its own, parsed and validated; the step,
// fault and expectation examples also run on reactor/kfake (skipped with
// -short), where the step must be carried out (no failure on the timeline)
// and the expectation must produce its figure. Limits are broken by one
// input each and must name the limit.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/scenario"
	"github.com/kreactor/kreactor/harness/subjects"
	"github.com/kreactor/kreactor/harness/targets"
)

// exampleBase is the file an example goes into: STEPS takes step and fault
// examples (after the prelude), EXPECT expectation examples, CONSUMER
// consumer keys and settings.
const regularBase = `# vocabulary example NAME
id: example.ID
covers: [SCENARIO-FILES]
cluster:
  topics: {t: 3}
consumers:
  main:
    group: true
CONSUMER
  b: {group: true}
steps:
  - produce: {topic: t, count: 100}
  - subscribe: {topics: [t], as: joined}
  - consume: {records: 1, timeout: 10s}
STEPS
expect:
EXPECT
`

const shareBase = `# vocabulary example NAME
id: example.ID
covers: [SCENARIO-FILES]
cluster:
  topics: {t: 1}
consumer:
  kind: share
CONSUMER
steps:
  - produce: {topic: t, count: 10}
  - subscribe: [t]
  - consume: {records: 1, timeout: 10s, as: first}
STEPS
expect:
EXPECT
`

// defaultExpect is the expectation of a file whose example is not one.
const defaultExpect = "  - requests: {key: Fetch, report_only: true}"

// prelude is what an example refers to: steps before it, settings of the
// first consumer, and whether it needs the share base.
type prelude struct {
	steps    []string
	settings []string
	share    bool
}

var preludes = map[string]prelude{
	// steps
	"step/unsubscribe": {steps: []string{"- subscribe: {topics: [t], consumer: b}"}},
	"step/acknowledge": {share: true},
	"step/resume_all":  {steps: []string{"- pause_all:"}},
	"step/assign":      {steps: []string{"- unsubscribe:"}},
	"step/wakeup":      {steps: []string{"- poll: {timeout: 1s, as: long}"}},
	"step/heal":        {steps: []string{"- fault: {kind: hold, key: Fetch, as: held}"}},
	"step/end_window":  {steps: []string{"- window: outage"}},
	"step/join":        {steps: []string{"- produce: {topic: t, count: 30, rate: 100, background: true, as: producer}"}},
	// expectations
	"expectation/requests":              {steps: []string{"- window: outage", "- poll: {timeout: 200ms}"}},
	"expectation/connections":           {steps: []string{"- window: restart", "- poll: {timeout: 200ms}"}},
	"expectation/steps":                 {steps: []string{"- window: outage", "- poll: {timeout: 200ms}"}},
	"expectation/spurious_wakeups":      {steps: []string{"- window: outage", "- poll: {timeout: 200ms}"}},
	"expectation/ready_without_request": {steps: []string{"- window: outage", "- poll: {timeout: 200ms}"}},
	"expectation/past_deadline":         {steps: []string{"- window: outage", "- poll: {timeout: 200ms}"}},
	"expectation/app_wakeups":           {steps: []string{"- window: idle", "- poll: {timeout: 200ms}"}},
	"expectation/cpu":                   {steps: []string{"- window: calm", "- poll: {timeout: 200ms}", "- end_window: calm", "- window: outage", "- poll: {timeout: 200ms}"}},
	"expectation/duration":              {steps: []string{"- close: {timeout: 500ms, as: close}"}},
	"expectation/error":                 {steps: []string{"- poll: {timeout: 200ms, as: long}"}},
	"expectation/records":               {steps: []string{"- poll: {timeout: 200ms, as: first}"}},
	"expectation/callbacks":             {steps: []string{"- commit_async: {as: pending}", "- commit_sync: {timeout: 5s, as: sync}"}},
	"expectation/ack_callbacks":         {share: true, steps: []string{"- commit_sync: {timeout: 5s}"}},
	"expectation/redeliveries":          {share: true},
	"expectation/config_rejected":       {settings: []string{"retry_backoff: 0s"}},
	"expectation/offset":                {steps: []string{"- produce: {topic: t, count: 30}", "- consume: {records: 30, timeout: 10s}", "- position: {topic: t, partition: 0, timeout: 5s, as: pos}"}},
	"step/position":                     {steps: []string{"- wait_assigned: {poll: true, timeout: 10s}"}},
	"expectation/assignment":            {steps: []string{"- assignment: {as: before}", "- poll: {timeout: 200ms}", "- assignment: {as: after}"}},
	// consumer keys
	"consumer/kind":          {share: true},
	"consumer/group_configs": {share: true},
}

// exampleFile is the file for vocabulary entry e.
func exampleFile(e scenario.VocabEntry) string {
	pre := preludes[e.Section+"/"+e.Name]
	base := regularBase
	if pre.share || (len(e.Kinds) == 1 && e.Kinds[0] == scenario.KindShare) {
		base = shareBase
	}
	indent := func(lines []string, by string) string {
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(by + l + "\n")
		}
		return strings.TrimSuffix(b.String(), "\n")
	}
	steps, expect, settings := pre.steps, []string{}, pre.settings
	switch e.Section {
	case scenario.SectionStep, scenario.SectionFault:
		steps = append(slices.Clone(steps), e.Example)
	case scenario.SectionExpectation:
		expect = append(expect, e.Example)
	case scenario.SectionConsumer:
		if e.Name != "kind" && e.Name != "group" {
			settings = append(slices.Clone(settings), e.Example)
		}
	}
	ind := "    "
	if base == shareBase {
		ind = "  "
	}
	r := strings.NewReplacer(
		"NAME", e.Section+" "+e.Name,
		"ID", strings.ReplaceAll(e.Section+"."+e.Name, "_", "-"),
		"STEPS\n", indent(steps, "  ")+"\n",
		"EXPECT\n", indent(expect, "  ")+"\n",
		"CONSUMER\n", indent(settings, ind)+"\n",
	)
	out := r.Replace(base)
	if len(expect) == 0 {
		out = strings.Replace(out, "expect:\n", "expect:\n"+defaultExpect+"\n", 1)
	}
	// Remove the blank lines of empty slots.
	return strings.ReplaceAll(out, "\n\n", "\n")
}

// cheapToRun are the sections whose examples run on kfake.
var cheapToRun = []string{scenario.SectionStep, scenario.SectionFault, scenario.SectionExpectation}

func TestVocabularyExamples(t *testing.T) {
	dir := t.TempDir()
	subject, _ := subjects.Lookup(subjects.Reference)
	target, _ := targets.Lookup("kfake")
	t.Cleanup(func() { targets.CloseShared() }) //nolint:errcheck // best effort
	for _, e := range scenario.Vocabulary() {
		if e.Section == scenario.SectionLimit {
			continue // TestLimitExamples
		}
		t.Run(e.Section+"/"+e.Name, func(t *testing.T) {
			src := exampleFile(e)
			file := filepath.Join(dir, e.Section+"-"+e.Name+".yaml")
			if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			sc, err := scenario.Load(file)
			if err != nil {
				t.Fatalf("example %q does not load: %v\n%s", e.Example, err, src)
			}
			if testing.Short() || !slices.Contains(cheapToRun, e.Section) {
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), sc.Bound()+scenario.RunSlack)
			defer cancel()
			start := time.Now()
			out, err := scenario.Run(ctx, sc, subject, target)
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if out.NotApplicable != "" {
				t.Fatalf("n/a on reactor: %s", out.NotApplicable)
			}
			if slices.Contains(out.FailedKeys, harness.KeyTimeline) && e.Name != "config_rejected" {
				t.Fatalf("the timeline stopped: %s\n%s", strings.Join(out.Failures, "\n"), src)
			}
			if e.Section == scenario.SectionExpectation {
				key := sc.Expect[0].Key(sc)
				if !slices.ContainsFunc(out.Figures, func(f scenario.Figure) bool { return f.Name == key }) {
					t.Fatalf("no figure %s; figures: %v; failures: %v", key, out.Figures, out.Failures)
				}
			}
			t.Logf("ran in %s: %s", time.Since(start).Round(time.Millisecond), out.Verdict())
		})
	}
}

// Each limit's example input breaks it: the error names the file, a line,
// and the limit.
func TestLimitExamples(t *testing.T) {
	dir := t.TempDir()
	good := func(steps, expect string) string {
		return "# limit\nid: limit.x\ncovers: [SCENARIO-FILES]\ncluster:\n  topics: {t: 3}\nconsumer:\n  group: true\nsteps:\n" + steps + "expect:\n" + expect
	}
	sub := "  - subscribe: [t]\n"
	exp := defaultExpect + "\n"
	consumers := "consumers:\n"
	for i := range scenario.MaxConsumers + 1 {
		consumers += fmt.Sprintf("  c%d: {group: true}\n", i)
	}
	topics := "  topics: {"
	for i := range scenario.MaxTopics + 1 {
		topics += fmt.Sprintf("t%d: 1, ", i)
	}
	topics = strings.TrimSuffix(topics, ", ") + "}"
	parts := make([]string, scenario.MaxListLen+1)
	for i := range parts {
		parts[i] = "0"
	}
	inputs := map[string]string{
		"MaxSteps":        good(strings.Repeat("  - sleep: 1ms\n", scenario.MaxSteps+1), exp),
		"MaxExpectations": good(sub, strings.Repeat(exp, scenario.MaxExpectations+1)),
		"MaxConsumers":    strings.Replace(good(sub, exp), "consumer:\n  group: true\n", consumers, 1),
		"MaxBrokers":      strings.Replace(good(sub, exp), "cluster:\n", "cluster:\n  brokers: 6\n", 1),
		"MaxTopics":       strings.Replace(good(sub, exp), "  topics: {t: 3}", topics+"\n  topics_: x", 1),
		"MaxPartitions":   strings.Replace(good(sub, exp), "{t: 3}", "{t: 1000}", 1),
		"MaxProduce":      good("  - produce: {topic: t, count: 2000000000}\n", exp),
		"MaxProduceTotal": good(strings.Repeat("  - produce: {topic: t, count: 100000}\n", 11), exp),
		"MaxRate":         good("  - produce: {topic: t, count: 10, rate: 20000}\n", exp),
		"MaxCallTimeout":  good(sub+"  - poll: {timeout: 87600h}\n", exp),
		"MaxStepDuration": good("  - sleep: 61s\n", exp),
		"MaxTimeline":     good(strings.Repeat("  - sleep: 60s\n", 4), exp),
		"MaxCount":        good(sub, "  - delivered: {records: 2000000000}\n"),
		"MaxNameLen":      good("  - window: "+strings.Repeat("w", scenario.MaxNameLen+1)+"\n", exp),
		"MaxListLen":      good("  - assign: {t: ["+strings.Join(parts, ", ")+"]}\n", exp),
	}
	// The topics input has a stray key after the topics: drop it (the
	// limit must be what fails).
	inputs["MaxTopics"] = strings.Replace(inputs["MaxTopics"], "\n  topics_: x", "", 1)
	for _, e := range scenario.Vocabulary() {
		if e.Section != scenario.SectionLimit {
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			var err error
			file := filepath.Join(dir, e.Name+".yaml")
			switch e.Name {
			case "MaxFileBytes":
				_, err = scenario.Load("/dev/zero")
				if err == nil || !strings.Contains(err.Error(), "/dev/zero") || !strings.Contains(err.Error(), "regular file") {
					t.Fatalf("/dev/zero: %v", err)
				}
				big := good(sub, exp) + "# " + strings.Repeat("x", scenario.MaxFileBytes) + "\n"
				if err := os.WriteFile(file, []byte(big), 0o644); err != nil {
					t.Fatal(err)
				}
			default:
				src, ok := inputs[e.Name]
				if !ok {
					t.Fatalf("no input breaks limit %s: add one", e.Name)
				}
				if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err = scenario.Load(file)
			var se *scenario.Error
			if !asError(err, &se) || se.File != file || !strings.Contains(err.Error(), e.Name) {
				t.Fatalf("err = %v, want a *scenario.Error naming %s and %s", err, file, e.Name)
			}
			if e.Name != "MaxFileBytes" && se.Line == 0 {
				t.Fatalf("err = %v: no line", err)
			}
		})
	}
}

func asError(err error, target **scenario.Error) bool { return errors.As(err, target) }
