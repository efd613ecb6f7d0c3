package harness

import "context"

// Optional Cluster abilities (only these: the suite's cluster wrapper must
// keep each, and its test reads this file): a spec that needs one asserts it on its
// Cluster and skips on targets without it. Both targets (harness/targets/kfake
// and harness/targets/kafka) have both today.

// LogTrimmer is implemented by clusters that can delete a partition's
// records below an offset (Kafka's DeleteRecords). Long-running specs trim
// what the consumer has already delivered, so the broker's own memory (kfake
// keeps every record in the test process) does not grow with the run and
// hide or fake a trend in the consumer's.
type LogTrimmer interface {
	// DeleteRecords makes offset the partition's log start offset.
	DeleteRecords(ctx context.Context, topic string, partition int32, offset int64) error
}

// TopicCreator is an optional Cluster ability: creating a topic with
// topic-level configs (segment.bytes, retention.ms, ...) that
// TargetConfig.Topics cannot express.
type TopicCreator interface {
	// CreateTopic creates topic with partitions partitions and configs.
	CreateTopic(ctx context.Context, topic string, partitions int32, configs map[string]string) error
}
