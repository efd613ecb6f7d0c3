package java

import (
	"context"
	"maps"

	"github.com/kreactor/kreactor/consumer"
)

// Subject is the subject "java": every consumer it builds is a Java
// consumer in its own driver process. Options choose the kafka-clients
// build (DefaultOptions reads the environment); Extra properties are put
// over those mapped from the harness config (e.g. group.protocol=classic).
type Subject struct {
	Options Options
	Extra   map[string]string
}

// Name is "java".
func (Subject) Name() string { return "java" }

// New starts a KafkaConsumer configured from cfg (Properties) and Extra.
func (s Subject) New(cfg consumer.Config) (*Consumer, error) {
	p, err := Properties(cfg)
	if err != nil {
		return nil, err
	}
	maps.Copy(p, s.Extra)
	return NewConsumer(context.Background(), s.Options, p)
}

// NewShare starts a KafkaShareConsumer configured from cfg
// (ShareProperties) and Extra.
func (s Subject) NewShare(cfg consumer.ShareConfig) (*ShareConsumer, error) {
	p, err := ShareProperties(cfg)
	if err != nil {
		return nil, err
	}
	maps.Copy(p, s.Extra)
	return NewShareConsumer(context.Background(), s.Options, p)
}
