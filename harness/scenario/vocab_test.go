package scenario

import (
	"os"
	"slices"
	"strings"
	"testing"
)

const readmePath = "../../specs/scenarios/README.md"

const (
	vocabBegin = "<!-- vocabulary:begin -->\n"
	vocabEnd   = "<!-- vocabulary:end -->"
)

// The README's vocabulary is the registries' (KREACTOR_UPDATE_README=1
// rewrites it).
func TestREADMEVocabulary(t *testing.T) {
	data, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i, j := strings.Index(s, vocabBegin), strings.Index(s, vocabEnd)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the markers %q ... %q", readmePath, vocabBegin, vocabEnd)
	}
	want := VocabularyMarkdown()
	if got := s[i+len(vocabBegin) : j]; got != want {
		if os.Getenv("KREACTOR_UPDATE_README") != "" {
			if err := os.WriteFile(readmePath, []byte(s[:i+len(vocabBegin)]+want+s[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Fatalf("%s's vocabulary differs from the registries: run KREACTOR_UPDATE_README=1 go test ./harness/scenario -run TestREADMEVocabulary", readmePath)
	}
}

// Every word has a doc and an example, every Settings field an example
// value, and no name is listed twice in its section.
func TestVocabularyComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range Vocabulary() {
		if e.Doc == "" || e.Example == "" || strings.HasSuffix(e.Example, ": ") {
			t.Errorf("%s %s: doc %q, example %q", e.Section, e.Name, e.Doc, e.Example)
		}
		if seen[e.Section+"/"+e.Name] {
			t.Errorf("%s %s listed twice", e.Section, e.Name)
		}
		seen[e.Section+"/"+e.Name] = true
	}
	for _, k := range StepKinds() {
		if !seen[SectionStep+"/"+k] {
			t.Errorf("step %s missing", k)
		}
	}
	for _, k := range FaultKinds() {
		if !seen[SectionFault+"/"+k] {
			t.Errorf("fault %s missing", k)
		}
	}
	for _, k := range ExpectKinds() {
		if !seen[SectionExpectation+"/"+k] {
			t.Errorf("expectation %s missing", k)
		}
	}
	for k := range settingExamples {
		if !slices.ContainsFunc(settingFields(), func(f settingField) bool { return f.key == k }) {
			t.Errorf("settingExamples has %s, which is no setting", k)
		}
	}
}

// The README's "Shape" example leaves steps and expectations out ([...]),
// but its cluster and consumer settings are real: set in a file that
// loads, they load too.
func TestREADMEShapeSettingsLoad(t *testing.T) {
	data, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	_, shape, ok := strings.Cut(string(data), "## Shape\n\n```yaml\n")
	if !ok {
		t.Fatalf("%s has no ## Shape yaml block", readmePath)
	}
	shape, _, _ = strings.Cut(shape, "```")
	i, j := strings.Index(shape, "\ncluster:"), strings.Index(shape, "\nsteps:")
	if i < 0 || j < i {
		t.Fatalf("the Shape block lacks cluster: ... steps:")
	}
	// good's steps use topic t, the Shape's cluster topic idle.
	settings := strings.Replace(shape[i+1:j+1], "topics: {idle: 1}", "topics: {t: 3}   ", 1)
	src := strings.Replace(good, "cluster:\n  topics: {t: 3}\nconsumer:\n  group: true\n", settings, 1)
	if src == good {
		t.Fatal("good's cluster and consumer not found")
	}
	if _, err := Parse("README.md#shape", []byte(src)); err != nil {
		t.Errorf("the README's Shape settings do not load: %v", err)
	}
}
