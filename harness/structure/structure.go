// Package structure reads what the code itself says about ownership and
// dependencies, for the structural property specs (P1, P5, P6): import
// graphs and chains, package-level variables, request-manager types and who
// writes their fields, static call reachability, and a package's exported
// API. It uses golang.org/x/tools/go/packages (which runs `go list`
// underneath) and go/types, so it needs the go command and the module's
// source; it is a separate package so that nothing else that imports
// harness (the CLI) links it. Everything here answers "where" as well as
// "whether": a violation names the import chain, the declaration or the
// statement that breaks the rule, so a failing spec points at the line.
package structure

import (
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// ModulePath is the import path of this module.
const ModulePath = "github.com/kreactor/kreactor"

// Package paths the structural specs name.
const (
	ReactorPkg  = ModulePath + "/reactor"
	ManagersPkg = ModulePath + "/managers"
	GroupPkg    = ModulePath + "/managers/group"
	SharePkg    = ModulePath + "/managers/share"
	ConsumerPkg = ModulePath + "/consumer"
)

// PackageGraph is the import graph of some root packages and everything
// they import, transitively (test files excluded).
type PackageGraph struct {
	pkgs  map[string]*packages.Package // by import path: roots and all deps
	Roots []string                     // sorted
}

// LoadPackageGraph loads patterns (import paths or `...` patterns, resolved
// from the working directory, which must be inside the module) with their
// transitive imports. It returns an error naming every package that failed
// to load.
func LoadPackageGraph(patterns ...string) (*PackageGraph, error) {
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedImports | packages.NeedDeps | packages.NeedModule}
	roots, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("structure: loading %v: %w", patterns, err)
	}
	if err := loadErrors(roots); err != nil {
		return nil, err
	}
	g := &PackageGraph{pkgs: map[string]*packages.Package{}}
	packages.Visit(roots, nil, func(p *packages.Package) { g.pkgs[p.PkgPath] = p })
	for _, r := range roots {
		g.Roots = append(g.Roots, r.PkgPath)
	}
	slices.Sort(g.Roots)
	return g, nil
}

func loadErrors(pkgs []*packages.Package) error {
	var errs []error
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			errs = append(errs, fmt.Errorf("%s: %s", p.PkgPath, e.Msg))
		}
	})
	return errors.Join(errs...)
}

// Has reports whether path is in the graph.
func (g *PackageGraph) Has(path string) bool { _, ok := g.pkgs[path]; return ok }

// Under returns the packages in the graph whose path is prefix or starts
// with prefix + "/", sorted.
func (g *PackageGraph) Under(prefix string) []string {
	var out []string
	for p := range g.pkgs {
		if InTree(p, prefix) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// InTree reports whether path is prefix or below it.
func InTree(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}

// Imports returns path's direct imports, sorted.
func (g *PackageGraph) Imports(path string) []string {
	p, ok := g.pkgs[path]
	if !ok {
		return nil
	}
	out := make([]string, 0, len(p.Imports))
	for _, ip := range p.Imports { // values: the resolved package (std vendored paths included)
		out = append(out, ip.PkgPath)
	}
	slices.Sort(out)
	return out
}

// Closure returns path and everything it imports, transitively, sorted.
func (g *PackageGraph) Closure(path string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		for _, ip := range g.Imports(p) {
			walk(ip)
		}
	}
	walk(path)
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// IsStandard reports whether path is a standard-library package (it belongs
// to no module).
func (g *PackageGraph) IsStandard(path string) bool {
	p, ok := g.pkgs[path]
	return ok && p.Module == nil
}

// ImportViolation is an import chain from a root to a package a rule forbids.
type ImportViolation struct {
	Chain []string // root first, forbidden package last
	Rule  string
}

func (v ImportViolation) String() string {
	return fmt.Sprintf("%s: %s", v.Rule, strings.Join(v.Chain, " -> "))
}

// Forbidden walks the imports of from breadth first and returns, for every
// package p that bad reports as forbidden (with a reason), the shortest
// import chain from `from` to p. An edge is followed only if follow(importer,
// imported) is true; nil follows every edge. Results are sorted by the
// forbidden package.
func (g *PackageGraph) Forbidden(from string, follow func(importer, imported string) bool, bad func(importer, imported string) (string, bool)) []ImportViolation {
	prev := map[string]string{from: ""}
	queue := []string{from}
	found := map[string]ImportViolation{}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, ip := range g.Imports(p) {
			if reason, ok := bad(p, ip); ok {
				if _, dup := found[ip]; !dup {
					found[ip] = ImportViolation{Chain: append(chainTo(prev, p), ip), Rule: reason}
				}
			}
			if _, seen := prev[ip]; seen || (follow != nil && !follow(p, ip)) {
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

// LoadTyped loads patterns with syntax and full type information for the
// matched packages (dependencies come from export data). Test files are not
// loaded.
func LoadTyped(patterns ...string) ([]*packages.Package, error) {
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedImports | packages.NeedTypes |
		packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedFiles}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("structure: loading %v: %w", patterns, err)
	}
	var errs []error
	for _, p := range pkgs {
		for _, e := range p.Errors {
			errs = append(errs, fmt.Errorf("%s: %s", p.PkgPath, e.Msg))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	slices.SortFunc(pkgs, func(a, b *packages.Package) int { return strings.Compare(a.PkgPath, b.PkgPath) })
	return pkgs, nil
}

// Finding is one place in the code a structural rule is about.
type Finding struct {
	Pos  token.Position
	What string
}

func (f Finding) String() string {
	return fmt.Sprintf("%s:%d: %s", shortFile(f.Pos.Filename), f.Pos.Line, f.What)
}

// shortFile trims a path to the module-relative part for messages.
func shortFile(name string) string {
	for _, dir := range []string{"/reactor/", "/managers/", "/consumer/", "/harness/", "/fakebroker/"} {
		if i := strings.LastIndex(name, dir); i >= 0 {
			return name[i+1:]
		}
	}
	return name
}

// PackageVarRule is the rule package-level variables in execution-mechanics
// and request-manager packages keep (P1: a manager's mutable state lives in
// the manager, not in its package; P6: no registry hidden in a package
// variable). A package-level var is allowed only if it is
//
//   - the blank identifier (a compile-time interface assertion);
//   - an error sentinel: named Err... or err..., of type error, initialised
//     by errors.New or fmt.Errorf, and never written after its declaration;
//   - a read-only table: of string, number or boolean type, or an array,
//     slice or map of those (no pointers, funcs, chans or interfaces), that
//     is never written (no assignment to it or an element, no ++/--, no
//     address taken, no delete/clear/copy into it, no pointer method call)
//     and, if it is a slice or map, never escapes (used only indexed, in
//     range, or under len/cap), so no alias can write it either.
//
// Anything else (a counter, a cache, a registry, a mutex, a random source, a
// slice handed out) is a finding.
const PackageVarRule = "package-level vars must be `_`, never-written error sentinels (Err... = errors.New / fmt.Errorf), or never-written, non-escaping tables of plain values"

// PackageVarFindings applies PackageVarRule to p and returns every
// violation, plus the number of package-level vars it inspected.
func PackageVarFindings(p *packages.Package) (findings []Finding, inspected int) {
	vars := map[*types.Var]*ast.ValueSpec{}
	for _, f := range p.Syntax {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for _, name := range vs.Names {
					if name.Name == "_" {
						continue
					}
					if v, ok := p.TypesInfo.Defs[name].(*types.Var); ok {
						vars[v] = vs
					}
				}
			}
		}
	}
	uses := varUses(p, vars)
	for v, vs := range vars {
		inspected++
		pos := p.Fset.Position(v.Pos())
		u := uses[v]
		if u == nil {
			u = &varUse{}
		}
		kind := ""
		switch {
		case isErrorSentinel(p, v, vs):
			kind = "error sentinel"
		case isPlainTable(v.Type()):
			kind = "plain value or table"
			if ref := isReferenceTable(v.Type()); ref && len(u.escapes) > 0 {
				for _, e := range u.escapes {
					findings = append(findings, Finding{e, fmt.Sprintf("package var %s (a %s table) escapes: an alias could write it", v.Name(), v.Type())})
				}
			}
		default:
			findings = append(findings, Finding{pos, fmt.Sprintf("package var %s of type %s is neither an error sentinel nor a table of plain values", v.Name(), v.Type())})
			continue
		}
		for _, w := range u.writes {
			findings = append(findings, Finding{w, fmt.Sprintf("package var %s (%s) is written after its declaration", v.Name(), kind)})
		}
	}
	slices.SortFunc(findings, func(a, b Finding) int { return strings.Compare(a.String(), b.String()) })
	return findings, inspected
}

func isErrorSentinel(p *packages.Package, v *types.Var, vs *ast.ValueSpec) bool {
	if !strings.HasPrefix(v.Name(), "Err") && !strings.HasPrefix(v.Name(), "err") {
		return false
	}
	if !types.Identical(v.Type(), types.Universe.Lookup("error").Type()) || len(vs.Values) != len(vs.Names) {
		return false
	}
	i := slices.IndexFunc(vs.Names, func(n *ast.Ident) bool { return n.Name == v.Name() })
	call, ok := vs.Values[i].(*ast.CallExpr)
	if !ok {
		return false
	}
	fn := calleeFunc(p.TypesInfo, call)
	return fn != nil && fn.Pkg() != nil &&
		((fn.Pkg().Path() == "errors" && fn.Name() == "New") || (fn.Pkg().Path() == "fmt" && fn.Name() == "Errorf"))
}

// isPlainTable: string/number/bool, or array/slice/map of plain tables.
func isPlainTable(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&(types.IsString|types.IsNumeric|types.IsBoolean) != 0
	case *types.Array:
		return isPlainTable(u.Elem())
	case *types.Slice:
		return isPlainTable(u.Elem())
	case *types.Map:
		return isPlainTable(u.Key()) && isPlainTable(u.Elem())
	}
	return false
}

func isReferenceTable(t types.Type) bool {
	switch t.Underlying().(type) {
	case *types.Slice, *types.Map:
		return true
	}
	return false
}

type varUse struct {
	writes, escapes []token.Position
}

// varUses finds, for each var, the statements that write it (or an element
// or field of it) and the uses through which it escapes.
func varUses(p *packages.Package, vars map[*types.Var]*ast.ValueSpec) map[*types.Var]*varUse {
	out := map[*types.Var]*varUse{}
	get := func(v *types.Var) *varUse {
		if out[v] == nil {
			out[v] = &varUse{}
		}
		return out[v]
	}
	rootVar := func(e ast.Expr) (*types.Var, bool) {
		for {
			switch x := e.(type) {
			case *ast.ParenExpr:
				e = x.X
			case *ast.IndexExpr:
				e = x.X
			case *ast.SelectorExpr:
				e = x.X
			case *ast.StarExpr:
				e = x.X
			case *ast.SliceExpr:
				e = x.X
			case *ast.Ident:
				v, ok := p.TypesInfo.Uses[x].(*types.Var)
				if ok && vars[v] != nil {
					return v, true
				}
				return nil, false
			default:
				return nil, false
			}
		}
	}
	write := func(e ast.Expr) {
		if v, ok := rootVar(e); ok {
			get(v).writes = append(get(v).writes, p.Fset.Position(e.Pos()))
		}
	}
	for _, f := range p.Syntax {
		// Idents in a read-only position (indexed read, range, len/cap,
		// the declaration itself) are marked so the escape pass skips them.
		readOnly := map[*ast.Ident]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.AssignStmt:
				for _, l := range x.Lhs {
					write(l)
				}
			case *ast.IncDecStmt:
				write(x.X)
			case *ast.UnaryExpr:
				if x.Op == token.AND {
					write(x.X)
				}
			case *ast.CallExpr:
				if b, ok := builtinCalled(p.TypesInfo, x); ok {
					switch b {
					case "delete", "clear":
						if len(x.Args) > 0 {
							write(x.Args[0])
						}
					case "copy":
						if len(x.Args) > 0 {
							write(x.Args[0])
						}
					case "len", "cap":
						if len(x.Args) == 1 {
							if id, ok := x.Args[0].(*ast.Ident); ok {
								readOnly[id] = true
							}
						}
					}
				}
				// A pointer-receiver method called on the var (or an
				// element) can change it.
				if sel, ok := x.Fun.(*ast.SelectorExpr); ok {
					if s := p.TypesInfo.Selections[sel]; s != nil && s.Kind() == types.MethodVal {
						if sig, ok := s.Obj().Type().(*types.Signature); ok && sig.Recv() != nil {
							if _, ptr := sig.Recv().Type().(*types.Pointer); ptr && !isPointer(s.Recv()) {
								write(sel.X)
							}
						}
					}
				}
			case *ast.IndexExpr:
				if id, ok := x.X.(*ast.Ident); ok {
					readOnly[id] = true
				}
			case *ast.RangeStmt:
				if id, ok := x.X.(*ast.Ident); ok {
					readOnly[id] = true
				}
			case *ast.ValueSpec:
				for _, n := range x.Names {
					readOnly[n] = true
				}
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok || readOnly[id] {
				return true
			}
			if v, ok := p.TypesInfo.Uses[id].(*types.Var); ok && vars[v] != nil {
				get(v).escapes = append(get(v).escapes, p.Fset.Position(id.Pos()))
			}
			return true
		})
	}
	return out
}

func isPointer(t types.Type) bool { _, ok := t.Underlying().(*types.Pointer); return ok }

func builtinCalled(info *types.Info, call *ast.CallExpr) (string, bool) {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return "", false
	}
	b, ok := info.Uses[id].(*types.Builtin)
	if !ok {
		return "", false
	}
	return b.Name(), true
}

// calleeFunc returns the function or method a call statically calls, or nil.
func calleeFunc(info *types.Info, call *ast.CallExpr) *types.Func {
	var id *ast.Ident
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	case *ast.IndexExpr: // explicit instantiation: New[V](...)
		switch g := f.X.(type) {
		case *ast.Ident:
			id = g
		case *ast.SelectorExpr:
			id = g.Sel
		}
	}
	if id == nil {
		return nil
	}
	fn, _ := info.Uses[id].(*types.Func)
	return fn
}

// ManagerType is a request manager type found in a package: a named type
// whose pointer has `Name() string` and a `Poll` method taking a
// *reactor.Tx first and returning a reactor.Result (the shape every
// manager has, whatever its view).
type ManagerType struct {
	Pkg   *packages.Package
	Named *types.Named
}

func (m ManagerType) String() string { return m.Named.Obj().Pkg().Name() + "." + m.Named.Obj().Name() }

// ManagerTypes returns the manager types declared in p, sorted by name.
func ManagerTypes(p *packages.Package) []ManagerType {
	var out []ManagerType
	scope := p.Types.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		named, ok := tn.Type().(*types.Named)
		if !ok {
			continue
		}
		if isManagerShape(named) {
			out = append(out, ManagerType{Pkg: p, Named: named})
		}
	}
	return out
}

func isManagerShape(named *types.Named) bool {
	ms := types.NewMethodSet(types.NewPointer(named))
	var hasName, hasPoll bool
	for sel := range ms.Methods() {
		sig := sel.Type().(*types.Signature)
		switch sel.Obj().Name() {
		case "Name":
			hasName = sig.Params().Len() == 0 && sig.Results().Len() == 1 &&
				types.Identical(sig.Results().At(0).Type(), types.Typ[types.String])
		case "Poll":
			hasPoll = sig.Params().Len() >= 1 && sig.Results().Len() == 1 &&
				isReactorType(sig.Params().At(0).Type(), "Tx", true) && isReactorType(sig.Results().At(0).Type(), "Result", false)
		}
	}
	return hasName && hasPoll
}

func isReactorType(t types.Type, name string, pointer bool) bool {
	if pointer {
		p, ok := t.(*types.Pointer)
		if !ok {
			return false
		}
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == ReactorPkg && n.Obj().Name() == name
}

// ExportedStateFields returns the exported (or exported embedded) fields of
// a manager type's struct: state that code outside the manager's package
// could change behind its back.
func ExportedStateFields(m ManagerType) []Finding {
	st, ok := m.Named.Underlying().(*types.Struct)
	if !ok {
		return []Finding{{m.Pkg.Fset.Position(m.Named.Obj().Pos()), fmt.Sprintf("manager %s is not a struct (%s)", m, m.Named.Underlying())}}
	}
	var out []Finding
	for f := range st.Fields() {
		if f.Exported() {
			out = append(out, Finding{m.Pkg.Fset.Position(f.Pos()), fmt.Sprintf("manager %s has exported field %s", m, f.Name())})
		}
	}
	return out
}

// ForeignFieldWrites returns every statement in p that writes a field of
// one manager type from outside that type's own methods (and outside its
// constructors, functions named New... that return it): another manager,
// a helper function or package-level code changing a manager's state
// instead of asking its owner. Writes are assignments, ++/--, address-of,
// delete/clear/copy into, and pointer-method calls on a non-pointer field,
// anywhere along the written expression (o.fetch.parts[tp] = x writes
// Fetch.parts). Reads through another manager's fields are returned
// separately: they are allowed, but worth knowing.
func ForeignFieldWrites(p *packages.Package, managers []ManagerType) (writes, reads []Finding) {
	owner := map[*types.Named]bool{}
	for _, m := range managers {
		owner[m.Named] = true
	}
	fieldOwner := func(sel *ast.SelectorExpr) *types.Named {
		s := p.TypesInfo.Selections[sel]
		if s == nil || s.Kind() != types.FieldVal {
			return nil
		}
		t := s.Recv()
		if ptr, ok := t.(*types.Pointer); ok {
			t = ptr.Elem()
		}
		n, ok := t.(*types.Named)
		if !ok || !owner[n] {
			return nil
		}
		return n
	}
	for _, f := range p.Syntax {
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			self := funcOwner(p.TypesInfo, fd)
			where := fd.Name.Name
			if self != nil {
				where = self.Obj().Name() + "." + where
			}
			written := map[*ast.SelectorExpr]bool{}
			markWrite := func(e ast.Expr) {
				for {
					switch x := e.(type) {
					case *ast.ParenExpr:
						e = x.X
					case *ast.IndexExpr:
						e = x.X
					case *ast.StarExpr:
						e = x.X
					case *ast.SliceExpr:
						e = x.X
					case *ast.SelectorExpr:
						if n := fieldOwner(x); n != nil {
							written[x] = true
							if n != self {
								writes = append(writes, Finding{p.Fset.Position(x.Pos()), fmt.Sprintf("%s writes %s.%s", where, n.Obj().Name(), x.Sel.Name)})
							}
						}
						e = x.X
					default:
						return
					}
				}
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.AssignStmt:
					for _, l := range x.Lhs {
						markWrite(l)
					}
				case *ast.IncDecStmt:
					markWrite(x.X)
				case *ast.UnaryExpr:
					if x.Op == token.AND {
						markWrite(x.X)
					}
				case *ast.CallExpr:
					if b, ok := builtinCalled(p.TypesInfo, x); ok && (b == "delete" || b == "clear" || b == "copy") && len(x.Args) > 0 {
						markWrite(x.Args[0])
					}
					if sel, ok := x.Fun.(*ast.SelectorExpr); ok {
						if s := p.TypesInfo.Selections[sel]; s != nil && s.Kind() == types.MethodVal {
							sig := s.Obj().Type().(*types.Signature)
							if _, ptr := sig.Recv().Type().(*types.Pointer); ptr && !isPointer(s.Recv()) {
								markWrite(sel.X)
							}
						}
					}
				}
				return true
			})
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok || written[sel] {
					return true
				}
				if o := fieldOwner(sel); o != nil && o != self {
					reads = append(reads, Finding{p.Fset.Position(sel.Pos()), fmt.Sprintf("%s reads %s.%s", where, o.Obj().Name(), sel.Sel.Name)})
				}
				return true
			})
		}
	}
	sortFindings(writes)
	sortFindings(reads)
	return writes, reads
}

func sortFindings(fs []Finding) {
	slices.SortFunc(fs, func(a, b Finding) int { return strings.Compare(a.String(), b.String()) })
}

// funcOwner is the named type whose state fd may write: the receiver's type
// for a method, the returned type for a constructor New...; nil otherwise.
func funcOwner(info *types.Info, fd *ast.FuncDecl) *types.Named {
	obj, ok := info.Defs[fd.Name].(*types.Func)
	if !ok {
		return nil
	}
	sig := obj.Type().(*types.Signature)
	deref := func(t types.Type) *types.Named {
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		n, _ := t.(*types.Named)
		return n
	}
	if sig.Recv() != nil {
		return deref(sig.Recv().Type())
	}
	if strings.HasPrefix(fd.Name.Name, "New") && sig.Results().Len() >= 1 {
		return deref(sig.Results().At(0).Type())
	}
	return nil
}

// Calls returns the positions where pkgPath.name is called by function fn
// of package p (a top-level function, not a method) or by any function or
// method of p that fn reaches through static calls inside p: a refactor that
// moves the call into a helper still counts.
func Calls(p *packages.Package, fn, pkgPath, name string) []token.Position {
	decls := map[*types.Func]*ast.FuncDecl{}
	var start *ast.FuncDecl
	for _, f := range p.Syntax {
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if obj, ok := p.TypesInfo.Defs[fd.Name].(*types.Func); ok {
				decls[obj] = fd
			}
			if fd.Recv == nil && fd.Name.Name == fn {
				start = fd
			}
		}
	}
	if start == nil {
		return nil
	}
	var out []token.Position
	seen := map[*ast.FuncDecl]bool{start: true}
	queue := []*ast.FuncDecl{start}
	for len(queue) > 0 {
		fd := queue[0]
		queue = queue[1:]
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			callee := calleeFunc(p.TypesInfo, call)
			if callee == nil || callee.Pkg() == nil {
				return true
			}
			if callee.Pkg().Path() == pkgPath && callee.Name() == name {
				out = append(out, p.Fset.Position(call.Pos()))
			}
			if next := decls[callee.Origin()]; next != nil && !seen[next] {
				seen[next] = true
				queue = append(queue, next)
			}
			return true
		})
	}
	slices.SortFunc(out, func(a, b token.Position) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// ImplementsManager reports whether *t implements reactor.Manager[view]
// (reactor is the type-checked reactor package as p imports it).
func ImplementsManager(reactor *types.Package, t *types.Named, view types.Type) (bool, error) {
	obj, ok := reactor.Scope().Lookup("Manager").(*types.TypeName)
	if !ok {
		return false, fmt.Errorf("structure: %s has no type Manager", reactor.Path())
	}
	inst, err := types.Instantiate(types.NewContext(), obj.Type(), []types.Type{view}, true)
	if err != nil {
		return false, fmt.Errorf("structure: instantiating %s.Manager[%s]: %w", reactor.Path(), view, err)
	}
	iface, ok := inst.Underlying().(*types.Interface)
	if !ok {
		return false, fmt.Errorf("structure: %s.Manager is not an interface", reactor.Path())
	}
	return types.Implements(types.NewPointer(t), iface), nil
}

// APIFunc is one exported function ("New") or method ("Loop.Submit") of a
// package, with its signature.
type APIFunc struct {
	Name string
	Sig  *types.Signature
	Pos  token.Position
}

// ExportedFuncs returns p's exported functions and exported methods of
// exported named types, sorted by name.
func ExportedFuncs(p *packages.Package) []APIFunc {
	var out []APIFunc
	scope := p.Types.Scope()
	for _, name := range scope.Names() {
		switch o := scope.Lookup(name).(type) {
		case *types.Func:
			if o.Exported() {
				out = append(out, APIFunc{o.Name(), o.Type().(*types.Signature), p.Fset.Position(o.Pos())})
			}
		case *types.TypeName:
			if !o.Exported() {
				continue
			}
			n, ok := o.Type().(*types.Named)
			if !ok {
				continue
			}
			for m := range n.Methods() {
				if m.Exported() {
					out = append(out, APIFunc{o.Name() + "." + m.Name(), m.Type().(*types.Signature), p.Fset.Position(m.Pos())})
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b APIFunc) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// TakesCallback reports whether sig has a parameter of func or interface
// type (other than context.Context and error), i.e. could hand the package
// code to keep and call later.
func TakesCallback(sig *types.Signature) bool {
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
