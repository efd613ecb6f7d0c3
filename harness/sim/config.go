package sim

import (
	"fmt"
	"time"

	"github.com/kreactor/kreactor/fakebroker"
)

// Defaults applied to zero Config fields.
const (
	// DefaultMaxVirtual is the virtual time a run may take before
	// Env.Context is done: 10 minutes.
	DefaultMaxVirtual = 10 * time.Minute
	// DefaultFrozenAfter is how much wall time the bubble's clock may stand
	// still (while the run function has not returned) before Run calls
	// the clock frozen: 30 s. Legitimate work at one virtual instant takes
	// milliseconds; a goroutine that never blocks stops the clock for good.
	DefaultFrozenAfter = 30 * time.Second
	// ClockPeriod is how often, in virtual time, the bubble publishes its
	// clock for the frozen-clock watchdog.
	ClockPeriod = 100 * time.Millisecond
)

// Config configures one simulated run.
type Config struct {
	// Seed seeds every random choice the run makes: each consumer's
	// (Env.ConsumerConfig: member id, backoff jitter), the scenario's own
	// (Env.Rand) and, in Run, crypto/rand (testing/cryptotest), which kfake
	// draws topic ids from. 0 is a seed like any other.
	Seed uint64

	// Cluster configures the fake cluster. Run sets its Network (a fresh
	// kfake.VirtualNetwork, unless Loopback) and SpreadLeaders (true); any
	// value given for them is replaced. Zero fields get fakebroker's
	// defaults (3 brokers, heartbeat 250 ms, session 10 s).
	Cluster fakebroker.Config

	// Loopback puts the brokers on TCP sockets on 127.0.0.1 instead of
	// kfake's in-memory network, for subjects in other processes (the java
	// driver's JVM) that cannot dial a net.Pipe. RunWall only: a goroutine
	// blocked on a socket is not durably blocked, so a bubble's clock would
	// stand still (Run rejects it). Env.ConsumerConfig then sets no Dial
	// (clients dial the addresses themselves).
	Loopback bool

	// MaxVirtual bounds the run: Env.Context is done MaxVirtual after the
	// start (virtual time in Run, wall time in RunWall). 0 means
	// DefaultMaxVirtual; negative is rejected.
	MaxVirtual time.Duration

	// FrozenAfter is the wall time the bubble's clock may stand still
	// before Run declares it frozen (Run only). 0 means
	// DefaultFrozenAfter; negative turns the watchdog off (a frozen clock
	// then hangs until go test's -timeout).
	FrozenAfter time.Duration

	// Procs, if positive, is GOMAXPROCS while Run runs (restored after):
	// 1 runs one goroutine at a time, which removes most (not all) of the
	// scheduling differences between same-seed runs (see the package
	// doc). 0 leaves GOMAXPROCS as it is; negative is rejected. RunWall
	// ignores it.
	Procs int

	// OnFrozen, if set, is called (from a goroutine outside the bubble)
	// when the clock is declared frozen, before Run panics: a frozen
	// bubble cannot be stopped or recovered from, because its goroutines
	// can be neither reached nor killed from outside it. Use it to write
	// the finding somewhere a parent process reads (then os.Exit), e.g. an
	// explore driver that runs each schedule in a child process.
	OnFrozen func(Frozen)
}

// Frozen describes a bubble whose clock stopped: some goroutine in it never
// blocks (a busy loop), so the fake clock, which only advances when every
// goroutine in the bubble is durably blocked, cannot.
type Frozen struct {
	Seed    uint64
	Virtual time.Duration // virtual time since the start when the clock stopped (within ClockPeriod)
	Wall    time.Duration // wall time it has stood still
	// Spinning is the stack of every goroutine of the bubble that was
	// running or runnable when the watchdog fired: the busy loop is among
	// them.
	Spinning []string
}

func (f Frozen) String() string {
	return fmt.Sprintf("sim: seed %d: the bubble's clock froze at virtual +%s and stood still for %s of wall time: a goroutine in the bubble never blocks (a busy loop), so virtual time cannot advance; running or runnable goroutines:\n%s",
		f.Seed, f.Virtual, f.Wall.Round(time.Millisecond), joinStacks(f.Spinning))
}

// ConfigError names an invalid Config field.
type ConfigError struct {
	Field  string
	Value  any
	Reason string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("sim: invalid Config.%s = %v: %s", e.Field, e.Value, e.Reason)
}

// withDefaults returns cfg with zero fields defaulted, or a *ConfigError;
// bubble says the run is Run's (inside a synctest bubble).
func (cfg Config) withDefaults(bubble bool) (Config, error) {
	switch {
	case cfg.MaxVirtual < 0:
		return cfg, &ConfigError{"MaxVirtual", cfg.MaxVirtual, "must be >= 0 (0 means 10m)"}
	case cfg.MaxVirtual == 0:
		cfg.MaxVirtual = DefaultMaxVirtual
	}
	if cfg.Procs < 0 {
		return cfg, &ConfigError{"Procs", cfg.Procs, "must be >= 0 (0 leaves GOMAXPROCS)"}
	}
	if cfg.Loopback && bubble {
		return cfg, &ConfigError{"Loopback", true, "a bubble cannot wait on sockets: use RunWall"}
	}
	if cfg.FrozenAfter == 0 {
		cfg.FrozenAfter = DefaultFrozenAfter
	}
	return cfg, nil
}
