// Package ours holds the subjects built from this module's consumers: the
// reactor ("reactor", the KIP-1371 consumers of package consumer), the
// baseline ("baseline", the same managers on today's execution model, the
// negative control) and "null" (the reactor consumer on a transport that
// never sends, the liveness control). Their consumers carry a
// harness.Probe; their engines can be built over synthetic managers
// (EngineSubject); what the reactor builds carries a trace the protocol's
// model validates (TraceOf, ValidateTrace). Package harness/subjects
// chooses a subject by name.
package ours
