//go:build mutants

package mutant

import (
	"os"
	"strings"
)

// active are the points $KREACTOR_MUTANT switches on, read once.
var active = func() map[string]bool {
	m := map[string]bool{}
	for _, p := range strings.Split(os.Getenv(Env), "+") {
		if p = strings.TrimSpace(p); p != "" {
			m[p] = true
		}
	}
	return m
}()

// On reports whether $KREACTOR_MUTANT switches the mutation point on.
func On(point string) bool { return active[point] }
