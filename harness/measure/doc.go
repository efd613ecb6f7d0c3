// Package measure holds what specs and scenario files measure and the
// bounds they hold it to, computed from the configuration and never from
// what the subject did: a consumer's CPU in a window against an idle window
// (ReadCPU, StartCPU, JudgeCPU, CPUBound; for the subject's own process or
// goroutines where a CPUSampler says so, else the test process's), the live
// heap (SampleHeap), the machine's load (SampleLoad), Kafka's documented
// retry schedule (RetrySchedule, Schedule), what a conforming loop can do
// in an outage (LoopBudget), this process's stalls, which a timing
// judgement subtracts (StallMonitor, Unstalled), a call's duration inside
// the client (CallTime), and contract violations found in a published decision trace
// (PastDeadlinesIn). It uses the harness core's types and no test
// framework; harness/suite attaches the figures to a spec.
package measure
