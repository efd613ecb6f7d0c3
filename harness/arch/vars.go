package arch

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
)

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

// VarReport is the result of PackageVars on one package: the findings it
// reported and how many package-level vars it inspected.
type VarReport struct {
	Findings  []Finding
	Inspected int
}

// PackageVars applies PackageVarRule to the packages under reactor/ and
// managers/. Its result is a *VarReport.
var PackageVars = &analysis.Analyzer{
	Name:       "packagevars",
	Doc:        "package-level vars of reactor/... and managers/... are never-written error sentinels or never-written, non-escaping tables of plain values",
	ResultType: reflect.TypeFor[*VarReport](),
	Run: func(pass *analysis.Pass) (any, error) {
		r := &VarReport{}
		if path := pass.Pkg.Path(); !InTree(path, ReactorPkg) && !InTree(path, ManagersPkg) {
			return r, nil
		}
		vars := packageVars(pass)
		uses := varUses(pass, vars)
		// Report in declaration order, so the diagnostics read top-down.
		order := make([]*types.Var, 0, len(vars))
		for v := range vars {
			order = append(order, v)
		}
		slices.SortFunc(order, func(a, b *types.Var) int { return int(a.Pos() - b.Pos()) })
		for _, v := range order {
			r.Inspected++
			r.Findings = append(r.Findings, varFindings(pass, v, vars[v], uses[v])...)
		}
		sortFindings(r.Findings)
		return r, nil
	},
}

// packageVars are pass's package-level vars (the blank one aside) with
// their declarations.
func packageVars(pass *analysis.Pass) map[*types.Var]*ast.ValueSpec {
	vars := map[*types.Var]*ast.ValueSpec{}
	for _, f := range pass.Files {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for _, name := range vs.Names {
					if v, ok := pass.TypesInfo.Defs[name].(*types.Var); ok && name.Name != "_" {
						vars[v] = vs
					}
				}
			}
		}
	}
	return vars
}

// varFindings reports what of v (declared in vs, used as u) breaks the
// rule.
func varFindings(pass *analysis.Pass, v *types.Var, vs *ast.ValueSpec, u *varUse) []Finding {
	if u == nil {
		u = &varUse{}
	}
	var out []Finding
	kind := ""
	switch {
	case isErrorSentinel(pass.TypesInfo, v, vs):
		kind = "error sentinel"
	case isPlainTable(v.Type()):
		kind = "plain value or table"
		if isReferenceTable(v.Type()) {
			for _, e := range u.escapes {
				out = append(out, report(pass, e, "package var %s (a %s table) escapes: an alias could write it", v.Name(), v.Type()))
			}
		}
	default:
		return []Finding{report(pass, v.Pos(), "package var %s of type %s is neither an error sentinel nor a table of plain values", v.Name(), v.Type())}
	}
	for _, w := range u.writes {
		out = append(out, report(pass, w, "package var %s (%s) is written after its declaration", v.Name(), kind))
	}
	return out
}

func isErrorSentinel(info *types.Info, v *types.Var, vs *ast.ValueSpec) bool {
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
	fn := calleeFunc(info, call)
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
	writes, escapes []token.Pos
}

// varUses finds, for each var, the statements that write it (or an element
// or field of it) and the uses through which it escapes.
func varUses(pass *analysis.Pass, vars map[*types.Var]*ast.ValueSpec) map[*types.Var]*varUse {
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
			case *ast.ParenExpr, *ast.IndexExpr, *ast.StarExpr, *ast.SliceExpr:
				e = inner(x)
			case *ast.SelectorExpr:
				e = x.X
			case *ast.Ident:
				v, ok := pass.TypesInfo.Uses[x].(*types.Var)
				return v, ok && vars[v] != nil
			default:
				return nil, false
			}
		}
	}
	for _, f := range pass.Files {
		forEachWrite(pass.TypesInfo, f, func(e ast.Expr) {
			if v, ok := rootVar(e); ok {
				get(v).writes = append(get(v).writes, e.Pos())
			}
		})
		readOnly := readOnlyIdents(pass.TypesInfo, f)
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok || readOnly[id] {
				return true
			}
			if v, ok := pass.TypesInfo.Uses[id].(*types.Var); ok && vars[v] != nil {
				get(v).escapes = append(get(v).escapes, id.Pos())
			}
			return true
		})
	}
	return out
}

// readOnlyIdents are the identifiers of f in a read-only position: indexed,
// ranged over, under len or cap, or declared.
func readOnlyIdents(info *types.Info, f *ast.File) map[*ast.Ident]bool {
	readOnly := map[*ast.Ident]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			if b, ok := builtinCalled(info, x); ok && (b == "len" || b == "cap") && len(x.Args) == 1 {
				if id, ok := x.Args[0].(*ast.Ident); ok {
					readOnly[id] = true
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
	return readOnly
}

// String is "N findings in M vars".
func (r *VarReport) String() string {
	return fmt.Sprintf("%d findings in %d vars", len(r.Findings), r.Inspected)
}
