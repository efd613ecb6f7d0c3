package harness

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2"
)

// Environment variables that choose what a suite runs.
const (
	EnvTarget  = "KREACTOR_TARGET"  // target name; default "kfake"
	EnvSubject = "KREACTOR_SUBJECT" // subject name; default "reactor"
)

// Targets are the known targets by name: "kfake" (in-process) and "kafka"
// (real Apache Kafka in Docker, behind the recording proxy).
var Targets = map[string]Target{
	Kfake{}.Name(): Kfake{},
	Kafka{}.Name(): Kafka{},
}

// Subjects are the known subjects by name.
var Subjects = map[string]Subject{
	Reactor{}.Name():  Reactor{},
	Baseline{}.Name(): Baseline{},
}

// SelectedTarget returns the target named by $KREACTOR_TARGET (default
// "kfake"), or an error listing the known ones.
func SelectedTarget() (Target, error) {
	return selected(EnvTarget, "kfake", Targets)
}

// SelectedSubject returns the subject named by $KREACTOR_SUBJECT (default
// "reactor"), or an error listing the known ones.
func SelectedSubject() (Subject, error) {
	return selected(EnvSubject, "reactor", Subjects)
}

// MustSelect returns the selected target and subject and panics with the
// reason if either is unknown (for suite-level vars).
func MustSelect() (Target, Subject) {
	t, err := SelectedTarget()
	if err != nil {
		panic(err)
	}
	s, err := SelectedSubject()
	if err != nil {
		panic(err)
	}
	return t, s
}

func selected[T any](env, def string, known map[string]T) (T, error) {
	name := strings.TrimSpace(os.Getenv(env))
	if name == "" {
		name = def
	}
	if v, ok := known[name]; ok {
		return v, nil
	}
	var zero T
	names := make([]string, 0, len(known))
	for n := range known {
		names = append(names, n)
	}
	slices.Sort(names)
	return zero, fmt.Errorf("harness: %s=%q is not known; known: %s", env, name, strings.Join(names, ", "))
}

// ReferenceSubject is the subject every catalogue item must pass on (the
// report's expectation check names it first).
const ReferenceSubject = "reactor"

// OnReferenceOnly skips the running spec on any subject but the reference
// one. It is for specs that check the code, or drive the managers on a
// Core of their own: they say nothing about a subject, so one run is
// enough, and every other subject reports them skipped with that reason.
func OnReferenceOnly(subject Subject, what string) {
	if subject.Name() != ReferenceSubject {
		ginkgo.Skip(fmt.Sprintf("checks %s, not subject %s: one run (subject %s) is enough", what, subject.Name(), ReferenceSubject))
	}
}
