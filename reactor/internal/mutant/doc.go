// Package mutant is the switch for the mutation points inside package
// reactor (the loop and the core). It exists only so that the mutation
// runs of `make mutants` can compile deliberate bugs into the reactor path
// without the reactor importing anything outside its own tree (P1: reactor/
// depends on the standard library only).
//
// Without the `mutants` build tag On is a constant false that the compiler
// removes with the branch it guards: production builds hold no mutant code.
// With the tag, On reports whether $KREACTOR_MUTANT (read once, at init)
// names the point: a list of point names joined by "+", so one mutant may
// switch on several points (a higher-order mutant). The catalogue of
// mutants, their shapes and the validation of names is package
// internal/mutant (module root), which also reads the same variable.
package mutant

// Env is the environment variable that names the active mutation points.
const Env = "KREACTOR_MUTANT"
