package suite

import (
	"strings"
	"testing"
)

func TestSpecLabels(t *testing.T) {
	got := Spec("kafka-20253-coordinator-lost", []string{"KAFKA-20253", "P2"}, "reactor", "kfake")
	want := []string{"id:kafka-20253-coordinator-lost", "covers:KAFKA-20253", "covers:P2", "subject:reactor", "target:kfake"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("Spec labels = %v, want %v", got, want)
	}
	for _, bad := range []func(){
		func() { Spec("Bad/Id", []string{"P2"}, "reactor", "kfake") },
		func() { Spec("ok", nil, "reactor", "kfake") },
		func() { Spec("ok", []string{"P2,P3"}, "reactor", "kfake") },
		func() { Spec("ok", []string{"P2"}, "", "kfake") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("Spec accepted an invalid argument")
				}
			}()
			bad()
		}()
	}
}
