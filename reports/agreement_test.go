package reports

import (
	"strings"
	"testing"
)

func TestAgreement(t *testing.T) {
	cat := parseCatalogue(t, `{"items":[{"id":"C-1","kind":"contract","title":"It MUST work.","source":"x","shape":"lifecycle"}]}`)
	r := func(id, subject, target, variant string, v Verdict, run int, keys ...string) Row {
		row := Row{ID: id, Covers: []string{"C-1"}, Subject: subject, Target: target, Variant: variant, Verdict: v, Run: run, FailedKeys: keys}
		if v == VerdictFail {
			row.Message = "0 of 300 records"
		}
		return row
	}
	rows := []Row{
		r("a", "java", "kfake", "4.4.0", VerdictPass, 1), r("a", "java", "kafka", "4.4.0", VerdictPass, 1),
		r("b", "java", "kfake", "4.4.0", VerdictFail, 1, "delivered"), r("b", "java", "kafka", "4.4.0", VerdictPass, 1),
		r("c", "java", "kfake", "4.4.0", VerdictPass, 1), r("c", "java", "kafka", "4.4.0", VerdictSkipped, 1),
		r("d", "java", "kfake", "4.4.0", VerdictPass, 1),
		r("a", "kgo", "kfake", "", VerdictPass, 1), r("a", "kgo", "kfake", "", VerdictFail, 2, "x"), r("a", "kgo", "kafka", "", VerdictFail, 1, "x"),
		r("a", "reactor", "kfake", "", VerdictPass, 1), // one target only: no table
	}
	rep := Build(cat, rows)
	if html := renderAll(t, rep)["html"]; !strings.Contains(html, `id="agreement"`) || !strings.Contains(html, "kfake: fail on delivered: 0 of 300 records; kafka: passed") {
		t.Error("HTML lacks the agreement section or its disagreement")
	}
	ts := BuildAgreement(rep)
	if len(ts) != 2 || ts[0].Name() != "java (4.4.0)" || ts[1].Subject != "kgo" {
		t.Fatalf("tables %+v", ts)
	}
	j := ts[0]
	if j.Agree != 1 || j.Disagree != 1 || j.OneSide != 2 {
		t.Errorf("java counts agree %d disagree %d one side %d", j.Agree, j.Disagree, j.OneSide)
	}
	md := AgreementMarkdown(ts)
	for _, want := range []string{
		"1 of 2 specs run on both targets agree, 1 disagree; 2 ran on one target only.",
		"| b | C-1 | fail | pass | **no** | kfake: fail on delivered: 0 of 300 records; kafka: passed |",
		"| c | C-1 | pass | skipped | one side |",
		// Repeats: the worst status over runs, with the pass count.
		"| a | C-1 | fail (1/2 pass) | fail | yes |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Index(md, "| b |") > strings.Index(md, "| a | C-1 | pass | pass |") {
		t.Error("disagreements are not listed first")
	}
}
