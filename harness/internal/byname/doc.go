// Package byname chooses one of a fixed set of named values by an
// environment variable: the subject (harness/subjects) and the target
// (harness/targets) a suite runs.
package byname
