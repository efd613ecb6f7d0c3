// Package arch holds the module's architecture rules as go/analysis
// analyzers, one per rule, so each is tested on a violating snippet
// (analysistest, testdata/src) and runs wherever analyzers run: `go test`
// of this package checks the module (TestModuleKeepsTheRules), the
// structural property specs (specs/properties: P1, P5, P6) run them through
// Check and attach their results as figures, and a vet tool could run them
// too. Every diagnostic names the place that breaks the rule: the import
// (with the chain to the forbidden package), the declaration or the
// statement.
//
// The rules:
//
//   - MechanicsImports (P1): the execution mechanics (reactor/...) import
//     the standard library and reactor/... only, and reach no net.
//   - SeparateManagers (P1, P5): managers/group and managers/share never
//     import each other, directly or transitively.
//   - CoreImports: the harness core (package harness) imports no package of
//     its own tree (harness/...) and no Ginkgo or Gomega, directly or
//     transitively.
//   - ManagerFields (P1): a request manager type has no exported field.
//   - ManagerWrites (P1): no code writes a manager's fields outside that
//     manager's own methods and constructors.
//   - PackageVars (P1, P6): package variables of reactor/... and
//     managers/... are never-written error sentinels or never-written,
//     non-escaping tables of plain values (PackageVarRule).
//   - ReactorLoop (P5): consumer.New and consumer.NewShare each build their
//     engine with exactly one reactor.New.
//   - ManagerImpl (P5): every manager of managers/group and managers/share
//     implements reactor.Manager[its view].
//   - NoRegistry (P6): the reactor's exported API takes code only where a
//     reviewed list says why it is no registration, holds code only in
//     reviewed fields, and names nothing like a registry.
//
// ImportGraph and ManagerTypes are the shared inputs of these rules (the
// import closure as package facts; the manager types found by shape).
package arch
