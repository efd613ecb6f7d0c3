//go:build !mutants

package mutant

// Enabled reports whether this binary was built with the mutants tag.
const Enabled = false

// On reports whether the mutation point is switched on: never, without the
// mutants build tag (the compiler drops the guarded branch).
func On(string) bool { return false }
