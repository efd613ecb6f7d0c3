// Package targets chooses the target (the broker a subject runs against)
// by name: "kfake" (package harness/targets/kfake, in-process), "kafka"
// (package harness/targets/kafka, real Apache Kafka in Docker behind the
// recording proxy), and "kfake-raw" (kfake without fakebroker's
// corrections towards Kafka's answers, for seeing which specs need them). It exists apart from package harness because harness
// defines the Target interface the target packages implement, so it cannot
// import them.
//
// Suites pick theirs with KREACTOR_TARGET (default "kfake"):
//
//	var target = targets.MustSelect()
//	var _ = AfterSuite(func() { Expect(targets.CloseShared()).To(Succeed()) })
package targets

import (
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/targets/kafka"
	"github.com/kreactor/kreactor/harness/targets/kfake"
)

// Env is the environment variable that names the target a suite runs
// against; the default is Default.
const Env = "KREACTOR_TARGET"

// Default is the target used when Env is unset: kfake.
const Default = kfake.Name

// ByName are the known targets by name. Read-only.
var ByName = map[string]harness.Target{
	kfake.Name:    kfake.Target{},
	kfake.RawName: kfake.Raw{},
	kafka.Name:    kafka.Target{},
}

// Names returns the known targets' names, sorted.
func Names() []string { return harness.SortedNames(ByName) }

// Selected returns the target named by $KREACTOR_TARGET (default "kfake"),
// or an error naming the value and listing the known ones.
func Selected() (harness.Target, error) {
	return harness.FromEnv(Env, Default, ByName)
}

// MustSelect returns Selected's target and panics with the reason if it is
// unknown (for suite-level vars). It comes wrapped (harness.Recorded) so the
// clusters specs start are recorded on the spec's timeline (requests per API
// key, fault windows) for the report's plots.
func MustSelect() harness.Target {
	t, err := Selected()
	if err != nil {
		panic(err)
	}
	return harness.Recorded(t)
}

// CloseShared terminates what targets keep across specs (the kafka
// target's pooled clusters). Call it from AfterSuite, before the leak
// check; safe when nothing was started.
func CloseShared() error {
	return kafka.CloseSharedClusters()
}
