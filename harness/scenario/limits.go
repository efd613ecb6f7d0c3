package scenario

import "time"

// Limits on what one scenario file may ask for. Each is checked when the
// file loads (an error naming the file, line, key and the limit), so a file
// cannot make a run use unbounded memory or time: a produce count of 2e9
// once grew the harness to 3 GB in 9 s, and an 87,600 h Poll ran until the
// suite's global timeout. specs/scenarios/README.md lists them.
const (
	// MaxFileBytes is the largest scenario file read; a larger one is
	// refused without reading past the limit (a /dev/zero or a huge file
	// cannot exhaust memory). Only regular files are read: a FIFO, a
	// device or a directory is refused before it is opened for reading.
	MaxFileBytes = 256 << 10
	// MaxSteps and MaxExpectations bound the lists of one file.
	MaxSteps        = 500
	MaxExpectations = 200
	// MaxConsumers is the most consumers one file declares.
	MaxConsumers = 8
	// MaxBrokers is the most brokers a cluster may have (kfake starts
	// them in process; the kafka target pools 3-node clusters).
	MaxBrokers = 5
	// MaxTopics and MaxPartitions bound the cluster's topics and each
	// topic's partitions.
	MaxTopics     = 32
	MaxPartitions = 64
	// MaxProduce is the most records one produce step writes, and
	// MaxProduceTotal the most all produce steps of a file write
	// (records are ~10 bytes; the in-process broker keeps them all).
	MaxProduce      = 100_000
	MaxProduceTotal = 1_000_000
	// MaxRate is the fastest a paced producer may write (records/s).
	MaxRate = 10_000
	// MaxCallTimeout bounds every timeout of one application call (poll,
	// commit_sync, close, consume, wait_assigned).
	MaxCallTimeout = 60 * time.Second
	// MaxStepDuration bounds poll_for, sleep, a fault's delay and an at:
	// offset.
	MaxStepDuration = 60 * time.Second
	// MaxTimeline bounds the whole timeline: the sum of every sequential
	// step's longest possible duration (timeouts, durations, paced
	// produce), plus the latest at: offset. The run's context is this
	// file's bound plus RunSlack, so no run outlives what its file says.
	MaxTimeline = 3 * time.Minute
	// MaxCount bounds every count in a bound (min, max, records, ...):
	// far above anything a run can observe, and far from overflow.
	MaxCount = 1_000_000_000
	// MaxNameLen bounds names (ids, steps, windows, consumers, topics).
	MaxNameLen = 100
	// MaxListLen bounds any other list (topics of a subscribe, partitions
	// of an assign, covers, signals, keys of a selector).
	MaxListLen = 64
)

// RunSlack is what a run may take beyond its file's timeline bound: the
// cluster's start, the consumers' construction and close, evaluation.
const RunSlack = 30 * time.Second

// CloseGrace is how long past the run's deadline the consumers a close step
// did not close still get for their Close (each; the consumers' own close
// is bounded by the context it is given).
const CloseGrace = time.Second
