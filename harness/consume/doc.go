// Package consume holds what specs and scenario files do with a subject's
// consumer beyond single calls: polling loops with the named poll slice
// (PollUntil, PollFor), the exactly-once, in-order delivery check
// (CheckDelivery, Partitions), counting and locating application calls
// (Tracked, GoroutineID), and a client-side response delay any consumer
// can dial through (DelayResponses). It uses the harness core's Consumer
// and Recorder types, and no test framework.
package consume
