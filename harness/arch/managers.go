package arch

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"

	"golang.org/x/tools/go/analysis"
)

// ManagerType is a request manager type found in a package: a named type
// whose pointer has `Name() string` and a `Poll` method taking a
// *reactor.Tx first and returning a reactor.Result (the shape every
// manager has, whatever its view).
type ManagerType struct {
	Named *types.Named
	Pos   token.Position
}

// String is "pkg.Type" ("group.Fetch").
func (m ManagerType) String() string { return m.Named.Obj().Pkg().Name() + "." + m.Named.Obj().Name() }

// ManagerTypes finds the request manager types a package declares (by
// shape, see ManagerType); its result is their []ManagerType, sorted by
// name. It reports nothing: the manager rules read it.
var ManagerTypes = &analysis.Analyzer{
	Name:       "managertypes",
	Doc:        "finds the request manager types (Name() string; Poll(*reactor.Tx, ...) reactor.Result) a package declares",
	ResultType: reflect.TypeFor[[]ManagerType](),
	Run: func(pass *analysis.Pass) (any, error) {
		var out []ManagerType
		scope := pass.Pkg.Scope()
		for _, name := range scope.Names() {
			tn, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || tn.IsAlias() {
				continue
			}
			if named, ok := tn.Type().(*types.Named); ok && isManagerShape(named) {
				out = append(out, ManagerType{Named: named, Pos: pass.Fset.Position(tn.Pos())})
			}
		}
		return out, nil
	},
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

// inManagers reports whether the manager rules apply to pkg (managers/...).
func inManagers(pkg string) bool { return InTree(pkg, ManagersPkg) }

// ManagerFields is the P1 rule that a request manager (in managers/...)
// keeps its state in unexported fields: an exported field is state code
// outside the manager's package could change behind its back. Its result
// is the []Finding it reported.
var ManagerFields = &analysis.Analyzer{
	Name:       "managerfields",
	Doc:        "request manager types in managers/... have no exported fields",
	Requires:   []*analysis.Analyzer{ManagerTypes},
	ResultType: reflect.TypeFor[[]Finding](),
	Run: func(pass *analysis.Pass) (any, error) {
		if !inManagers(pass.Pkg.Path()) {
			return []Finding(nil), nil
		}
		var out []Finding
		for _, m := range pass.ResultOf[ManagerTypes].([]ManagerType) {
			st, ok := m.Named.Underlying().(*types.Struct)
			if !ok {
				out = append(out, report(pass, m.Named.Obj().Pos(), "manager %s is not a struct (%s)", m, m.Named.Underlying()))
				continue
			}
			for f := range st.Fields() {
				if f.Exported() {
					out = append(out, report(pass, f.Pos(), "manager %s has exported field %s", m, f.Name()))
				}
			}
		}
		return out, nil
	},
}

// report reports a diagnostic at pos and returns it as a Finding.
func report(pass *analysis.Pass, pos token.Pos, format string, args ...any) Finding {
	what := fmt.Sprintf(format, args...)
	pass.Report(analysis.Diagnostic{Pos: pos, Message: what})
	return Finding{Pos: pass.Fset.Position(pos), What: what}
}

// FieldWrites is the result of ManagerWrites: the writes it reported, and
// the reads of another manager's fields (allowed, but a dependency the
// owner does not see).
type FieldWrites struct {
	Writes, Reads []Finding
}

// ManagerWrites is the P1 rule that no code in a managers package writes a
// manager's fields from outside that type's own methods (and its
// constructors, functions named New... that return it): another manager, a
// helper function or package-level code changing a manager's state instead
// of asking its owner. Writes are assignments, ++/--, address-of,
// delete/clear/copy into, and pointer-method calls on a non-pointer field,
// anywhere along the written expression (o.fetch.parts[tp] = x writes
// Fetch.parts). Its result is a *FieldWrites.
var ManagerWrites = &analysis.Analyzer{
	Name:       "managerwrites",
	Doc:        "only a request manager's own methods and constructors write its fields",
	Requires:   []*analysis.Analyzer{ManagerTypes},
	ResultType: reflect.TypeFor[*FieldWrites](),
	Run: func(pass *analysis.Pass) (any, error) {
		fw := &FieldWrites{}
		if !inManagers(pass.Pkg.Path()) {
			return fw, nil
		}
		owner := map[*types.Named]bool{}
		for _, m := range pass.ResultOf[ManagerTypes].([]ManagerType) {
			owner[m.Named] = true
		}
		for _, f := range pass.Files {
			for _, decl := range f.Decls {
				if fd, ok := decl.(*ast.FuncDecl); ok && fd.Body != nil {
					fieldAccesses(pass, fd, owner, fw)
				}
			}
		}
		sortFindings(fw.Writes)
		sortFindings(fw.Reads)
		return fw, nil
	},
}

// fieldAccesses adds fd's writes and reads of manager fields that fd does
// not own to fw, reporting each write.
func fieldAccesses(pass *analysis.Pass, fd *ast.FuncDecl, owner map[*types.Named]bool, fw *FieldWrites) {
	fieldOwner := func(sel *ast.SelectorExpr) *types.Named {
		s := pass.TypesInfo.Selections[sel]
		if s == nil || s.Kind() != types.FieldVal {
			return nil
		}
		if n := namedOf(s.Recv()); n != nil && owner[n] {
			return n
		}
		return nil
	}
	self := funcOwner(pass.TypesInfo, fd)
	where := fd.Name.Name
	if self != nil {
		where = self.Obj().Name() + "." + where
	}
	written := map[*ast.SelectorExpr]bool{}
	forEachWrite(pass.TypesInfo, fd.Body, func(e ast.Expr) {
		for {
			switch x := e.(type) {
			case *ast.ParenExpr, *ast.IndexExpr, *ast.StarExpr, *ast.SliceExpr:
				e = inner(x)
				continue
			case *ast.SelectorExpr:
				if n := fieldOwner(x); n != nil {
					written[x] = true
					if n != self {
						fw.Writes = append(fw.Writes, report(pass, x.Pos(), "%s writes %s.%s", where, n.Obj().Name(), x.Sel.Name))
					}
				}
				e = x.X
				continue
			}
			return
		}
	})
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || written[sel] {
			return true
		}
		if o := fieldOwner(sel); o != nil && o != self {
			fw.Reads = append(fw.Reads, Finding{pass.Fset.Position(sel.Pos()), fmt.Sprintf("%s reads %s.%s", where, o.Obj().Name(), sel.Sel.Name)})
		}
		return true
	})
}

// ManagerImplReport is the result of ManagerImpl: the managers checked
// ("group.Fetch: reactor.Manager[View]") and those the loop cannot run.
type ManagerImplReport struct {
	Checked, NotManagers []string
}

// ManagerImpl is the P5 rule that every manager of managers/group and
// managers/share implements reactor.Manager[its view] (the type of Poll's
// second parameter), so one Loop type runs both consumers. Its result is a
// *ManagerImplReport.
var ManagerImpl = &analysis.Analyzer{
	Name:       "managerimpl",
	Doc:        "every manager of managers/group and managers/share implements reactor.Manager[its view]",
	Requires:   []*analysis.Analyzer{ManagerTypes},
	ResultType: reflect.TypeFor[*ManagerImplReport](),
	Run: func(pass *analysis.Pass) (any, error) {
		r := &ManagerImplReport{}
		path := pass.Pkg.Path()
		if path != GroupPkg && path != SharePkg {
			return r, nil
		}
		var reactorPkg *types.Package
		for _, ip := range pass.Pkg.Imports() {
			if ip.Path() == ReactorPkg {
				reactorPkg = ip
			}
		}
		for _, m := range pass.ResultOf[ManagerTypes].([]ManagerType) {
			if reactorPkg == nil {
				return nil, fmt.Errorf("%s declares manager %s but does not import %s", path, m, ReactorPkg)
			}
			poll, _, _ := types.LookupFieldOrMethod(types.NewPointer(m.Named), false, m.Named.Obj().Pkg(), "Poll")
			sig := poll.Type().(*types.Signature)
			if sig.Params().Len() != 2 {
				r.NotManagers = append(r.NotManagers, report(pass, m.Named.Obj().Pos(), "%s: Poll takes %d parameters, want (tx, view)", m, sig.Params().Len()).What)
				continue
			}
			view := sig.Params().At(1).Type()
			ok, err := implementsManager(reactorPkg, m.Named, view)
			if err != nil {
				return nil, err
			}
			if !ok {
				r.NotManagers = append(r.NotManagers, report(pass, m.Named.Obj().Pos(), "%s does not implement reactor.Manager[%s]", m, view).What)
				continue
			}
			r.Checked = append(r.Checked, fmt.Sprintf("%s: reactor.Manager[%s]", m, types.TypeString(view, types.RelativeTo(pass.Pkg))))
		}
		return r, nil
	},
}

// implementsManager reports whether *t implements reactor.Manager[view]
// (reactor is the type-checked reactor package as the package imports it).
func implementsManager(reactor *types.Package, t *types.Named, view types.Type) (bool, error) {
	obj, ok := reactor.Scope().Lookup("Manager").(*types.TypeName)
	if !ok {
		return false, fmt.Errorf("arch: %s has no type Manager", reactor.Path())
	}
	inst, err := types.Instantiate(types.NewContext(), obj.Type(), []types.Type{view}, true)
	if err != nil {
		return false, fmt.Errorf("arch: instantiating %s.Manager[%s]: %w", reactor.Path(), view, err)
	}
	iface, ok := inst.Underlying().(*types.Interface)
	if !ok {
		return false, fmt.Errorf("arch: %s.Manager is not an interface", reactor.Path())
	}
	return types.Implements(types.NewPointer(t), iface), nil
}
