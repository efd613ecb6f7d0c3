package arch

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// Analyzers are the module's architecture rules (doc.go), in the order the
// package doc lists them.
func Analyzers() []*analysis.Analyzer {
	return []*analysis.Analyzer{MechanicsImports, SeparateManagers, CoreImports, ManagerFields, ManagerWrites, PackageVars, ReactorLoop, ManagerImpl, NoRegistry}
}

// Results are what Check found: each analyzer's result and diagnostics on
// each loaded package, and the packages themselves.
type Results struct {
	// Packages are the loaded packages the patterns matched, by import
	// path, type-checked from source (test files excluded).
	Packages map[string]*packages.Package
	actions  map[string]*checker.Action // by analyzer name + " " + package path
}

// Check loads patterns (import paths or `...` patterns, resolved from the
// working directory, which must be inside the module) with go/packages and
// runs analyzers on them, and on their dependencies where an analyzer needs
// facts. Errors: a package that does not load or type-check (every one is
// named), an analyzer that fails.
func Check(patterns []string, analyzers ...*analysis.Analyzer) (*Results, error) {
	mode := packages.LoadSyntax
	if needsFacts(analyzers) {
		mode = packages.LoadAllSyntax
	}
	pkgs, err := packages.Load(&packages.Config{Mode: mode}, patterns...)
	if err != nil {
		return nil, fmt.Errorf("arch: loading %v: %w", patterns, err)
	}
	var errs []error
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			errs = append(errs, fmt.Errorf("%s: %s", p.PkgPath, e.Msg))
		}
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	g, err := checker.Analyze(analyzers, pkgs, nil)
	if err != nil {
		return nil, fmt.Errorf("arch: %w", err)
	}
	r := &Results{Packages: map[string]*packages.Package{}, actions: map[string]*checker.Action{}}
	for _, p := range pkgs {
		r.Packages[p.PkgPath] = p
	}
	for _, act := range g.Roots {
		if act.Err != nil {
			errs = append(errs, fmt.Errorf("arch: %s on %s: %w", act.Analyzer.Name, act.Package.PkgPath, act.Err))
		}
		r.actions[act.Analyzer.Name+" "+act.Package.PkgPath] = act
	}
	return r, errors.Join(errs...)
}

func needsFacts(as []*analysis.Analyzer) bool {
	for _, a := range as {
		if len(a.FactTypes) > 0 || needsFacts(a.Requires) {
			return true
		}
	}
	return false
}

// Paths returns the loaded packages' import paths, sorted.
func (r *Results) Paths() []string { return slices.Sorted(maps.Keys(r.Packages)) }

// Under returns the loaded packages whose path is prefix or below it,
// sorted.
func (r *Results) Under(prefix string) []string {
	return slices.DeleteFunc(r.Paths(), func(p string) bool { return !InTree(p, prefix) })
}

// Result is a's result on the package pkg (nil when a did not run there).
func (r *Results) Result(a *analysis.Analyzer, pkg string) any {
	if act := r.actions[a.Name+" "+pkg]; act != nil {
		return act.Result
	}
	return nil
}

// Diagnostics are a's diagnostics on pkg as findings, sorted.
func (r *Results) Diagnostics(a *analysis.Analyzer, pkg string) []Finding {
	act := r.actions[a.Name+" "+pkg]
	if act == nil {
		return nil
	}
	var out []Finding
	for _, d := range act.Diagnostics {
		out = append(out, Finding{Pos: act.Package.Fset.Position(d.Pos), What: d.Message})
	}
	sortFindings(out)
	return out
}

// AllDiagnostics are the diagnostics of every analyzer Check ran on every
// package, as "analyzer: file:line: message" lines, sorted.
func (r *Results) AllDiagnostics() []string {
	var out []string
	for key, act := range r.actions {
		name, _, _ := strings.Cut(key, " ")
		for _, d := range act.Diagnostics {
			out = append(out, name+": "+Finding{Pos: act.Package.Fset.Position(d.Pos), What: d.Message}.String())
		}
	}
	slices.Sort(out)
	return out
}
