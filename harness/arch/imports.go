package arch

import (
	"fmt"
	"go/token"
	"reflect"
	"strconv"

	"golang.org/x/tools/go/analysis"
)

// ImportReport is the result of an import rule on one package: the chains
// that break the rule (computed whether or not the rule applies to the
// package, so a spec can show the rule flags a package that speaks the
// protocol), the package's import closure and its direct imports.
type ImportReport struct {
	Applies    bool // the rule applies to the package (and reported Violations)
	Violations []ImportViolation
	Closure    []string // the package and everything it imports, sorted
	Imports    []string // its direct imports, sorted
}

// MechanicsImports is the P1 rule for the execution mechanics' imports:
// every package under reactor/ depends on the standard library and
// reactor/... only (no franz-go, no other package of this module, no
// third-party package), and reaches net neither directly nor through a
// non-standard package. The standard library's own use of net is allowed:
// the rule is about what reactor code reaches for, not about the runtime.
var MechanicsImports = importRule("mechanicsimports",
	"the execution mechanics (reactor/...) depend on the standard library only and reach no net",
	func(pkg string) bool { return InTree(pkg, ReactorPkg) },
	func(_, importer, imported string) (string, bool) {
		switch {
		case InTree(imported, ReactorPkg):
			return "", false // the mechanics' own packages
		case InTree(imported, protocolLibrary):
			return "the Kafka protocol library (kmsg, kgo, kerr, kfake)", true
		case InTree(imported, ModulePath):
			return "a package of this module outside reactor/ (the dependency direction is reactor <- managers <- consumer)", true
		case !isStandard(imported):
			return "a package outside the standard library", true
		case InTree(imported, "net") && !isStandard(importer):
			return "net, reached for by reactor code rather than by the standard library's own internals", true
		}
		return "", false
	})

// SeparateManagers is the P1/P5 rule that managers/group and
// managers/share (and their sub-packages) never import each other,
// directly or transitively: the two consumers share the mechanics, never
// each other's protocol state.
var SeparateManagers = importRule("separatemanagers",
	"managers/group and managers/share never import each other, directly or transitively",
	func(pkg string) bool { return InTree(pkg, GroupPkg) || InTree(pkg, SharePkg) },
	func(root, _, imported string) (string, bool) {
		for _, pair := range [][2]string{{GroupPkg, SharePkg}, {SharePkg, GroupPkg}} {
			if InTree(root, pair[0]) && InTree(imported, pair[1]) {
				return fmt.Sprintf("%s must not import %s", pair[0], pair[1]), true
			}
		}
		return "", false
	})

// CoreImports is the rule that the harness core (package harness) imports
// no package of its own tree (harness/...: the helpers import the core)
// and no Ginkgo or Gomega, directly or transitively, so whatever uses a
// target or a subject links no test framework.
var CoreImports = importRule("coreimports",
	"the harness core imports no harness/... package and no Ginkgo or Gomega, directly or transitively",
	func(pkg string) bool { return pkg == HarnessPkg },
	func(_, _, imported string) (string, bool) {
		switch {
		case InTree(imported, HarnessPkg) && imported != HarnessPkg:
			return "the harness core imports a package of its own tree (its helpers import it, not the reverse)", true
		case InTree(imported, "github.com/onsi"):
			return "the harness core reaches Ginkgo or Gomega (only harness/suite may)", true
		}
		return "", false
	})

// importRule builds an import rule's analyzer: bad(root, importer,
// imported) judges every edge of the root's import closure; the analyzer
// reports each forbidden package's shortest chain at the root's import of
// the chain's first step, for packages the rule applies to.
func importRule(name, doc string, applies func(pkg string) bool, bad func(root, importer, imported string) (string, bool)) *analysis.Analyzer {
	return &analysis.Analyzer{
		Name:       name,
		Doc:        doc,
		Requires:   []*analysis.Analyzer{ImportGraph},
		ResultType: reflect.TypeFor[*ImportReport](),
		Run: func(pass *analysis.Pass) (any, error) {
			g := pass.ResultOf[ImportGraph].(*Graph)
			r := &ImportReport{Applies: applies(g.Root), Closure: g.Closure(), Imports: g.Imports(g.Root)}
			r.Violations = g.Forbidden(func(importer, imported string) (string, bool) { return bad(g.Root, importer, imported) })
			if r.Applies {
				for _, v := range r.Violations {
					pass.Reportf(importPos(pass, v.Chain[1]), "%s", v)
				}
			}
			return r, nil
		},
	}
}

// importPos is where the package imports path (its first import spec of
// it), or the package clause of its first file.
func importPos(pass *analysis.Pass, path string) token.Pos {
	for _, f := range pass.Files {
		for _, spec := range f.Imports {
			if p, err := strconv.Unquote(spec.Path.Value); err == nil && p == path {
				return spec.Path.Pos()
			}
		}
	}
	if len(pass.Files) > 0 {
		return pass.Files[0].Package
	}
	return 0
}
