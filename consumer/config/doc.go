// Package config declares the reference consumers' settings once per
// consumer kind: Consumer (Kafka's KafkaConsumer with the KIP-848 protocol)
// and Share (KafkaShareConsumer, KIP-932), both embedding Common, the
// settings every kind has. Package consumer aliases them as Config and
// ShareConfig; package client (the assembly seam) and the baseline model
// read them as they are.
//
// Each field's tags are its one declaration, read by every place that needs
// it:
//
//	java:"NAME"            the Java setting (client.id, retry.backoff.ms); "-" for a
//	                       field with none. ",omitempty": the Java driver leaves an
//	                       empty value out instead of sending "".
//	default:"VALUE"        Java's default (100ms, 500, true, latest), applied by
//	                       DefaultConsumer and DefaultShare (github.com/creasty/defaults)
//	check:"RULE,..."       what Validate requires (below)
//	why:"TEXT"             appended to the reason when the first rule rejects
//
// Rules: required (a non-empty string or list); hostport (each entry is
// host:port with a port in 1..65535); oneof=A B C; trimmed (no leading or
// trailing spaces); min=V (durations: V is a duration, "0" allowed; integers:
// V..2147483647); "min=V if FIELD" (only while the bool FIELD is true);
// gte=FIELD (at least FIELD's value); instanceid=FIELD (Java's
// group.instance.id rules, and it needs the group FIELD). Every duration is
// also at most math.MaxInt32 milliseconds (it travels, or Java keeps it, as
// an int of milliseconds).
//
// Readers: Validate (the checks, messages naming the field and its Java
// setting), DefaultConsumer and DefaultShare (the defaults), Fields (the
// scenario files' consumer keys, harness/scenario), JavaProperties (the Java
// subject's properties, harness/subjects/java). TestTags fails when a field
// lacks its java tag or a tag does not parse.
package config
