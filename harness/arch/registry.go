package arch

import (
	"fmt"
	"go/token"
	"go/types"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
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

// RegistryReport is the result of NoRegistry: the reactor's exported
// functions and methods, those that take code, the exported fields that
// hold code, the sizes of the reviewed lists, and the problems reported.
type RegistryReport struct {
	ExportedFuncs, TakesCode, CodeFields int
	ReviewedCallbacks, ReviewedFields    int
	Problems                             []string
}

// NoRegistry is the P6 rule that the reactor's exported API offers no way
// to register inputs, handlers or dependencies at run time: every exported
// function or method that takes code (a func or an interface parameter,
// context.Context aside) is on a reviewed list saying why it is not a
// registration (construction-time configuration, or one-shot), so is every
// exported struct field that holds code, and no exported identifier is
// named like a registry (Register, Subscribe, AddListener, On..., Emit,
// Bus, Signal, Hook, AddManager, AddInput, DependsOn, ...). A new entry
// point that takes code fails until it is reviewed and added to the list
// with its reason. Its result is a *RegistryReport.
var NoRegistry = &analysis.Analyzer{
	Name:       "noregistry",
	Doc:        "the reactor's exported API takes and holds code only where a reviewed list says why, and names nothing like a registry",
	ResultType: reflect.TypeFor[*RegistryReport](),
	Run: func(pass *analysis.Pass) (any, error) {
		r := &RegistryReport{ReviewedCallbacks: len(reviewedCallbacks), ReviewedFields: len(reviewedCodeFields)}
		if pass.Pkg.Path() != ReactorPkg {
			return r, nil
		}
		problem := func(pos token.Pos, format string, args ...any) {
			r.Problems = append(r.Problems, report(pass, pos, format, args...).What)
		}
		for _, f := range exportedFuncs(pass.Pkg) {
			r.ExportedFuncs++
			if takesCallback(f.sig) {
				r.TakesCode++
				if _, ok := reviewedCallbacks[f.name]; !ok {
					problem(f.pos, "%s%s takes code and is not on the reviewed list", f.name, strings.TrimPrefix(f.sig.String(), "func"))
				}
			}
			if registryName.MatchString(lastName(f.name)) {
				problem(f.pos, "%s is named like a registration", f.name)
			}
		}
		scope := pass.Pkg.Scope()
		for _, name := range scope.Names() {
			obj := scope.Lookup(name)
			if !obj.Exported() {
				continue
			}
			if registryName.MatchString(name) {
				problem(obj.Pos(), "%s is named like a registration", name)
			}
			st, ok := obj.Type().Underlying().(*types.Struct)
			if _, isType := obj.(*types.TypeName); !isType || !ok {
				continue
			}
			for fld := range st.Fields() {
				if !fld.Exported() || !holdsCode(fld.Type()) {
					continue
				}
				r.CodeFields++
				if key := name + "." + fld.Name(); reviewedCodeFields[key] == "" {
					problem(fld.Pos(), "field %s (%s) holds code and is not on the reviewed list", key, fld.Type())
				}
			}
		}
		return r, nil
	},
}

// apiFunc is one exported function ("New") or method ("Loop.Submit") of a
// package, with its signature.
type apiFunc struct {
	name string
	sig  *types.Signature
	pos  token.Pos
}

// exportedFuncs returns p's exported functions and exported methods of
// exported named types, sorted by name.
func exportedFuncs(p *types.Package) []apiFunc {
	var out []apiFunc
	scope := p.Scope()
	for _, name := range scope.Names() {
		switch o := scope.Lookup(name).(type) {
		case *types.Func:
			if o.Exported() {
				out = append(out, apiFunc{o.Name(), o.Type().(*types.Signature), o.Pos()})
			}
		case *types.TypeName:
			n, ok := o.Type().(*types.Named)
			if !o.Exported() || !ok {
				continue
			}
			for m := range n.Methods() {
				if m.Exported() {
					out = append(out, apiFunc{o.Name() + "." + m.Name(), m.Type().(*types.Signature), m.Pos()})
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b apiFunc) int { return strings.Compare(a.name, b.name) })
	return out
}

// takesCallback reports whether sig has a parameter of func or interface
// type (other than context.Context), i.e. could hand the package code to
// keep and call later.
func takesCallback(sig *types.Signature) bool {
	for v := range sig.Params().Variables() {
		t := v.Type()
		if n, ok := t.(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "context" && n.Obj().Name() == "Context" {
			continue
		}
		if sl, ok := t.Underlying().(*types.Slice); ok && sig.Variadic() {
			t = sl.Elem()
		}
		switch t.Underlying().(type) {
		case *types.Signature, *types.Interface:
			return true
		}
	}
	return false
}

// holdsCode: a func, an interface (any included: opaque values), or a
// slice or map of them, or a pointer to an unnamed one.
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

func lastName(qualified string) string {
	if i := strings.LastIndex(qualified, "."); i >= 0 {
		return qualified[i+1:]
	}
	return qualified
}

// String is "N problems".
func (r *RegistryReport) String() string { return fmt.Sprintf("%d problems", len(r.Problems)) }
