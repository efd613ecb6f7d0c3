package properties

// P6, "no runtime event bus, signal registry or dynamic dependency graph":
// the reactor's exported API offers no way to register inputs, handlers or
// dependencies at run time. Read from the type-checked package reactor by
// the analyzers of package harness/arch (NoRegistry, PackageVars):
//
//   - every exported function or method that takes code (a func or an
//     interface parameter, context.Context aside) is on a reviewed list, each
//     entry saying why it is not a registration: it is construction-time
//     configuration, or one-shot (used once, then dropped);
//   - every exported struct field that holds code is on the same kind of
//     list;
//   - no exported identifier is named like a registry (Register, Subscribe,
//     AddListener, On..., Emit, Bus, Signal, Hook, AddManager, AddInput,
//     DependsOn, ...);
//   - package variables keep arch.PackageVarRule (no hidden registry);
//   - Input is a fixed set of single-bit constants, and Valid rejects the
//     first bit past them: a new kind of input is a new constant, not a
//     value minted at run time.
//
// A new entry point that takes code fails the first check until it is
// reviewed and added to the list with its reason.

import (
	"fmt"
	"go/constant"
	"go/types"
	"math/bits"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/arch"
	"github.com/kreactor/kreactor/harness/suite"
	"github.com/kreactor/kreactor/reactor"
)

var _ = Describe("No runtime event bus, signal registry or dependency graph", func() {
	It("exposes no way to register inputs, handlers or dependencies at run time; Input is a fixed set of constants",
		suite.Spec("no-registry.reactor-api", []string{"P6"}, subject.Name(), target.Name()),
		func() {
			r := checkCode(arch.NoRegistry, arch.PackageVars)
			p := r.Packages[arch.ReactorPkg]
			Expect(p).NotTo(BeNil(), "package reactor is loaded")
			scope := p.Types.Scope()

			By("checking every exported function and method that takes code, and every exported struct field that holds code or opaque values, against the reviewed lists")
			api := r.Result(arch.NoRegistry, arch.ReactorPkg).(*arch.RegistryReport)
			problems := slices.Clone(api.Problems)

			By("checking package variables")
			vars := r.Result(arch.PackageVars, arch.ReactorPkg).(*arch.VarReport)
			for _, f := range vars.Findings {
				problems = append(problems, f.String())
			}

			By("checking that Input is a fixed set of single-bit constants bounded by Valid")
			var inputs []uint64
			var inputNames []string
			inputType := scope.Lookup("Input").Type()
			for _, name := range scope.Names() {
				c, ok := scope.Lookup(name).(*types.Const)
				if !ok || !types.Identical(c.Type(), inputType) {
					continue
				}
				v, _ := constant.Uint64Val(c.Val())
				if c.Exported() {
					inputs = append(inputs, v)
					inputNames = append(inputNames, name)
				}
			}
			for _, name := range scope.Names() {
				if v, ok := scope.Lookup(name).(*types.Var); ok && types.Identical(v.Type(), inputType) {
					problems = append(problems, fmt.Sprintf("package variable %s of type Input: inputs must be constants", name))
				}
			}
			slices.Sort(inputs)
			var union uint64
			for i, v := range inputs {
				if bits.OnesCount64(v) != 1 {
					problems = append(problems, fmt.Sprintf("Input constant %#x is not a single input", v))
				}
				if v != 1<<i {
					problems = append(problems, fmt.Sprintf("Input constants are not the contiguous bits 1<<0..1<<%d: %#x at %d", len(inputs)-1, v, i))
				}
				union |= v
				if !reactor.Input(v).Valid() {
					problems = append(problems, fmt.Sprintf("Input %s (%#x) is not Valid", reactor.Input(v), v))
				}
			}
			next := reactor.Input(1) << len(inputs)
			if next.Valid() {
				problems = append(problems, fmt.Sprintf("Input %#x past the %d constants is Valid: the set is not bounded", uint64(next), len(inputs)))
			}
			if !reactor.Input(union).Valid() {
				problems = append(problems, "the union of every Input constant is not Valid")
			}

			suite.Note("inputs", strings.Join(inputNames, ", "))
			suite.Figure("exported_funcs", float64(api.ExportedFuncs), "funcs", "")
			suite.Figure("funcs_taking_code", float64(api.TakesCode), "funcs", fmt.Sprintf("<= %d (reviewed)", api.ReviewedCallbacks))
			suite.Figure("fields_holding_code", float64(api.CodeFields), "fields", fmt.Sprintf("<= %d (reviewed)", api.ReviewedFields))
			suite.Figure("package_vars", float64(vars.Inspected), "vars", "")
			suite.Figure("input_constants", float64(len(inputs)), "inputs", "fixed")
			suite.Figure("registry_problems", float64(len(problems)), "", "== 0")
			Expect(inputs).NotTo(BeEmpty(), "Input constants found")
			Expect(problems).To(BeEmpty(), "ways to register inputs, handlers or dependencies at run time (P6)")
		})
})

// namedManager is a synthetic manager with nothing to do.
type namedManager struct{ name string }

func (m *namedManager) Name() string { return m.name }
func (m *namedManager) Poll(*reactor.Tx, synthView) reactor.Result {
	return reactor.Idle("nothing to do")
}

var _ = Describe("A manager set fixed at construction", func() {
	// reactor.NewCore (under reactor.New and baseline.NewLoop) copies the
	// managers: writing the caller's slice after New must not change what
	// the loop polls.
	It("polls the managers it was built with, whatever the caller later does to its Config.Managers slice",
		suite.Spec("no-registry.managers-fixed-at-new", []string{"P6"}, subject.Name(), target.Name()),
		SpecTimeout(harness.SpecTimeout),
		func(ctx SpecContext) {
			ms := []reactor.Manager[synthView]{&namedManager{"built-with"}}
			eng := newEngine(suite.EngineOf(subject), ms, noTransport(), 0)
			ms[0] = &namedManager{"swapped-in-after-new"}
			eng.Start()
			DeferCleanup(eng.Stop)
			done := make(chan struct{})
			Expect(eng.Submit(ctx, "step", func(tx *reactor.Tx) { tx.Effect(func() { close(done) }) })).To(Succeed())
			Eventually(ctx, done).WithTimeout(harness.WaitTimeout).Should(BeClosed())
			Eventually(ctx, func() uint64 { return eng.Current().Decision.Step }).WithTimeout(harness.WaitTimeout).Should(BeNumerically(">=", 1), "a step published")
			var polled []string
			for _, r := range eng.Current().Decision.Results {
				polled = append(polled, r.Manager)
			}
			Expect(polled).To(Equal([]string{"built-with"}), "managers the loop polls after the caller rewrote its Config.Managers slice")
		})
})
