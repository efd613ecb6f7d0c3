package catalogue

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// Every contract point has a unique id, a consumer and Java's contract, and
// every spec it names exists: a scenario file's id or a Ginkgo spec's
// suite.Spec id under specs/.
func TestContractPoints(t *testing.T) {
	known := map[string]bool{}
	root := filepath.Join("..", "specs")
	idLine := regexp.MustCompile(`(?m)^id: ([a-z0-9._-]+)`)
	specCall := regexp.MustCompile(`suite\.Spec\("([^"]+)"`)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		re := specCall
		switch filepath.Ext(path) {
		case ".yaml":
			re = idLine
		case ".go":
		default:
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range re.FindAllSubmatch(data, -1) {
			known[string(m[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range ContractPoints {
		switch {
		case p.ID == "" || seen[p.ID]:
			t.Errorf("point %q: empty or duplicate id", p.ID)
		case !slices.Contains([]string{"regular", "share"}, p.Consumer):
			t.Errorf("point %s: consumer %q, want regular or share", p.ID, p.Consumer)
		case p.Setting == "" || p.Java == "":
			t.Errorf("point %s: needs its setting and Java's contract", p.ID)
		}
		seen[p.ID] = true
		for _, s := range p.Specs {
			if !known[s] {
				t.Errorf("point %s names spec %q, which no scenario file or suite.Spec under specs/ has", p.ID, s)
			}
		}
	}
}
