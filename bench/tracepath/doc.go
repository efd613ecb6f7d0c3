// Package tracepath reads a Go runtime execution trace (runtime/trace) of a
// latency job and follows each answer's path inside the client: from the
// moment the runtime's network poller wakes the goroutine blocked reading
// the socket, through every goroutine hand-off, to the application's
// goroutine running again with the records Poll returns.
//
// It splits the in-client part of produce-to-Poll latency (docs/bench.md,
// "Following an answer through the client") into the read, each goroutine's
// work before it readies the next one, and each wait between being readied
// and running (the scheduler's hand-off). The split compares clients whose
// paths differ in shape: the reactor's reader, loop, application goroutine
// against kgo's reader, fetch source, poll helper, application goroutine.
//
// A path starts at a goroutine leaving a network wait (trace reason
// "network": a read, in a consumer at rest); the goroutine running follows the first goroutine it readies,
// and so on, until a goroutine blocked in a function whose name contains
// the application marker (ReadPaths' app) runs. A path whose goroutine
// blocks or ends before readying another, or that another network wake-up
// overtakes, is dropped and counted (Result). The tracer adds its own cost
// to every event: compare traced runs with traced runs.
package tracepath
