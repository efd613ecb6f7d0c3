package arch

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// ImportGraph computes a package's import closure: every package it
// reaches, itself included, with each one's direct imports. It exports the
// closure as a package fact, so a package needs only its direct imports'
// facts; its result is the *Graph rooted at the package. It reports
// nothing: the import rules read it.
var ImportGraph = &analysis.Analyzer{
	Name:       "importgraph",
	Doc:        "computes each package's import closure (a package fact) for the import rules",
	FactTypes:  []analysis.Fact{new(importsFact)},
	ResultType: reflect.TypeFor[*Graph](),
	Run:        runImportGraph,
}

// importsFact is a package's import closure: each package it reaches
// (itself included) with that package's direct imports, sorted by package
// (a slice, not a map, so its encoding is deterministic as facts must be).
type importsFact struct{ Edges []importsOf }

// importsOf is one package's direct imports, sorted.
type importsOf struct {
	Pkg     string
	Imports []string
}

func (*importsFact) AFact() {}

func (f *importsFact) String() string { return fmt.Sprintf("imports(%d packages)", len(f.Edges)) }

func runImportGraph(pass *analysis.Pass) (any, error) {
	g := &Graph{Root: pass.Pkg.Path(), edges: map[string][]string{}}
	var direct []string
	for _, ip := range pass.Pkg.Imports() {
		direct = append(direct, ip.Path())
		var f importsFact
		if !pass.ImportPackageFact(ip, &f) {
			f.Edges = []importsOf{{Pkg: ip.Path()}} // no fact (unsafe under go vet): a leaf
		}
		for _, e := range f.Edges {
			if old, ok := g.edges[e.Pkg]; !ok || (old == nil && e.Imports != nil) {
				g.edges[e.Pkg] = e.Imports
			}
		}
	}
	slices.Sort(direct)
	g.edges[g.Root] = direct
	fact := &importsFact{Edges: make([]importsOf, 0, len(g.edges))}
	for _, p := range g.Closure() {
		fact.Edges = append(fact.Edges, importsOf{Pkg: p, Imports: g.edges[p]})
	}
	pass.ExportPackageFact(fact)
	return g, nil
}

// Graph is the import closure of one package (Root).
type Graph struct {
	Root  string
	edges map[string][]string // every package in the closure: its direct imports, sorted
}

// Imports returns path's direct imports, sorted (nil for a package outside
// the closure).
func (g *Graph) Imports(path string) []string { return slices.Clone(g.edges[path]) }

// Closure returns Root and everything it imports, transitively, sorted.
func (g *Graph) Closure() []string { return slices.Sorted(maps.Keys(g.edges)) }

// ImportViolation is an import chain from a root to a package a rule
// forbids.
type ImportViolation struct {
	Chain []string // root first, forbidden package last
	Rule  string
}

// String is "rule: root -> ... -> forbidden".
func (v ImportViolation) String() string {
	return fmt.Sprintf("%s: %s", v.Rule, strings.Join(v.Chain, " -> "))
}

// Violations renders vs one per line, each line indented, for a failure
// message.
func Violations(vs []ImportViolation) string { return lines(vs) }

// Forbidden walks the imports from Root breadth first and returns, for
// every package p that bad reports as forbidden (with a reason) on an edge
// importer -> p, the shortest import chain from Root to p, sorted by the
// forbidden package. It does not walk on from a forbidden package: what
// that package imports is its own business, and one chain per way in is
// enough to name the import to remove.
func (g *Graph) Forbidden(bad func(importer, imported string) (string, bool)) []ImportViolation {
	prev := map[string]string{g.Root: ""}
	queue := []string{g.Root}
	found := map[string]ImportViolation{}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, ip := range g.edges[p] {
			if reason, ok := bad(p, ip); ok {
				if _, dup := found[ip]; !dup {
					found[ip] = ImportViolation{Chain: append(chainTo(prev, p), ip), Rule: reason}
				}
				continue
			}
			if _, seen := prev[ip]; seen {
				continue
			}
			prev[ip] = p
			queue = append(queue, ip)
		}
	}
	out := make([]ImportViolation, 0, len(found))
	for _, v := range found {
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b ImportViolation) int {
		return strings.Compare(a.Chain[len(a.Chain)-1], b.Chain[len(b.Chain)-1])
	})
	return out
}

func chainTo(prev map[string]string, p string) []string {
	var rev []string
	for ; p != ""; p = prev[p] {
		rev = append(rev, p)
	}
	slices.Reverse(rev)
	return rev
}
