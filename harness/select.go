package harness

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2"
)

// EnvSubject is the environment variable that names the subject a suite
// runs; the default is "reactor". The target is chosen with
// KREACTOR_TARGET (package harness/targets, which imports the target
// packages harness cannot).
const EnvSubject = "KREACTOR_SUBJECT"

// Subjects are the known subjects by name: ours (reactor, baseline, null)
// and the real clients (java, java-classic, kgo: subject_real.go).
var Subjects = map[string]Subject{
	Reactor{}.Name():           Reactor{},
	Baseline{}.Name():          Baseline{},
	Null{}.Name():              Null{},
	Java{}.Name():              Java{},
	Java{Classic: true}.Name(): Java{Classic: true},
	Kgo{}.Name():               Kgo{},
}

// SelectedSubject returns the subject named by $KREACTOR_SUBJECT (default
// "reactor"), or an error listing the known ones.
func SelectedSubject() (Subject, error) {
	return FromEnv(EnvSubject, "reactor", Subjects)
}

// MustSelectSubject returns SelectedSubject's subject and panics with the
// reason if it is unknown (for suite-level vars). It comes wrapped
// (RecordedSubject) so the consumers specs make are recorded on the spec's
// timeline for the report's plots.
func MustSelectSubject() Subject {
	s, err := SelectedSubject()
	if err != nil {
		panic(err)
	}
	return RecordedSubject(s)
}

// FromEnv returns the value in known named by environment variable env
// (surrounding space trimmed; unset or empty means def). Error: the name is
// not in known; the message names env, the value and every known name.
func FromEnv[T any](env, def string, known map[string]T) (T, error) {
	name := strings.TrimSpace(os.Getenv(env))
	if name == "" {
		name = def
	}
	if v, ok := known[name]; ok {
		return v, nil
	}
	var zero T
	return zero, fmt.Errorf("harness: %s=%q is not known; known: %s", env, name, strings.Join(SortedNames(known), ", "))
}

// SortedNames returns the keys of known, sorted.
func SortedNames[T any](known map[string]T) []string {
	names := make([]string, 0, len(known))
	for n := range known {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
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
