// Package subjects chooses the subject (the consumer implementation under
// test) by name, as harness/targets chooses the target: "reactor",
// "baseline" and "null" (package harness/subjects/ours), "java" and
// "java-classic" (kafka-clients in a driver process, package
// harness/subjects/java) and "kgo" (franz-go, package
// harness/subjects/kgo). Java and Kgo adapt the real clients to
// harness.Subject; they are evidence, not models: the report shows them
// next to the reactor and the baseline, and its expectation check never
// requires them to pass a regression (reports.Check's evidence subjects).
//
// Suites pick theirs with KREACTOR_SUBJECT (default "reactor") through
// harness/suite; the CLI with Lookup. There is no package-level registry to
// add to: a new subject is a new entry in known (subjects.go).
package subjects
