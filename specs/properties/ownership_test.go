package properties

// P1: each request manager keeps sole ownership of its mutable state and its
// protocol rules; the execution mechanics hold no protocol state. Checked
// against the code, with go/packages and go/types (package harness/structure):
//
//   - the execution mechanics (every package under reactor/) depend on the
//     standard library only: no franz-go package (kmsg, kgo, kerr, kfake),
//     no package of this module outside reactor/, no third-party package,
//     and `net` neither directly nor through a non-standard package. The
//     standard library's own internal use of net would be allowed (a
//     reactor package may use, say, log/slog, whatever slog imports): the
//     rule is about what reactor code reaches for, not about the runtime;
//   - every manager type (a type with Name() string and
//     Poll(*reactor.Tx, ...) reactor.Result) in managers/... has only
//     unexported fields, and no code in its package writes its fields
//     except its own methods and constructor: other managers ask through
//     methods (Fetch.SetPosition, Coordinator.MarkUnknown), they never
//     reach in;
//   - managers packages keep no state in package variables
//     (structure.PackageVarRule: only never-written error sentinels and
//     never-written, non-escaping tables of plain values).
//
// These specs read the code, not a running subject: they run once, with
// subject reactor, and say nothing about another subject.

import (
	"fmt"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/tools/go/packages"

	"github.com/kreactor/kreactor/harness/structure"
	"github.com/kreactor/kreactor/harness/suite"
)

// protocolLibrary is the module path prefix of franz-go (kmsg, kgo, kerr,
// kfake, ...).
const protocolLibrary = "github.com/twmb/franz-go"

// wantManagers are manager types that exist today; the shape check must
// find at least these, so it cannot pass by finding nothing.
var wantManagers = []string{"group.Commit", "group.Fetch", "group.Membership", "group.Offsets", "managers.Coordinator", "managers.Metadata"}

// codePatterns are the packages the structural specs read: the execution
// mechanics, the managers and the consumer.
var codePatterns = []string{structure.ReactorPkg + "/...", structure.ManagersPkg + "/...", structure.ConsumerPkg}

// codeBase is the module's code as one structural spec reads it: the import
// graph and the type-checked packages of codePatterns, each loaded on first
// use. It is not shared between specs, so the memory spec never measures
// it.
type codeBase struct {
	graph *structure.PackageGraph
	typed map[string]*packages.Package
}

// Graph returns the import graph.
func (cb *codeBase) Graph() *structure.PackageGraph {
	GinkgoHelper()
	if cb.graph == nil {
		g, err := structure.LoadPackageGraph(codePatterns...)
		Expect(err).NotTo(HaveOccurred(), "loading the module's import graph with go/packages")
		cb.graph = g
	}
	return cb.graph
}

// Typed returns the type-checked packages by import path.
func (cb *codeBase) Typed() map[string]*packages.Package {
	GinkgoHelper()
	if cb.typed == nil {
		pkgs, err := structure.LoadTyped(codePatterns...)
		Expect(err).NotTo(HaveOccurred(), "loading and type-checking the module's packages with go/packages")
		cb.typed = map[string]*packages.Package{}
		for _, p := range pkgs {
			cb.Typed()[p.PkgPath] = p
		}
	}
	return cb.typed
}

// structural returns the code base for a structural spec, skipping on
// subjects other than reactor. It runs on every target (it takes a second):
// the report then shows the item on each target like any other.
func structural() *codeBase {
	GinkgoHelper()
	suite.OnReferenceOnly(subject, "the code (structural)")
	return &codeBase{}
}

// managerPackages are the loaded packages under managers/, sorted.
func (cb *codeBase) managerPackages() []*packages.Package {
	var out []*packages.Package
	for path, p := range cb.Typed() {
		if structure.InTree(path, structure.ManagersPkg) {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b *packages.Package) int { return strings.Compare(a.PkgPath, b.PkgPath) })
	return out
}

// reactorImportRule is the P1 rule for the execution mechanics' imports.
func reactorImportRule(g *structure.PackageGraph) func(importer, imported string) (string, bool) {
	return func(importer, imported string) (string, bool) {
		switch {
		case structure.InTree(imported, structure.ReactorPkg):
			return "", false // the mechanics' own packages
		case structure.InTree(imported, protocolLibrary):
			return "the Kafka protocol library (kmsg, kgo, kerr, kfake)", true
		case structure.InTree(imported, structure.ModulePath) && !structure.InTree(imported, structure.ReactorPkg):
			return "a package of this module outside reactor/ (the dependency direction is reactor <- managers <- consumer)", true
		case !g.IsStandard(imported):
			return "a package outside the standard library", true
		case (imported == "net" || structure.InTree(imported, "net")) && !g.IsStandard(importer):
			return "net, reached for by reactor code rather than by the standard library's own internals", true
		}
		return "", false
	}
}

func findings(fs []structure.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("\n  ")
		b.WriteString(f.String())
	}
	return b.String()
}

func violations(vs []structure.ImportViolation) string {
	var b strings.Builder
	for _, v := range vs {
		b.WriteString("\n  ")
		b.WriteString(v.String())
	}
	return b.String()
}

var _ = Describe("Request managers own their state", func() {
	It("keeps the execution mechanics free of protocol code: reactor/ depends on the standard library only, and reaches no net",
		suite.Spec("ownership.reactor-knows-no-protocol", []string{"P1"}, subject.Name(), target.Name()),
		func() {
			cb := structural()
			g := cb.Graph()
			rule := reactorImportRule(g)
			mechanics := g.Under(structure.ReactorPkg)
			Expect(mechanics).To(ContainElement(structure.ReactorPkg), "packages under reactor/")
			var all []structure.ImportViolation
			closure := map[string]bool{}
			for _, p := range mechanics {
				all = append(all, g.Forbidden(p, nil, rule)...)
				for _, d := range g.Closure(p) {
					closure[d] = true
				}
			}
			suite.Note("packages", strings.Join(mechanics, ", "))
			suite.Note("direct_imports_of_reactor", strings.Join(g.Imports(structure.ReactorPkg), ", "))
			suite.Figure("mechanics_packages", float64(len(mechanics)), "packages", "")
			suite.Figure("import_closure", float64(len(closure)), "packages", "reactor/ and the standard library only")
			suite.Figure("forbidden_imports", float64(len(all)), "chains", "== 0")

			By("checking that the rule does flag code that speaks the protocol (the consumer)")
			control := g.Forbidden(structure.ConsumerPkg, nil, rule)
			Expect(control).NotTo(BeEmpty(), "the import rule found nothing in package consumer, which imports kmsg and net: the check is not looking")

			Expect(all).To(BeEmpty(), "import chains from the execution mechanics to forbidden packages (P1):%s", violations(all))
		})

	It("keeps every request manager's state in unexported fields that only the manager's own methods write",
		suite.Spec("ownership.manager-state-private", []string{"P1"}, subject.Name(), target.Name()),
		func() {
			cb := structural()
			var found []string
			var exported, writes, reads []structure.Finding
			for _, p := range cb.managerPackages() {
				ms := structure.ManagerTypes(p)
				for _, m := range ms {
					found = append(found, m.String())
					exported = append(exported, structure.ExportedStateFields(m)...)
				}
				w, r := structure.ForeignFieldWrites(p, ms)
				writes = append(writes, w...)
				reads = append(reads, r...)
			}
			slices.Sort(found)
			suite.Note("managers", strings.Join(found, ", "))
			suite.Figure("manager_types", float64(len(found)), "types", fmt.Sprintf(">= %d", len(wantManagers)))
			suite.Figure("exported_state_fields", float64(len(exported)), "fields", "== 0")
			suite.Figure("foreign_field_writes", float64(len(writes)), "statements", "== 0")
			// Reading another manager's field is not a write, but it is
			// a dependency the owner does not see; reported, not failed.
			suite.Figure("foreign_field_reads", float64(len(reads)), "expressions", "")
			if len(reads) > 0 {
				suite.Note("foreign_field_reads", findings(reads))
			}
			Expect(found).To(ContainElements(wantManagers), "manager types found by shape (Name() string; Poll(*reactor.Tx, ...) reactor.Result)")
			Expect(exported).To(BeEmpty(), "exported state fields on request managers (P1):%s", findings(exported))
			Expect(writes).To(BeEmpty(), "manager fields written outside the owning manager's methods (P1):%s", findings(writes))
		})

	It("keeps no manager state in package variables: only error sentinels and read-only tables",
		suite.Spec("ownership.no-package-state", []string{"P1"}, subject.Name(), target.Name()),
		func() {
			cb := structural()
			var all []structure.Finding
			inspected := 0
			pkgs := cb.managerPackages()
			Expect(pkgs).NotTo(BeEmpty(), "packages under managers/")
			for _, p := range pkgs {
				fs, n := structure.PackageVarFindings(p)
				all = append(all, fs...)
				inspected += n
			}
			suite.Note("rule", structure.PackageVarRule)
			suite.Figure("package_vars_inspected", float64(inspected), "vars", "")
			suite.Figure("package_var_violations", float64(len(all)), "vars", "== 0")
			Expect(all).To(BeEmpty(), "package variables in managers packages that break the rule %q (P1):%s", structure.PackageVarRule, findings(all))
		})
})
