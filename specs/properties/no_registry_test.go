package properties

// P6, "no runtime event bus, signal registry or dynamic dependency graph":
// the reactor's exported API offers no way to register inputs, handlers or
// dependencies at run time. Read from the type-checked package reactor:
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
//   - package variables keep structure.PackageVarRule (no hidden registry);
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
	"regexp"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/structure"
	"github.com/kreactor/kreactor/harness/suite"
	"github.com/kreactor/kreactor/reactor"
)

// reviewedCallbacks are the exported reactor functions and methods that take
// code, and why each is not a registration.
var reviewedCallbacks = map[string]string{
	"Engine.Submit":      "one application event: applied once, in inbox order, then dropped",
	"Engine.WaitFor":     "one wait: cond is evaluated on the caller's goroutine and never kept",
	"Event":              "one application event as an observation: applied once by Core.Apply, then dropped",
	"Completion":         "resp is the data of one completion, applied once by Core.Apply",
	"Driver.Go":          "the driver goroutine's body, started once (a second call panics)",
	"Tx.Effect":          "one effect: run once after the step's decision is published, then dropped",
	"TransportFunc.Send": "done completes one request, exactly once",
}

// reviewedCodeFields are the exported struct fields that hold code or
// opaque values, and why each is not a registration.
var reviewedCodeFields = map[string]string{
	"Config.Managers":      "fixed at New: the loop polls this set, in this order, for its whole life",
	"Config.View":          "fixed at New",
	"Config.Snapshot":      "fixed at New",
	"Config.Transport":     "fixed at New",
	"CoreConfig.Managers":  "fixed at NewCore: the core polls this set, in this order, for its whole life",
	"CoreConfig.View":      "fixed at NewCore",
	"CoreConfig.Snapshot":  "fixed at NewCore",
	"Request.OnComplete":   "called exactly once, for this request's completion",
	"Request.Payload":      "opaque data for the transport",
	"Publication.Snapshot": "data, published once",
	"Step.Snapshot":        "data: what the Snapshot function built for this step, published once",
	"Step.Effects":         "one step's effects: run once, after its decision is published, then dropped",
	"ConfigError.Value":    "data: the rejected value",
}

// registryName matches identifiers that name a registration mechanism.
var registryName = regexp.MustCompile(`^(Register|Unregister|Subscribe|Unsubscribe|AddListener|RemoveListener|AddHandler|RemoveHandler|On[A-Z]|Emit|Bus|EventBus|Signal|Hook|Plugin|AddManager|RemoveManager|AddInput|NewInput|DependsOn|AddDependency|Watch)`)

var _ = Describe("No runtime event bus, signal registry or dependency graph", func() {
	It("exposes no way to register inputs, handlers or dependencies at run time; Input is a fixed set of constants",
		suite.Spec("no-registry.reactor-api", []string{"P6"}, subject.Name(), target.Name()),
		func() {
			cb := structural()
			p := cb.Typed()[structure.ReactorPkg]
			Expect(p).NotTo(BeNil(), "package reactor is loaded")
			var problems []string

			By("checking every exported function and method that takes code against the reviewed list")
			api := structure.ExportedFuncs(p)
			takesCode := 0
			for _, f := range api {
				if structure.TakesCallback(f.Sig) {
					takesCode++
					if _, ok := reviewedCallbacks[f.Name]; !ok {
						problems = append(problems, fmt.Sprintf("%s%s takes code and is not on the reviewed list", f.Name, strings.TrimPrefix(f.Sig.String(), "func")))
					}
				}
				if registryName.MatchString(lastName(f.Name)) {
					problems = append(problems, fmt.Sprintf("%s is named like a registration", f.Name))
				}
			}

			By("checking every exported struct field that holds code or opaque values")
			codeFields := 0
			scope := p.Types.Scope()
			for _, name := range scope.Names() {
				obj := scope.Lookup(name)
				if !obj.Exported() {
					continue
				}
				if registryName.MatchString(name) {
					problems = append(problems, fmt.Sprintf("%s is named like a registration", name))
				}
				tn, ok := obj.(*types.TypeName)
				if !ok {
					continue
				}
				st, ok := tn.Type().Underlying().(*types.Struct)
				if !ok {
					continue
				}
				for fld := range st.Fields() {
					if !fld.Exported() || !holdsCode(fld.Type()) {
						continue
					}
					codeFields++
					key := name + "." + fld.Name()
					if _, ok := reviewedCodeFields[key]; !ok {
						problems = append(problems, fmt.Sprintf("field %s (%s) holds code and is not on the reviewed list", key, fld.Type()))
					}
				}
			}

			By("checking package variables")
			vars, n := structure.PackageVarFindings(p)
			for _, f := range vars {
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
			suite.Figure("exported_funcs", float64(len(api)), "funcs", "")
			suite.Figure("funcs_taking_code", float64(takesCode), "funcs", fmt.Sprintf("<= %d (reviewed)", len(reviewedCallbacks)))
			suite.Figure("fields_holding_code", float64(codeFields), "fields", fmt.Sprintf("<= %d (reviewed)", len(reviewedCodeFields)))
			suite.Figure("package_vars", float64(n), "vars", "")
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

func lastName(qualified string) string {
	if i := strings.LastIndex(qualified, "."); i >= 0 {
		return qualified[i+1:]
	}
	return qualified
}

// holdsCode: a func, an interface (any included: opaque values), or a
// slice or map of them.
func holdsCode(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Signature, *types.Interface:
		return true
	case *types.Slice:
		return holdsCode(u.Elem())
	case *types.Map:
		return holdsCode(u.Elem())
	case *types.Pointer:
		_, named := u.Elem().(*types.Named)
		return !named && holdsCode(u.Elem())
	}
	return false
}
