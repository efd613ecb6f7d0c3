// Package clean keeps MechanicsImports: the standard library and reactor/.
package clean

import (
	_ "strings"

	_ "github.com/kreactor/kreactor/reactor"
)
