// Package reactor holds the execution mechanics of the KIP-1371 consumer
// reactor (Jira KAFKA-20995): typed manager results, a fixed set of enabling
// inputs, one ordered inbox of observations, a single state-owner goroutine
// (the Loop), and the immutable timing Decision that is published, together
// with an application-visible snapshot, before any effect of the same step
// runs.
//
// The package knows nothing about the Kafka protocol: it imports no kmsg, kgo
// or net. Requests are opaque payloads that a Transport sends; their
// completions come back as observations applied on the loop goroutine.
//
// One step of the loop (DESIGN.md, "The loop"):
//
//  1. drain the inbox in arrival order and apply each observation; every
//     applied observation increments the state version;
//  2. poll every manager with a fresh view; a Ready result's requests go to
//     the transport and the manager is polled again (bounded rounds);
//  3. compute the Decision and publish it with the snapshot atomically;
//  4. run the effects queued while applying and polling;
//  5. block until the inbox is non-empty or the earliest RetryAt / Await
//     deadline passes.
package reactor
