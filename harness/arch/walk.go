package arch

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// forEachWrite calls write with every expression that n's statements write:
// the left-hand sides of assignments, the operands of ++/--, of & (the
// address taken can be written through), of delete, clear and copy's first
// argument, and the receiver of a pointer method called on an addressable
// non-pointer value.
func forEachWrite(info *types.Info, n ast.Node, write func(ast.Expr)) {
	ast.Inspect(n, func(n ast.Node) bool {
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
			if b, ok := builtinCalled(info, x); ok && (b == "delete" || b == "clear" || b == "copy") && len(x.Args) > 0 {
				write(x.Args[0])
			}
			if sel, ok := x.Fun.(*ast.SelectorExpr); ok {
				if s := info.Selections[sel]; s != nil && s.Kind() == types.MethodVal {
					if sig, ok := s.Obj().Type().(*types.Signature); ok && sig.Recv() != nil {
						if _, ptr := sig.Recv().Type().(*types.Pointer); ptr && !isPointer(s.Recv()) {
							write(sel.X)
						}
					}
				}
			}
		}
		return true
	})
}

// inner is the operand of a parenthesis, index, dereference or slice
// expression: what a write through it writes.
func inner(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.ParenExpr:
		return x.X
	case *ast.IndexExpr:
		return x.X
	case *ast.StarExpr:
		return x.X
	case *ast.SliceExpr:
		return x.X
	}
	return nil
}

func isPointer(t types.Type) bool { _, ok := t.Underlying().(*types.Pointer); return ok }

// namedOf is t, or what t points to, as a named type; nil otherwise.
func namedOf(t types.Type) *types.Named {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, _ := t.(*types.Named)
	return n
}

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

// funcOwner is the named type whose state fd may write: the receiver's type
// for a method, the returned type for a constructor New...; nil otherwise.
func funcOwner(info *types.Info, fd *ast.FuncDecl) *types.Named {
	obj, ok := info.Defs[fd.Name].(*types.Func)
	if !ok {
		return nil
	}
	sig := obj.Type().(*types.Signature)
	if sig.Recv() != nil {
		return namedOf(sig.Recv().Type())
	}
	if strings.HasPrefix(fd.Name.Name, "New") && sig.Results().Len() >= 1 {
		return namedOf(sig.Results().At(0).Type())
	}
	return nil
}
