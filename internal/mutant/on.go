//go:build mutants

package mutant

import (
	"fmt"
	"os"
	"strings"
)

// Enabled reports whether this binary was built with the mutants tag.
const Enabled = true

// active are the points $KREACTOR_MUTANT switches on, read and checked
// once: a point the catalogue does not know stops the binary at init, so a
// typo cannot run a suite on an unmutated consumer and report it as a
// surviving mutant.
var active = func() map[string]bool {
	m := map[string]bool{}
	for _, p := range strings.Split(os.Getenv(Env), "+") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if !knownPoint(p) {
			panic(fmt.Sprintf("mutant: %s names unknown mutation point %q (known: %s)", Env, p, strings.Join(Points(), ", ")))
		}
		m[p] = true
	}
	return m
}()

// On reports whether $KREACTOR_MUTANT switches the mutation point on.
func On(point string) bool { return active[point] }
