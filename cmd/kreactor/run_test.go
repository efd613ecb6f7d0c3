package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kreactor/kreactor/harness/scenario"
)

// goodScenario is a file that loads; the tests below break copies of it.
const goodScenario = `# a poll on one partition
id: cli.good
covers: [SCENARIO-FILES]
cluster:
  topics: {t: 1}
consumer:
  group: true
steps:
  - assign: {t: [0]}
  - poll: {timeout: 100ms, as: p}
expect:
  - error: {of: p, is: none}
`

func writeScenario(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// check reports every file on its own: the good one is ok, the bad one
// and the one repeating an id each get file:line:key, and the command
// fails.
func TestCheckNamesEveryBadFile(t *testing.T) {
	dir := t.TempDir()
	good := writeScenario(t, dir, "a-good.yaml", goodScenario)
	bad := writeScenario(t, dir, "b-bad.yaml", strings.Replace(strings.Replace(goodScenario, "cli.good", "cli.bad", 1), "assign: {t: [0]}", "assign: {t: [3]}", 1))
	dup := writeScenario(t, dir, "c-dup.yaml", goodScenario)
	code, stdout, stderr := runCLI("check", good, bad, dup)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %q", code, stderr)
	}
	for _, want := range []string{"ok " + good + " (cli.good"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	for _, want := range []string{
		bad + `:9: "t": topic t has 1 partitions (0..0): partition 3 does not exist`,
		dup + `:2: "id": duplicate id "cli.good" (also in ` + good + `)`,
		"2 of 3 scenario file(s) do not load",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	// A directory is its *.yaml files, with the same rules.
	if code, _, stderr := runCLI("check", dir); code != 1 || !strings.Contains(stderr, "2 of 3") {
		t.Errorf("check DIR: exit %d, stderr %q", code, stderr)
	}
}

// run validates every file before it runs any: one bad file, nothing runs.
func TestRunValidatesBeforeRunning(t *testing.T) {
	dir := t.TempDir()
	good := writeScenario(t, dir, "good.yaml", goodScenario)
	bad := writeScenario(t, dir, "bad.yaml", strings.Replace(strings.Replace(goodScenario, "cli.good", "cli.bad", 1), "cluster:\n", "cluster:\n  brokers: 0\n", 1))
	code, stdout, stderr := runCLI("run", good, bad, "-subject", "reactor")
	if code != 1 || strings.Contains(stdout, "PASS") || !strings.Contains(stderr, bad+`:5: "brokers": want 1..5 brokers`) {
		t.Fatalf("exit %d; stdout %q; stderr %q", code, stdout, stderr)
	}
	for _, args := range [][]string{
		{"-subject", "reactor,nope"}, {"-subject", "nosuch"}, {"-subject", ""}, {"-subject", "reactor,"},
		{"-target", "nosuch"}, {"-timeout", "-5s"},
	} {
		code, stdout, stderr := runCLI(append([]string{"run", good}, args...)...)
		if code != 2 || strings.Contains(stdout, "PASS") || !strings.Contains(stderr, args[0]+" "+flagValueText(args)) || !strings.Contains(stderr, "usage:") {
			t.Errorf("run %v: exit %d (want 2), stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

// The discrimination line: a regression file must pass on reactor and fail
// on baseline on one of its signals (and on null on a liveness key).
func TestDiscrimination(t *testing.T) {
	sc := &scenario.Scenario{ID: "x", Covers: []string{"KAFKA-20253"}, Signals: []string{"steps.w"}, Liveness: []string{"delivered"}}
	pass := &scenario.Outcome{Scenario: sc}
	failOn := func(keys ...string) *scenario.Outcome {
		return &scenario.Outcome{Scenario: sc, Failures: []string{"failed"}, FailedKeys: keys}
	}
	tests := []struct {
		name string
		outs map[string]*scenario.Outcome
		ok   bool
		says string
	}{
		{"discriminates", map[string]*scenario.Outcome{"reactor": pass, "baseline": failOn("steps.w")}, true, "discriminates: reactor PASS; baseline fails on a signal (steps.w)"},
		{"baseline fails elsewhere", map[string]*scenario.Outcome{"reactor": pass, "baseline": failOn("timeline")}, false, "DOES NOT discriminate: reactor PASS; baseline fails, but not on a signal (timeline; signals steps.w)"},
		{"baseline passes", map[string]*scenario.Outcome{"reactor": pass, "baseline": pass}, false, "baseline passes"},
		{"reactor fails", map[string]*scenario.Outcome{"reactor": failOn("steps.w"), "baseline": failOn("steps.w")}, false, "DOES NOT discriminate: reactor FAIL"},
		{"null on liveness", map[string]*scenario.Outcome{"reactor": pass, "baseline": failOn("steps.w"), "null": failOn("delivered")}, true, "null fails on liveness (delivered)"},
		{"null passes", map[string]*scenario.Outcome{"reactor": pass, "baseline": failOn("steps.w"), "null": pass}, false, "null passes"},
		{"no baseline", map[string]*scenario.Outcome{"reactor": pass, "null": failOn("delivered")}, false, "discrimination needs -subject reactor,baseline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line, ok := discrimination(sc, tt.outs)
			if ok != tt.ok || !strings.Contains(line, tt.says) {
				t.Fatalf("discrimination = %q, %v; want %v and %q", line, ok, tt.ok, tt.says)
			}
		})
	}
	nonReg := &scenario.Scenario{ID: "y", Covers: []string{"CONTRACT-8"}}
	if line, ok := discrimination(nonReg, map[string]*scenario.Outcome{"reactor": pass, "baseline": pass}); !ok || !strings.Contains(line, "covers no regression") {
		t.Fatalf("non-regression: %q, %v", line, ok)
	}
}

// The real thing on kfake: a regression file run on reactor and baseline
// discriminates.
func TestRunDiscriminatesOnKfake(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a scenario file twice on kfake")
	}
	file := "../../specs/scenarios/kafka-20397-fault-during-poll.yaml"
	code, stdout, stderr := runCLI("run", "-subject", "reactor,baseline", "-target", "kfake", file)
	if code != 0 || !strings.Contains(stdout, "scenario.kafka-20397-fault-during-poll discriminates: reactor PASS; baseline fails on a signal (") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// flagValueText is how a bad flag value is named: durations bare, names quoted.
func flagValueText(args []string) string {
	if args[0] == "-timeout" {
		return args[1]
	}
	return strconv.Quote(args[1])
}

// run and check without files name the command once.
func TestNoFilesNamesCommandOnce(t *testing.T) {
	for _, cmd := range []string{"run", "check"} {
		code, _, stderr := runCLI(cmd)
		if code != 2 || !strings.HasPrefix(stderr, "kreactor "+cmd+": at least one scenario FILE") {
			t.Errorf("%s: exit %d, stderr %q", cmd, code, stderr)
		}
	}
}
