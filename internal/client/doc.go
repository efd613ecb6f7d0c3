// Package client is the consumer machinery shared by every consumer variant:
// the reactor consumers of package consumer and the baseline model's
// consumers of package baseline. It holds the one assembly seam (NewGroup
// and NewShare build a consumer's request managers, view and snapshot, and
// the engine configuration over them), the application's side of an engine
// (EngineSide), the application-side bookkeeping (AppSide), the franz-go
// transport, and the bodies of the application calls that do not depend on
// the execution model. What does depend on it (how Poll, CommitSync, Wakeup
// and Close wait) is a GroupPath or SharePath, one per variant.
//
// The public types (Record, Snapshot, the errors) are defined here and
// aliased by package consumer, which documents them for applications. The
// settings are package config's Consumer and Share (consumer.Config and
// consumer.ShareConfig are aliases of them), declared once.
package client
