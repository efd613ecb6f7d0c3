// Package java is the subject "java": Apache Kafka's own Java consumers
// (KafkaConsumer with group.protocol=consumer or classic, and
// KafkaShareConsumer) from kafka-clients, driven through a small Java driver
// process (subjects/java) that speaks line-delimited JSON on stdin/stdout.
//
// The package is named java after the subject it provides (the directory
// name, as Go expects); nothing in the standard library or this module uses
// the name, and callers read as java.NewConsumer, java.Subject.
//
// One driver process runs per consumer. NewConsumer and NewShareConsumer
// start it (a JVM in its own process group, stderr kept in a bounded buffer),
// and Close always reaps it: Java's close, then "exit", then SIGKILL to the
// process group if it has not exited within the grace period. Every call has
// a deadline: a driver that dies or stops answering is a *DriverError
// carrying its exit status and stderr tail, never a hang. LiveDrivers and
// ChildProcesses let a suite assert at its end that no driver outlived it.
//
// Which kafka-clients runs: KREACTOR_JAVA_CLIENTS (a release from Maven
// Central, default 4.4.0; every 4.0.0..4.4.0 release works) or
// KREACTOR_JAVA_CLASSPATH (colon-separated jars of a locally built
// kafka-clients and its dependencies, e.g. the KIP-1371 prototype), or the
// same through Options. The driver jar is compiled once against 4.4.0 and
// cached with each release's jars under subjects/java/target (see
// subjects/java/build.sh; `make java-driver`); switching releases needs no
// rebuild. Without java (or, when something must be built, mvn) every
// constructor returns an error wrapping ErrJavaMissing.
//
// Black-box figures: call durations measured inside Java (CallLog), the
// client's own metrics (Metrics: select-total, time-between-network-thread-
// poll-avg/max, ...), per-thread CPU seen by the JVM (JVMThreads) and, from
// /proc and independent of the JVM, process and per-thread CPU by thread name
// (CPU), with the consumer's background thread reported apart from the
// application thread.
package java
