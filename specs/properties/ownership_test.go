package properties

// P1: each request manager keeps sole ownership of its mutable state and its
// protocol rules; the execution mechanics hold no protocol state. Checked
// against the code by the go/analysis analyzers of package harness/arch
// (MechanicsImports, ManagerFields, ManagerWrites, PackageVars):
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
//     (arch.PackageVarRule: only never-written error sentinels and
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
	"golang.org/x/tools/go/analysis"

	"github.com/kreactor/kreactor/harness/arch"
	"github.com/kreactor/kreactor/harness/suite"
)

// wantManagers are manager types that exist today; the shape check must
// find at least these, so it cannot pass by finding nothing.
var wantManagers = []string{"group.Commit", "group.Fetch", "group.Membership", "group.Offsets", "managers.Coordinator", "managers.Metadata"}

// codePatterns are the packages the structural specs read: the execution
// mechanics, the managers and the consumer.
var codePatterns = []string{arch.ReactorPkg + "/...", arch.ManagersPkg + "/...", arch.ConsumerPkg}

// checkCode runs analyzers (package harness/arch: the architecture rules as
// go/analysis analyzers) on codePatterns for a structural spec, skipping on
// subjects other than reactor. It runs on every target (it takes a few
// seconds): the report then shows the item on each target like any other.
// Nothing is shared between specs, so the memory spec never measures it.
func checkCode(analyzers ...*analysis.Analyzer) *arch.Results {
	GinkgoHelper()
	suite.OnReferenceOnly(subject, "the code (structural)")
	r, err := arch.Check(codePatterns, analyzers...)
	Expect(err).NotTo(HaveOccurred(), "loading, type-checking and analyzing the module's packages with go/packages and go/analysis")
	return r
}

var _ = Describe("Request managers own their state", func() {
	It("keeps the execution mechanics free of protocol code: reactor/ depends on the standard library only, and reaches no net",
		suite.Spec("ownership.reactor-knows-no-protocol", []string{"P1"}, subject.Name(), target.Name()),
		func() {
			r := checkCode(arch.MechanicsImports)
			mechanics := r.Under(arch.ReactorPkg)
			Expect(mechanics).To(ContainElement(arch.ReactorPkg), "packages under reactor/")
			var all []arch.ImportViolation
			closure := map[string]bool{}
			for _, p := range mechanics {
				rep := r.Result(arch.MechanicsImports, p).(*arch.ImportReport)
				all = append(all, rep.Violations...)
				for _, d := range rep.Closure {
					closure[d] = true
				}
			}
			suite.Note("packages", strings.Join(mechanics, ", "))
			suite.Note("direct_imports_of_reactor", strings.Join(r.Result(arch.MechanicsImports, arch.ReactorPkg).(*arch.ImportReport).Imports, ", "))
			suite.Figure("mechanics_packages", float64(len(mechanics)), "packages", "")
			suite.Figure("import_closure", float64(len(closure)), "packages", "reactor/ and the standard library only")
			suite.Figure("forbidden_imports", float64(len(all)), "chains", "== 0")

			By("checking that the rule does flag code that speaks the protocol (the consumer)")
			control := r.Result(arch.MechanicsImports, arch.ConsumerPkg).(*arch.ImportReport).Violations
			Expect(control).NotTo(BeEmpty(), "the import rule found nothing in package consumer, which imports kmsg and net: the check is not looking")

			Expect(all).To(BeEmpty(), "import chains from the execution mechanics to forbidden packages (P1):%s", arch.Violations(all))
		})

	It("keeps every request manager's state in unexported fields that only the manager's own methods write",
		suite.Spec("ownership.manager-state-private", []string{"P1"}, subject.Name(), target.Name()),
		func() {
			r := checkCode(arch.ManagerTypes, arch.ManagerFields, arch.ManagerWrites)
			var found []string
			var exported, writes, reads []arch.Finding
			for _, p := range r.Under(arch.ManagersPkg) {
				for _, m := range r.Result(arch.ManagerTypes, p).([]arch.ManagerType) {
					found = append(found, m.String())
				}
				exported = append(exported, r.Result(arch.ManagerFields, p).([]arch.Finding)...)
				fw := r.Result(arch.ManagerWrites, p).(*arch.FieldWrites)
				writes = append(writes, fw.Writes...)
				reads = append(reads, fw.Reads...)
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
				suite.Note("foreign_field_reads", arch.Findings(reads))
			}
			Expect(found).To(ContainElements(wantManagers), "manager types found by shape (Name() string; Poll(*reactor.Tx, ...) reactor.Result)")
			Expect(exported).To(BeEmpty(), "exported state fields on request managers (P1):%s", arch.Findings(exported))
			Expect(writes).To(BeEmpty(), "manager fields written outside the owning manager's methods (P1):%s", arch.Findings(writes))
		})

	It("keeps no manager state in package variables: only error sentinels and read-only tables",
		suite.Spec("ownership.no-package-state", []string{"P1"}, subject.Name(), target.Name()),
		func() {
			r := checkCode(arch.PackageVars)
			var all []arch.Finding
			inspected := 0
			pkgs := r.Under(arch.ManagersPkg)
			Expect(pkgs).NotTo(BeEmpty(), "packages under managers/")
			for _, p := range pkgs {
				rep := r.Result(arch.PackageVars, p).(*arch.VarReport)
				all = append(all, rep.Findings...)
				inspected += rep.Inspected
			}
			suite.Note("rule", arch.PackageVarRule)
			suite.Figure("package_vars_inspected", float64(inspected), "vars", "")
			suite.Figure("package_var_violations", float64(len(all)), "vars", "== 0")
			Expect(all).To(BeEmpty(), "package variables in managers packages that break the rule %q (P1):%s", arch.PackageVarRule, arch.Findings(all))
		})
})
