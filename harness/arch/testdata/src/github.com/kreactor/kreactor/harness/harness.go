// Package harness is a core that imports its own helper, Ginkgo directly
// and Gomega through another package.
package harness

import (
	_ "github.com/kreactor/kreactor/fakebroker"    // want `the harness core reaches Ginkgo or Gomega \(only harness/suite may\): .*harness -> .*fakebroker -> github.com/onsi/gomega`
	_ "github.com/kreactor/kreactor/harness/suite" // want `the harness core imports a package of its own tree`
	_ "github.com/onsi/ginkgo/v2"                  // want `the harness core reaches Ginkgo or Gomega \(only harness/suite may\): .*harness -> github.com/onsi/ginkgo/v2`
)
