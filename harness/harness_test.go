package harness

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type fakeRecorder []Request

func (f fakeRecorder) Count(flt RequestFilter) int {
	n := 0
	for _, r := range f {
		if flt.Match(r) {
			n++
		}
	}
	return n
}
func (f fakeRecorder) Filter(RequestFilter) []Request { return nil }
func (f fakeRecorder) Mark() time.Time                { return time.Now() }

func TestWindowCounts(t *testing.T) {
	t0 := time.Unix(100, 0)
	r := fakeRecorder{
		{Key: kmsg.FindCoordinator, ClientID: "c", At: t0.Add(-time.Millisecond)}, // before
		{Key: kmsg.FindCoordinator, ClientID: "c", At: t0},                        // first instant: in
		{Key: kmsg.FindCoordinator, ClientID: "other", At: t0.Add(time.Second)},   // other client
		{Key: kmsg.Fetch, ClientID: "c", At: t0.Add(time.Second)},                 // other key
		{Key: kmsg.FindCoordinator, ClientID: "c", At: t0.Add(2 * time.Second)},   // end: out
	}
	w := Window{From: t0, To: t0.Add(2 * time.Second)}
	if got := w.Count(r, kmsg.FindCoordinator, "c"); got != 1 {
		t.Errorf("Count = %d, want 1", got)
	}
	if got := w.Requests(r, "c"); got != 2 {
		t.Errorf("Requests = %d, want 2", got)
	}
	if got := w.Rate(r, kmsg.FindCoordinator, "c"); got != 0.5 {
		t.Errorf("Rate = %v, want 0.5/s", got)
	}
}

// TestCoreImports: the core imports no helper package of its own (they
// import it) and, through nothing it imports, Ginkgo or Gomega, so a command
// that uses a target or a subject links no test framework. It reads the
// build's own dependency list (go list -deps); the coreimports analyzer of
// harness/arch states the same rule with the import chain at the import.
func TestCoreImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const self = "github.com/kreactor/kreactor/harness"
	var bad []string
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, self+"/") || strings.HasPrefix(p, "github.com/onsi/") {
			bad = append(bad, p)
		}
	}
	if len(bad) > 0 {
		t.Fatalf("package harness depends on %s: the core must import no sub-package of harness and no Ginkgo or Gomega", strings.Join(bad, ", "))
	}
}

// maxCoreNames bounds the core's API as `go doc -short` lists it (a
// declaration group, function, type or constructor a line): the core holds
// the interfaces and value types the helper packages share, and anything
// more belongs in one of them.
const maxCoreNames = 40

// TestCoreAPISize: the core's `go doc -short` listing has at most
// maxCoreNames lines, counted from the package's own go/doc reading.
func TestCoreAPISize(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var syntax []*ast.File
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		syntax = append(syntax, af)
	}
	p, err := doc.NewFromFiles(fset, syntax, "github.com/kreactor/kreactor/harness")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range append(p.Consts, p.Vars...) {
		names = append(names, strings.Join(v.Names, ","))
	}
	for _, f := range p.Funcs {
		names = append(names, f.Name)
	}
	for _, ty := range p.Types {
		names = append(names, ty.Name)
		for _, v := range append(ty.Consts, ty.Vars...) {
			names = append(names, strings.Join(v.Names, ","))
		}
		for _, f := range ty.Funcs {
			names = append(names, f.Name)
		}
	}
	if len(names) > maxCoreNames {
		t.Errorf("go doc ./harness lists %d names, more than %d: %v", len(names), maxCoreNames, names)
	}
}
