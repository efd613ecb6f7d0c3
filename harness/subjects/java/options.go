package java

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"
)

// Environment variables read by DefaultOptions.
const (
	// EnvClients selects a released kafka-clients version from Maven
	// Central (default DefaultClients).
	EnvClients = "KREACTOR_JAVA_CLIENTS"
	// EnvClasspath, when set, runs these colon-separated jars (a locally
	// built kafka-clients and its dependencies) instead of a release.
	EnvClasspath = "KREACTOR_JAVA_CLASSPATH"
	// EnvJVMOpts adds space-separated JVM arguments, e.g.
	// -Dorg.slf4j.simpleLogger.defaultLogLevel=info for Kafka's logs.
	EnvJVMOpts = "KREACTOR_JAVA_OPTS"
	// EnvDriverDir points at subjects/java when the working directory is
	// not inside the kreactor module.
	EnvDriverDir = "KREACTOR_JAVA_DRIVER_DIR"
)

// DefaultClients is the kafka-clients release run when none is chosen.
const DefaultClients = "4.4.0"

// Defaults of Options' durations and sizes.
const (
	DefaultStartTimeout = 2 * time.Minute  // includes a first build (Maven downloads ~30 s)
	DefaultCallGrace    = 30 * time.Second // past a call's own Java timeout
	DefaultCloseGrace   = 5 * time.Second  // exit after close, before SIGKILL
	DefaultMaxCallWait  = 10 * time.Minute // a call without any deadline
	DefaultStderrBytes  = 64 << 10
)

// DefaultJVMArgs keep the JVM small and its own threads quiet so per-thread
// CPU figures are mostly the consumer's: one serial GC thread, bounded heap,
// no hsperfdata file.
var DefaultJVMArgs = []string{"-XX:+UseSerialGC", "-Xms32m", "-Xmx512m", "-XX:-UsePerfData"}

// Options choose the kafka-clients build and the driver's process limits.
// Start from DefaultOptions (which reads the environment); the zero value
// also works and means the defaults without the environment.
type Options struct {
	// Clients is the kafka-clients release (Maven Central), e.g. "4.3.1".
	// "" means DefaultClients. Ignored when Classpath is set.
	Clients string
	// Classpath, if set, are the jars of a locally built kafka-clients and
	// its dependencies (absolute or relative paths; each must exist). The
	// driver jar and its logging jars are put in front of them.
	Classpath []string
	// DriverDir is subjects/java of the kreactor module; "" means found by
	// walking up from the working directory (or EnvDriverDir).
	DriverDir string
	// Java is the java binary; "" means $JAVA_HOME/bin/java, else PATH.
	Java string
	// JVMArgs replace DefaultJVMArgs when non-nil; ExtraJVMArgs are added.
	JVMArgs, ExtraJVMArgs []string
	// StartTimeout bounds building (first use) and JVM start to the
	// driver's ready line; 0 means DefaultStartTimeout.
	StartTimeout time.Duration
	// CallGrace is how long past a call's own timeout the driver may take
	// to answer before it is declared hung and killed; 0 means
	// DefaultCallGrace.
	CallGrace time.Duration
	// CloseGrace is how long the process may take to exit after Close
	// before it is killed; 0 means DefaultCloseGrace.
	CloseGrace time.Duration
	// MaxCallWait bounds a call that has no deadline of its own (a Poll
	// or CommitSync whose ctx has none); 0 means DefaultMaxCallWait.
	MaxCallWait time.Duration
	// StderrBytes is how much of the driver's stderr is kept (the tail);
	// 0 means DefaultStderrBytes.
	StderrBytes int
}

// DefaultOptions returns Options with Clients, Classpath, ExtraJVMArgs and
// DriverDir from EnvClients, EnvClasspath, EnvJVMOpts and EnvDriverDir.
func DefaultOptions() Options {
	o := Options{Clients: os.Getenv(EnvClients), DriverDir: os.Getenv(EnvDriverDir)}
	if cp := os.Getenv(EnvClasspath); cp != "" {
		o.Classpath = strings.Split(cp, ":")
	}
	o.ExtraJVMArgs = strings.Fields(os.Getenv(EnvJVMOpts))
	return o
}

var releasePattern = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[A-Za-z0-9.]+)?$`)

// withDefaults validates o and fills zero fields. A bad value is an error
// naming it.
func (o Options) withDefaults() (Options, error) {
	if o.Clients == "" {
		o.Clients = DefaultClients
	}
	if len(o.Classpath) == 0 && !releasePattern.MatchString(o.Clients) {
		return o, fmt.Errorf("java subject: invalid kafka-clients release %q (Options.Clients / %s): want a version such as 4.4.0", o.Clients, EnvClients)
	}
	for _, p := range o.Classpath {
		if p == "" {
			return o, fmt.Errorf("java subject: empty entry in classpath %q (Options.Classpath / %s)", strings.Join(o.Classpath, ":"), EnvClasspath)
		}
		if _, err := os.Stat(p); err != nil {
			return o, fmt.Errorf("java subject: classpath entry %q (Options.Classpath / %s): %w", p, EnvClasspath, err)
		}
	}
	for name, d := range map[string]*time.Duration{"StartTimeout": &o.StartTimeout, "CallGrace": &o.CallGrace, "CloseGrace": &o.CloseGrace, "MaxCallWait": &o.MaxCallWait} {
		if *d < 0 {
			return o, fmt.Errorf("java subject: Options.%s = %s must be >= 0 (0 means the default)", name, *d)
		}
	}
	if o.StderrBytes < 0 {
		return o, fmt.Errorf("java subject: Options.StderrBytes = %d must be >= 0 (0 means %d)", o.StderrBytes, DefaultStderrBytes)
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&o.StartTimeout, DefaultStartTimeout)
	def(&o.CallGrace, DefaultCallGrace)
	def(&o.CloseGrace, DefaultCloseGrace)
	def(&o.MaxCallWait, DefaultMaxCallWait)
	if o.StderrBytes == 0 {
		o.StderrBytes = DefaultStderrBytes
	}
	if o.JVMArgs == nil {
		o.JVMArgs = DefaultJVMArgs
	}
	return o, nil
}
