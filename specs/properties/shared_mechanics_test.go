package properties

// P5: the regular and the share consumer run on the same execution
// mechanics while their protocol state and rules stay in separate managers
// that never import each other. Checked against the code: managers/group
// and managers/share (whichever exist) never import each other, directly or
// transitively; consumer.New and consumer.NewShare both build their engine
// with reactor.New; and every manager of both packages implements
// reactor.Manager[its view], so one Loop type runs both. Behavioural
// coverage of the share consumer on that loop lives in specs/share (its
// suite runs the same loop invariants against it); a spec here that drives
// both consumers side by side is the next step.

import (
	"fmt"
	"go/types"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/tools/go/packages"

	"github.com/kreactor/kreactor/harness/structure"
	"github.com/kreactor/kreactor/harness/suite"
)

// importedPackage returns the package p imports as path (as p's type
// checker saw it), or nil.
func importedPackage(p *packages.Package, path string) *types.Package {
	for _, ip := range p.Types.Imports() {
		if ip.Path() == path {
			return ip
		}
	}
	return nil
}

var _ = Describe("The regular and the share consumer share the execution mechanics", func() {
	It("keeps managers/group and managers/share apart: neither imports the other, directly or transitively",
		suite.Spec("shared-mechanics.group-share-separate", []string{"P1", "P5"}, subject.Name(), target.Name()),
		func() {
			cb := structural()
			g := cb.Graph()
			Expect(g.Has(structure.GroupPkg)).To(BeTrue(), "managers/group is loaded")
			share := g.Has(structure.SharePkg)
			if share {
				suite.Figure("share_package_present", 1, "packages", "")
			} else {
				suite.Figure("share_package_present", 0, "packages", "")
				suite.Note("share", "managers/share does not exist yet: only managers/group's imports are checked")
			}
			var all []structure.ImportViolation
			for _, pair := range [][2]string{{structure.GroupPkg, structure.SharePkg}, {structure.SharePkg, structure.GroupPkg}} {
				from, other := pair[0], pair[1]
				if !g.Has(from) {
					continue
				}
				all = append(all, g.Forbidden(from, nil, func(_, imported string) (string, bool) {
					return fmt.Sprintf("%s must not import %s", from, other), structure.InTree(imported, other)
				})...)
			}
			suite.Figure("cross_imports", float64(len(all)), "chains", "== 0")
			Expect(all).To(BeEmpty(), "import chains between the regular and the share managers (P1, P5):%s", violations(all))
		})

	It("builds the regular and the share consumer on reactor.Loop, with managers that implement reactor.Manager",
		suite.Spec("shared-mechanics.consumer-on-reactor-loop", []string{"P5"}, subject.Name(), target.Name()),
		func() {
			cb := structural()
			consumerPkg := cb.Typed()[structure.ConsumerPkg]
			Expect(consumerPkg).NotTo(BeNil(), "package consumer is loaded")

			By("consumer.New, and consumer.NewShare once it exists, constructing their engine with reactor.New")
			constructors := []string{"New"}
			if consumerPkg.Types.Scope().Lookup("NewShare") != nil {
				constructors = append(constructors, "NewShare")
			} else {
				suite.Note("share_consumer", "consumer.NewShare does not exist yet: only the regular consumer is checked")
			}
			for _, fn := range constructors {
				calls := structure.Calls(consumerPkg, fn, structure.ReactorPkg, "New")
				suite.Figure("reactor_new_calls_in_consumer_"+strings.ToLower(fn), float64(len(calls)), "calls", "== 1")
				Expect(calls).To(HaveLen(1), "calls of reactor.New in consumer.%s: every consumer must run on the reactor loop", fn)
			}

			By("every manager of managers/group (and managers/share, once it exists) implementing reactor.Manager[its view]")
			var checked, notManagers []string
			for _, path := range []string{structure.GroupPkg, structure.SharePkg} {
				p := cb.Typed()[path]
				if p == nil {
					continue
				}
				reactorPkg := importedPackage(p, structure.ReactorPkg)
				Expect(reactorPkg).NotTo(BeNil(), "%s imports reactor", path)
				for _, m := range structure.ManagerTypes(p) {
					poll, _, _ := types.LookupFieldOrMethod(types.NewPointer(m.Named), false, m.Named.Obj().Pkg(), "Poll")
					sig := poll.Type().(*types.Signature)
					if sig.Params().Len() != 2 {
						notManagers = append(notManagers, fmt.Sprintf("%s: Poll takes %d parameters, want (tx, view)", m, sig.Params().Len()))
						continue
					}
					view := sig.Params().At(1).Type()
					ok, err := structure.ImplementsManager(reactorPkg, m.Named, view)
					Expect(err).NotTo(HaveOccurred())
					if !ok {
						notManagers = append(notManagers, fmt.Sprintf("%s does not implement reactor.Manager[%s]", m, view))
						continue
					}
					checked = append(checked, fmt.Sprintf("%s: reactor.Manager[%s]", m, types.TypeString(view, types.RelativeTo(p.Types))))
				}
			}
			suite.Note("managers", strings.Join(checked, ", "))
			suite.Figure("managers_on_reactor", float64(len(checked)), "types", ">= 4")
			if cb.Typed()[structure.SharePkg] != nil {
				Expect(checked).To(ContainElement(HavePrefix("share.")), "share managers implementing reactor.Manager")
			}
			Expect(notManagers).To(BeEmpty(), "manager types that the reactor loop cannot run (P5)")
			Expect(len(checked)).To(BeNumerically(">=", 4), "managers of managers/group implementing reactor.Manager: %v", checked)
		})
})
