package structure

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// writeModule writes a throwaway module (module path example.com/m) with the
// given files and makes it the working directory for the test.
func writeModule(t *testing.T, files map[string]string) {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.26\n"
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
}

func TestPackageVarFindings(t *testing.T) {
	writeModule(t, map[string]string{"v/v.go": `package v

import (
	"errors"
	"fmt"
	"sync"
)

var ErrGood = errors.New("good sentinel")
var errWrapped = fmt.Errorf("wrapped: %w", ErrGood)
var ErrReassigned = errors.New("reassigned")
var names = [...]string{"a", "b"}
var lookup = map[string]int{"a": 1}
var handedOut = []string{"x"}
var counter int
var mu sync.Mutex
var _ = names

func Use() (string, int, error, error) {
	ErrReassigned = errors.New("again")
	counter++
	mu.Lock()
	mu.Unlock()
	return names[1] + fmt.Sprint(len(names)), lookup["a"], errWrapped, nil
}

func Leak() []string { return handedOut }
`})
	pkgs, err := LoadTyped("./v")
	if err != nil {
		t.Fatal(err)
	}
	fs, n := PackageVarFindings(pkgs[0])
	if n != 8 {
		t.Errorf("inspected %d vars, want 8 (the blank one skipped)", n)
	}
	var got []string
	for _, f := range fs {
		got = append(got, f.What)
	}
	want := []string{
		"package var ErrReassigned (error sentinel) is written after its declaration",
		"package var counter (plain value or table) is written after its declaration",
		"package var handedOut (a []string table) escapes: an alias could write it",
		"package var mu of type sync.Mutex is neither an error sentinel nor a table of plain values",
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("missing finding %q; got:\n  %s", w, strings.Join(got, "\n  "))
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d findings, want %d:\n  %s", len(got), len(want), strings.Join(got, "\n  "))
	}
}

func TestForbiddenImportChains(t *testing.T) {
	writeModule(t, map[string]string{
		"core/core.go":   "package core\n\nimport _ \"example.com/m/mid\"\n",
		"mid/mid.go":     "package mid\n\nimport _ \"example.com/m/proto\"\n",
		"proto/proto.go": "package proto\n\nimport _ \"net\"\n",
		"clean/clean.go": "package clean\n\nimport _ \"strings\"\n",
	})
	g, err := LoadPackageGraph("./...")
	if err != nil {
		t.Fatal(err)
	}
	bad := func(_, imported string) (string, bool) { return "proto", imported == "example.com/m/proto" }
	vs := g.Forbidden("example.com/m/core", nil, bad)
	if len(vs) != 1 || strings.Join(vs[0].Chain, " ") != "example.com/m/core example.com/m/mid example.com/m/proto" {
		t.Fatalf("Forbidden(core) = %v, want the chain core -> mid -> proto", vs)
	}
	if vs := g.Forbidden("example.com/m/clean", nil, bad); len(vs) != 0 {
		t.Fatalf("Forbidden(clean) = %v, want none", vs)
	}
	if !g.IsStandard("net") || g.IsStandard("example.com/m/mid") {
		t.Fatal("IsStandard: net must be standard, example.com/m/mid not")
	}
	if !slices.Contains(g.Closure("example.com/m/core"), "net") {
		t.Fatal("Closure(core) does not reach net")
	}
}
