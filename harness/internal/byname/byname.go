package byname

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
)

// FromEnv returns the value in known named by the environment variable env
// (surrounding space trimmed; unset or empty means def). Error: the name is
// not in known; the message names env, the value and every known name.
func FromEnv[T any](env, def string, known map[string]T) (T, error) {
	name := cmp.Or(strings.TrimSpace(os.Getenv(env)), def)
	if v, ok := known[name]; ok {
		return v, nil
	}
	var zero T
	return zero, fmt.Errorf("harness: %s=%q is not known; known: %s", env, name, strings.Join(Names(known), ", "))
}

// Names returns known's names, sorted.
func Names[T any](known map[string]T) []string { return slices.Sorted(maps.Keys(known)) }
