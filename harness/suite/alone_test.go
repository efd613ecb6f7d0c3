package suite

import (
	"slices"
	"testing"

	"github.com/onsi/ginkgo/v2"
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
