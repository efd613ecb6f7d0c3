package suite

import (
	"slices"
	"testing"

	"github.com/onsi/ginkgo/v2"

	"github.com/kreactor/kreactor/harness/subjects"
)

func TestAlone(t *testing.T) {
	d := Alone(JudgesCPU, JudgesTiming)
	if len(d) != 2 || d[0] != ginkgo.Serial {
		t.Fatalf("Alone = %v, want Serial and the labels", d)
	}
	labels, ok := d[1].(ginkgo.Labels)
	if !ok || !slices.Equal(labels, ginkgo.Labels{"judges:cpu", "judges:timing"}) {
		t.Fatalf("labels %v", d[1])
	}
	for _, kinds := range [][]string{nil, {"memory"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Alone(%q) did not panic", kinds)
				}
			}()
			Alone(kinds...)
		}()
	}
}

func TestAloneOnLivenessOnlySubject(t *testing.T) {
	t.Setenv(subjects.Env, "null")
	d := Alone(JudgesCPU)
	if len(d) != 1 {
		t.Fatalf("Alone on the null subject = %v, want the labels alone (no Serial)", d)
	}
	if labels, ok := d[0].(ginkgo.Labels); !ok || !slices.Equal(labels, ginkgo.Labels{"judges:cpu"}) {
		t.Fatalf("labels %v", d[0])
	}
	t.Setenv(subjects.Env, "baseline")
	if d := Alone(JudgesTiming); len(d) != 2 || d[0] != ginkgo.Serial {
		t.Fatalf("Alone(timing) on the baseline = %v, want Serial and the labels", d)
	}
}

// A spec that judges CPU only runs beside others on the reactor (its CPU
// figure is the test process's, shown only, and it does not spin); on the
// baseline (whose busy loops would load the specs beside them), on a
// subject with CPU of its own, and for timing, it runs alone.
func TestAloneOnSubjectWithoutOwnCPU(t *testing.T) {
	for _, tc := range []struct {
		subject string
		kinds   []string
		serial  bool
	}{
		{"reactor", []string{JudgesCPU}, false},
		{"baseline", []string{JudgesCPU}, true},
		{"reactor", []string{JudgesTiming}, true},
		{"reactor", []string{JudgesCPU, JudgesTiming}, true},
		{"kgo", []string{JudgesCPU}, true},
		{"java", []string{JudgesCPU}, true},
	} {
		t.Setenv(subjects.Env, tc.subject)
		d := Alone(tc.kinds...)
		if serial := len(d) == 2 && d[0] == ginkgo.Serial; serial != tc.serial {
			t.Errorf("Alone(%q) on %s = %v, want Serial %v", tc.kinds, tc.subject, d, tc.serial)
		}
	}
}
