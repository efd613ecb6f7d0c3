// Package machinelease is a machine-wide reader-writer lease between the
// harness's processes: a spec that judges CPU or timing (suite.Alone) takes
// it exclusively, every other spec, compilation and unit-test run takes it
// shared, so that "alone" holds across every Ginkgo run, test binary and
// make step on the machine, not only inside one Ginkgo run. Conformance
// runs on different targets (kfake, real Kafka) can then run side by side
// (.ci/run) while each CPU- or timing-judging spec still has the cores to
// itself.
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
