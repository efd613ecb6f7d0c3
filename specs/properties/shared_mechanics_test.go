package properties

// P5: the regular and the share consumer run on the same execution
// mechanics while their protocol state and rules stay in separate managers
// that never import each other. Checked against the code by the analyzers
// of package harness/arch (SeparateManagers, ReactorLoop, ManagerImpl): managers/group
// and managers/share (whichever exist) never import each other, directly or
// transitively; consumer.New and consumer.NewShare both build their engine
// with reactor.New; and every manager of both packages implements
// reactor.Manager[its view], so one Loop type runs both. Behavioural
// coverage of the share consumer on that loop lives in specs/share (its
// suite runs the same loop invariants against it); a spec here that drives
// both consumers side by side is the next step.

import (
	"go/token"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kreactor/kreactor/harness/arch"
	"github.com/kreactor/kreactor/harness/suite"
)

var _ = Describe("The regular and the share consumer share the execution mechanics", func() {
	It("keeps managers/group and managers/share apart: neither imports the other, directly or transitively",
		suite.Spec("shared-mechanics.group-share-separate", []string{"P1", "P5"}, subject.Name(), target.Name()),
		func() {
			r := checkCode(arch.SeparateManagers)
			Expect(r.Packages).To(HaveKey(arch.GroupPkg), "managers/group is loaded")
			_, share := r.Packages[arch.SharePkg]
			if share {
				suite.Figure("share_package_present", 1, "packages", "")
			} else {
				suite.Figure("share_package_present", 0, "packages", "")
				suite.Note("share", "managers/share does not exist yet: only managers/group's imports are checked")
			}
			var all []arch.ImportViolation
			for _, from := range []string{arch.GroupPkg, arch.SharePkg} {
				if rep, ok := r.Result(arch.SeparateManagers, from).(*arch.ImportReport); ok {
					all = append(all, rep.Violations...)
				}
			}
			suite.Figure("cross_imports", float64(len(all)), "chains", "== 0")
			Expect(all).To(BeEmpty(), "import chains between the regular and the share managers (P1, P5):%s", arch.Violations(all))
		})

	It("builds the regular and the share consumer on reactor.Loop, with managers that implement reactor.Manager",
		suite.Spec("shared-mechanics.consumer-on-reactor-loop", []string{"P5"}, subject.Name(), target.Name()),
		func() {
			r := checkCode(arch.ReactorLoop, arch.ManagerImpl)
			consumerPkg := r.Packages[arch.ConsumerPkg]
			Expect(consumerPkg).NotTo(BeNil(), "package consumer is loaded")

			By("consumer.New, and consumer.NewShare once it exists, constructing their engine with reactor.New")
			constructors := []string{"New"}
			if consumerPkg.Types.Scope().Lookup("NewShare") != nil {
				constructors = append(constructors, "NewShare")
			} else {
				suite.Note("share_consumer", "consumer.NewShare does not exist yet: only the regular consumer is checked")
			}
			calls := r.Result(arch.ReactorLoop, arch.ConsumerPkg).(map[string][]token.Position)
			for _, fn := range constructors {
				suite.Figure("reactor_new_calls_in_consumer_"+strings.ToLower(fn), float64(len(calls[fn])), "calls", "== 1")
				Expect(calls[fn]).To(HaveLen(1), "calls of reactor.New in consumer.%s: every consumer must run on the reactor loop", fn)
			}

			By("every manager of managers/group (and managers/share, once it exists) implementing reactor.Manager[its view]")
			var checked, notManagers []string
			for _, path := range []string{arch.GroupPkg, arch.SharePkg} {
				if r.Packages[path] == nil {
					continue
				}
				rep := r.Result(arch.ManagerImpl, path).(*arch.ManagerImplReport)
				checked = append(checked, rep.Checked...)
				notManagers = append(notManagers, rep.NotManagers...)
			}
			suite.Note("managers", strings.Join(checked, ", "))
			suite.Figure("managers_on_reactor", float64(len(checked)), "types", ">= 4")
			if r.Packages[arch.SharePkg] != nil {
				Expect(checked).To(ContainElement(HavePrefix("share.")), "share managers implementing reactor.Manager")
			}
			Expect(notManagers).To(BeEmpty(), "manager types that the reactor loop cannot run (P5)")
			Expect(len(checked)).To(BeNumerically(">=", 4), "managers of managers/group implementing reactor.Manager: %v", checked)
		})
})
