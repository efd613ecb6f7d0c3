package kgo

import (
	"fmt"
	"runtime/debug"

	franz "github.com/twmb/franz-go/pkg/kgo"

	"github.com/kreactor/kreactor/consumer"
)

// franzModule is the module whose version Description reports.
const franzModule = "github.com/twmb/franz-go"

// PinnedFranzVersion is the franz-go version go.mod pins (a test keeps the
// two equal). FranzVersion falls back to it where the binary carries no
// dependency list (test binaries, which is how specs run).
const PinnedFranzVersion = "v1.22.3"

// Subject is the subject "kgo": franz-go's kgo client as the consumer under
// test, in this process. The zero value asks for the KIP-848 consumer
// protocol; Protocol: ProtocolClassic asks for the classic one. Extra
// options are applied after those mapped from the harness config (e.g.
// kgo.SessionTimeout for the classic protocol, which consumer.Config has no
// field for).
type Subject struct {
	Protocol Protocol    // "" means ProtocolConsumer
	Extra    []franz.Opt // applied last
}

// Name is "kgo".
func (Subject) Name() string { return "kgo" }

// protocol is s.Protocol with its default.
func (s Subject) protocol() Protocol {
	if s.Protocol == "" {
		return ProtocolConsumer
	}
	return s.Protocol
}

// Description says what the subject runs, for the report: the franz-go
// version, the group protocol asked for (Consumer.Protocol says which one
// ran), and the share consumer.
func (s Subject) Description() string {
	p := "KIP-848 consumer protocol (ServerSideBalancer; classic if the broker lacks ConsumerGroupHeartbeat v1)"
	if s.protocol() == ProtocolClassic {
		p = "classic group protocol (cooperative-sticky)"
	}
	return fmt.Sprintf("franz-go kgo %s in-process: %s; KIP-932 share consumer (ShareGroup)", FranzVersion(), p)
}

// New builds a consumer from cfg; it sends nothing until Subscribe or
// Assign. Errors: *consumer.ConfigError (the rules consumer.New applies),
// *UnsupportedError (a value kgo rejects), an unknown Protocol.
func (s Subject) New(cfg consumer.Config) (*Consumer, error) {
	return newConsumer(cfg, s.protocol(), s.Extra)
}

// NewShare builds a KIP-932 share consumer from cfg (kgo's ShareGroup); it
// sends nothing until Subscribe. Errors: *consumer.ConfigError,
// *UnsupportedError.
func (s Subject) NewShare(cfg consumer.ShareConfig) (*ShareConsumer, error) {
	return newShareConsumer(cfg, s.Extra)
}

// FranzVersion is the franz-go module version this binary was built with,
// or PinnedFranzVersion if the binary does not list its dependencies.
func FranzVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == franzModule {
				if m.Replace != nil {
					return m.Replace.Version
				}
				return m.Version
			}
		}
	}
	return PinnedFranzVersion
}
