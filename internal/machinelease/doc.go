// Package machinelease is a machine-wide reader-writer lease between the
// harness's processes: a spec that judges CPU or timing (suite.Alone) and a
// unit-test run (make unit) take it exclusively, every other spec and each
// suite compilation take it shared, so that "alone" holds across every
// Ginkgo run, shard (kreactor plan -exec) and make on the machine, not only
// inside one Ginkgo run. It orders processes only: what a holder leaves
// running after it gives the lease back (a real-Kafka run's pooled clusters)
// still runs beside the next exclusive holder.
//
// The lease is flock(2) on a file (KREACTOR_MACHINE_LEASE, default
// $TMPDIR/kreactor-machine.lease), so the kernel releases it when a holder
// exits or crashes. A second file (the path + ".turnstile") gives waiting
// exclusive holders priority: every acquirer passes the turnstile first
// and an exclusive one keeps it while it waits for the shared holders to
// drain, so a steady stream of shared holders cannot starve it.
//
// Acquisition polls with LOCK_NB (PollInterval) rather than blocking in the
// kernel, so it honours a context and never leaves a goroutine stuck in a
// system call.
package machinelease
