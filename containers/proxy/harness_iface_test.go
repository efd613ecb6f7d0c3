package proxy_test

import (
	"github.com/kreactor/kreactor/containers/proxy"
	"github.com/kreactor/kreactor/harness"
)

// The proxy's Recorder and Fault are what a real-Kafka target hands to
// specs.
var (
	_ harness.Recorder = (*proxy.Recorder)(nil)
	_ harness.Fault    = (*proxy.Fault)(nil)
)
