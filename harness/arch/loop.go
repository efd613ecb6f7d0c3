package arch

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// consumerConstructors are the constructors ReactorLoop checks, where the
// consumer package declares them.
var consumerConstructors = [...]string{"New", "NewShare"}

// ReactorLoop is the P5 rule that the regular and the share consumer run on
// the same execution mechanics: consumer.New and consumer.NewShare each
// call reactor.New exactly once, themselves or through functions of
// package consumer they reach by static calls (a refactor that moves the
// call into a helper still counts). Its result maps each constructor the
// package declares to the positions of its reactor.New calls.
var ReactorLoop = &analysis.Analyzer{
	Name:       "reactorloop",
	Doc:        "consumer.New and consumer.NewShare each build their engine with exactly one reactor.New",
	ResultType: reflect.TypeFor[map[string][]token.Position](),
	Run: func(pass *analysis.Pass) (any, error) {
		out := map[string][]token.Position{}
		if pass.Pkg.Path() != ConsumerPkg {
			return out, nil
		}
		for _, fn := range consumerConstructors {
			decl := funcDecl(pass, fn)
			if decl == nil {
				continue
			}
			calls := calls(pass, decl, ReactorPkg, "New")
			for _, c := range calls {
				out[fn] = append(out[fn], pass.Fset.Position(c))
			}
			if len(calls) != 1 {
				pass.Reportf(decl.Name.Pos(), "consumer.%s calls reactor.New %d times, want 1: every consumer must run on the reactor loop", fn, len(calls))
			}
		}
		return out, nil
	},
}

// funcDecl is pass's top-level function (not a method) named name, or nil.
func funcDecl(pass *analysis.Pass, name string) *ast.FuncDecl {
	for _, f := range pass.Files {
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Body != nil && fd.Recv == nil && fd.Name.Name == name {
				return fd
			}
		}
	}
	return nil
}

// calls returns the positions where pkgPath.name is called by start or by
// any function or method of pass's package that start reaches through
// static calls inside the package, sorted.
func calls(pass *analysis.Pass, start *ast.FuncDecl, pkgPath, name string) []token.Pos {
	decls := map[*types.Func]*ast.FuncDecl{}
	for _, f := range pass.Files {
		for _, decl := range f.Decls {
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Body != nil {
				if obj, ok := pass.TypesInfo.Defs[fd.Name].(*types.Func); ok {
					decls[obj] = fd
				}
			}
		}
	}
	var out []token.Pos
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
			callee := calleeFunc(pass.TypesInfo, call)
			if callee == nil || callee.Pkg() == nil {
				return true
			}
			if callee.Pkg().Path() == pkgPath && callee.Name() == name {
				out = append(out, call.Pos())
			}
			if next := decls[callee.Origin()]; next != nil && !seen[next] {
				seen[next] = true
				queue = append(queue, next)
			}
			return true
		})
	}
	slices.SortFunc(out, func(a, b token.Pos) int {
		return strings.Compare(pass.Fset.Position(a).String(), pass.Fset.Position(b).String())
	})
	return out
}
