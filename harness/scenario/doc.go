// Package scenario runs declarative scenario files (specs/scenarios/*.yaml):
// a cluster, a consumer configuration, a timeline of client actions and
// faults, and the bounds the run must stay inside. Reviewers add cases
// without writing Go; the regression suite runs every file with a
// DescribeTable, and `kreactor run FILE --subject S --target T` runs one.
//
// A file opens with a "# ..." line saying what it checks. Every key, step
// and fault is checked when the file is loaded: an unknown one is an error
// naming the file, the line and the key, with the known alternatives.
// See specs/scenarios/README.md for the vocabulary.
package scenario
