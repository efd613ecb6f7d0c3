// Package reactor holds the execution mechanics of the KIP-1371 consumer
// reactor (Jira KAFKA-20995): typed manager results, a fixed set of enabling
// inputs, one ordered inbox of observations, a single state owner, and the
// immutable timing Decision that is published, together with an
// application-visible snapshot, before any effect of the same step runs.
//
// The package knows nothing about the Kafka protocol: it imports no kmsg, kgo
// or net. Requests are opaque payloads that a Transport sends; their
// completions come back as observations applied by the state owner.
//
// Three layers, smallest first:
//
//   - Core is the clock-free state owner, in the style of etcd raft's
//     RawNode: Apply an observation (Event, Completion) at a given now, Step
//     at a given now and get the Decision, the Snapshot, the Requests to
//     hand to the transport and the Effects to run after publication, then
//     Advance. No goroutine, no clock, no channel: unit tests of request
//     managers drive it with a fixed clock.
//   - NewDriver wraps a Core in what every driver goroutine shares: Engine,
//     the application's side (Submit, WaitFor, Current, Stats, Trace,
//     Events, Stop),
//     and Driver, the goroutine's side (drain the inbox into the Core, send
//     requests, publish, wait, count).
//   - Loop is the KIP-1371 driver, the goroutine around them.
//
// One step of the Loop (docs/design.md, "The loop"):
//
//  1. drain the inbox in arrival order and apply each observation; every
//     applied observation increments the state version;
//  2. poll every manager with a fresh view; a Ready result's requests go to
//     the transport and the manager is polled again (bounded rounds);
//  3. compute the Decision and publish it with the snapshot atomically;
//  4. run the effects queued while applying and polling;
//  5. block until the inbox is non-empty or the earliest RetryAt / Await
//     deadline passes.
//
// The Engine records each publication, each step's effects run and each
// WaitFor's take, check, block and wake in a bounded ring (Events), which
// package model replays against the protocol's Spin model.
//
// The baseline model of today's consumer (package baseline) is a second
// driver of the same Core and Engine, with its own wait and ordering.
package reactor
