package mutant

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The catalogue is consistent, and every mutation point it names is guarded
// in the file the catalogue says, with the exact name: a point renamed or
// removed in the code fails here, not silently in a mutation run.
func TestCatalogue(t *testing.T) {
	if err := Validate(); err != nil {
		t.Fatal(err)
	}
	if Enabled {
		t.Log("built with the mutants tag")
	} else if On(Mutants[0].Points[0]) {
		t.Fatal("On is true without the mutants tag")
	}
	root := filepath.Join("..", "..")
	for _, m := range Mutants {
		for _, p := range m.Points {
			if p != m.Name {
				continue // another mutant's point, checked with it
			}
			where := m.Where
			data, err := os.ReadFile(filepath.Join(root, where))
			if err != nil {
				t.Fatalf("mutant %s: %v", m.Name, err)
			}
			if !strings.Contains(string(data), `mutant.On("`+p+`")`) {
				t.Errorf("mutant %s: %s has no guard mutant.On(%q)", m.Name, where, p)
			}
		}
	}
}
