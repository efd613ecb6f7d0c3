// Package vocab is the fault vocabulary kreactor's brokers understand, in
// one place for every front end: scenario files (harness/scenario decodes a
// `fault` step's kind and arguments with it) and the HTTP control API
// (fakebroker/control decodes a POST /v1/faults body with it). It holds
//
//   - the fault kinds (Defs: name, the arguments each takes and needs, one
//     line of documentation and an example), so a kind or argument that one
//     front end knows the other knows too;
//   - Spec and Kind, the installed form both targets implement (fakebroker
//     on kfake, containers/proxy in front of real Kafka);
//   - the names a fault is written with: Kafka APIs (ParseAPIKey, by name
//     or number), Kafka errors (ParseError, by their protocol name), and
//     body selectors (CompileWhere: a request's top-level fields in snake
//     case, e.g. member_epoch);
//   - Trigger, the once / n-th / n times / always / seeded-probability
//     filter over a selector.
//
// It imports neither Ginkgo nor the harness, so a command (kreactor broker)
// can link it without test machinery.
package vocab
