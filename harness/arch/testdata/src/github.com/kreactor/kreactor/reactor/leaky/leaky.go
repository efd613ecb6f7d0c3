// Package leaky breaks MechanicsImports every way it can.
package leaky

import (
	_ "net" // want `net, reached for by reactor code.*: .*reactor/leaky -> net`

	_ "github.com/kreactor/kreactor/reactor"
	_ "github.com/kreactor/kreactor/reactor/inner" // want `a package outside the standard library: .*reactor/leaky -> .*reactor/inner -> example.com/thirdparty`
	_ "github.com/kreactor/kreactor/wire"          // want `a package of this module outside reactor/`
	_ "github.com/twmb/franz-go/pkg/kmsg"          // want `the Kafka protocol library`
)
