package kgo

import (
	franz "github.com/twmb/franz-go/pkg/kgo"

	"github.com/kreactor/kreactor/consumer"
)

// RawGroupOpts returns the kgo options this subject gives a subscribed
// consumer for cfg (the mapping in doc.go) with group protocol p ("" means
// ProtocolConsumer), without the adapter: for a raw kgo client measured next
// to the subjects (kreactor's side-by-side benchmark). The caller
// adds what to consume (franz.ConsumeTopics). Errors: as Subject.New.
func RawGroupOpts(cfg consumer.Config, p Protocol) ([]franz.Opt, error) {
	if p == "" {
		p = ProtocolConsumer
	}
	opts, err := consumerOpts(cfg)
	if err != nil {
		return nil, err
	}
	return append(opts, groupOpts(cfg, p)...), nil
}
