// Package bench is kreactor's side-by-side benchmark: the
// reactor consumer, the baseline model, raw franz-go kgo and Java's
// KafkaConsumer (through the JSON-lines driver, and polling inside the JVM)
// consume the same records from the same broker, on the kfake target (an
// in-process kfake cluster) and on real Kafka 4.4.0 in Docker.
//
// Every measurement runs in a child process of its own (Run re-executes the
// kreactor binary with one Job), so the figures are the consumer's alone:
// the broker (kfake, in the parent; Kafka, in its container) and the other
// subjects are not in the process whose CPU, allocations and memory are
// read. The parent starts the targets, produces the records, runs the jobs
// in interleaved rounds (round r starts with subject r mod n) and writes
//
//   - lines in the `go test -bench` format (benchstat reads them), one per
//     job: BenchmarkConsume/target=T/subject=S with records/s,
//     ns-cpu/record, allocs/record and B/record; BenchmarkLatency with
//     p50-ms, p90-ms, p99-ms, max-ms, read-p50-ms, read-p99-ms,
//     ctxsw/record, ns-cpu/record, allocs/record and B/record;
//     BenchmarkBacklog with rss-MB, heap-MB; BenchmarkIdle with
//     cpu-ms/min;
//   - a JSON perf table (reports.PerfTable) for `kreactor report -perf`.
//
// Measurements (Job.Kind):
//
//   - throughput: Records records of ValueBytes bytes over Partitions
//     partitions, read from the start by a fresh KIP-848 group. The join is
//     not timed: the clock starts once the member owns every partition
//     (records a subject received before that are reported as untimed).
//     CPU is the consumer process's user+system time over the timed part
//     (getrusage; for Java, the JVM's process CPU, plus the Go side of the
//     driver for java-driver); allocations are Go's runtime.MemStats
//     (Java: bytes allocated by all JVM threads).
//   - latency: the parent produces Rate records/s for Duration, each value
//     starting with its produce time (8-byte big-endian Unix nanoseconds);
//     the consumer takes each record's latency when Poll returns it.
//   - backlog: BacklogRecords records wait on the broker; the consumer
//     polls once, then stops polling for Settle while it buffers what it
//     buffers; then its resident set (VmRSS) and Go heap are read; then it
//     drains the backlog (peak resident set, VmHWM, after the drain).
//   - idle: a consumer owns every partition of an empty topic and polls in
//     a loop (1 s poll timeout) for Window; its CPU per minute.
//
// Subjects: reactor (consumer.New), baseline (baseline.New), kgo (a raw
// franz-go client with the kgo subject's option mapping, PollRecords),
// java-driver (harness/subjects/java, one poll command per Poll: its JSON
// record transfer dominates), java (the driver's consume command: the same
// KafkaConsumer polling inside the JVM, without the JSON). The Java consumer
// runs with the JVM's default ergonomics. kgo-twin, named only on request,
// is a second kgo: the A/A control whose ratio to kgo shows how far apart
// the bench puts two identical clients.
package bench
