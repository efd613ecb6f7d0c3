package targets

import (
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/internal/byname"
	"github.com/kreactor/kreactor/harness/targets/kafka"
	"github.com/kreactor/kreactor/harness/targets/kfake"
)

// Env is the environment variable that names the target a suite runs
// against; the default is Default.
const Env = "KREACTOR_TARGET"

// Default is the target used when Env is unset: kfake.
const Default = kfake.Name

// known returns the targets by name, a new map on each call.
func known() map[string]harness.Target {
	return map[string]harness.Target{
		kfake.Name:    kfake.Target{},
		kfake.RawName: kfake.Raw{},
		kafka.Name:    kafka.Target{},
	}
}

// Lookup returns the target named name, or false.
func Lookup(name string) (harness.Target, bool) {
	t, ok := known()[name]
	return t, ok
}

// Names returns the known targets' names, sorted.
func Names() []string { return byname.Names(known()) }

// Selected returns the target named by $KREACTOR_TARGET (surrounding space
// trimmed; unset or empty means Default). Error: the name is not known; the
// message names the variable, the value and every known name.
func Selected() (harness.Target, error) { return byname.FromEnv(Env, Default, known()) }

// CloseShared terminates what targets keep across specs (the kafka
// target's pooled clusters). Call it after the suite, before the leak
// check; safe when nothing was started.
func CloseShared() error {
	return kafka.CloseSharedClusters()
}
