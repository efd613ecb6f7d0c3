// Package mutant holds the deliberate bugs of `make mutants`: a
// catalogue of named mutants of the reactor consumer's path, each one or
// more mutation points in the code where the bug would live, and the switch
// those points read.
//
// Design. One build tag, `mutants`, and one environment variable,
// $KREACTOR_MUTANT, read once at init: a mutation point is a one-line guard,
// `if mutant.On("name") { ...the bug... }`, at the place the bug would be
// written. Without the tag On is a constant false (off.go), so the compiler
// drops the guarded branch and production binaries hold no mutant code; the
// guard in the source is the only trace, and it names the bug it stands
// for, next to the code it would break. With the tag (on.go) one test
// binary carries every mutant and the runner picks one per run through the
// variable, so `make mutants` compiles each suite once instead of once per
// mutant (a build tag per mutant would mean 17 builds of each suite on a
// 2-core machine, and production files guarded by 17 negated tags). The
// alternatives considered: per-mutant files behind `//go:build mutant_x`
// need every mutated function split out of production files behind a
// negated tag; source patches applied at run time (go build -overlay) keep
// production files untouched but rot silently when the code moves, while a
// guard that no longer compiles, or a point name the catalogue does not
// know, fails the build or the init below.
//
// Package reactor cannot import this package (P1: reactor/ depends on the
// standard library only), so its points read reactor/internal/mutant, which
// reads the same variable; the catalogue here names every point of both.
package mutant

// Env is the environment variable naming the active mutation points: one
// point, or several joined by "+" (a higher-order mutant). The runner sets
// it from Mutant.Points. reactor/internal/mutant reads the same name (it
// cannot import this package, nor this package it).
const Env = "KREACTOR_MUTANT"
