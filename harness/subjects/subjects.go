package subjects

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"strings"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/internal/byname"
	"github.com/kreactor/kreactor/harness/subjects/java"
	"github.com/kreactor/kreactor/harness/subjects/kgo"
	"github.com/kreactor/kreactor/harness/subjects/ours"
)

// Env is the environment variable that names the subject a suite runs;
// the default is Default.
const Env = "KREACTOR_SUBJECT"

// Names of the subjects.
const (
	// Default is the subject used when Env is unset: the reactor.
	Default = Reference
	// Reference is the subject every catalogue item must pass on (the
	// report's expectation check names it first): the reactor.
	Reference = "reactor"
	// SubjectJava is kafka-clients' KafkaConsumer with
	// group.protocol=consumer (KIP-848, the protocol the reactor speaks)
	// and KafkaShareConsumer.
	SubjectJava = "java"
	// SubjectJavaClassic is KafkaConsumer with group.protocol=classic (the
	// ClassicKafkaConsumer, no background network thread); it has no share
	// consumer of its own (the share consumer is the same class on either
	// setting: subject java runs it).
	SubjectJavaClassic = "java-classic"
	// SubjectKgo is franz-go's kgo on the KIP-848 protocol, and its share
	// consumer.
	SubjectKgo = "kgo"
)

// known returns the subjects by name, a new map on each call: ours
// (reactor, baseline, null) and the real clients (java, java-classic, kgo).
func known() map[string]harness.Subject {
	all := []harness.Subject{ours.Reactor{}, ours.Baseline{}, ours.Null{}, Java{}, Java{Classic: true}, Kgo{}}
	m := make(map[string]harness.Subject, len(all))
	for _, s := range all {
		m[s.Name()] = s
	}
	return m
}

// Lookup returns the subject named name, or false.
func Lookup(name string) (harness.Subject, bool) {
	s, ok := known()[name]
	return s, ok
}

// Names returns the known subjects' names, sorted.
func Names() []string { return byname.Names(known()) }

// Selected returns the subject named by $KREACTOR_SUBJECT (surrounding
// space trimmed; unset or empty means Default). Error: the name is not
// known; the message names the variable, the value and every known name.
func Selected() (harness.Subject, error) { return byname.FromEnv(Env, Default, known()) }

// Java is a real-client subject: kafka-clients in a driver process per
// consumer. Options choose the release; nil means java.DefaultOptions(),
// read at each use (KREACTOR_JAVA_CLIENTS, KREACTOR_JAVA_CLASSPATH).
// Classic selects group.protocol=classic.
type Java struct {
	Options *java.Options
	Classic bool
}

func (j Java) options() java.Options {
	if j.Options != nil {
		return *j.Options
	}
	return java.DefaultOptions()
}

// Name is "java" or "java-classic".
func (j Java) Name() string {
	if j.Classic {
		return SubjectJavaClassic
	}
	return SubjectJava
}

func (j Java) sub() java.Subject {
	s := java.Subject{Options: j.options()}
	if j.Classic {
		s.Extra = map[string]string{"group.protocol": "classic"}
	}
	return s
}

// New starts a KafkaConsumer in its own driver process. A configuration a
// JVM cannot run (Config.Dial: an in-process dialer) is
// errors.ErrUnsupported, so the spec reports n/a. A failure of the driver
// is a harness error (IsHarnessError).
func (j Java) New(cfg consumer.Config) (harness.Consumer, error) {
	if cfg.Dial != nil {
		return nil, fmt.Errorf("%w: subject %s: Config.Dial (an in-process dialer, e.g. a client-side response delay) cannot be used by a JVM", errors.ErrUnsupported, j.Name())
	}
	c, err := j.sub().New(cfg)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// NewShare starts a KafkaShareConsumer (subject java only).
func (j Java) NewShare(cfg consumer.ShareConfig) (harness.ShareConsumer, error) {
	return j.newShare(cfg, nil)
}

// NewExplicitShare starts a KafkaShareConsumer in explicit acknowledgement
// mode (share.acknowledgement.mode=explicit, kafka-clients 4.1+).
func (j Java) NewExplicitShare(cfg consumer.ShareConfig) (harness.ShareConsumer, error) {
	return j.newShare(cfg, map[string]string{"share.acknowledgement.mode": "explicit"})
}

func (j Java) newShare(cfg consumer.ShareConfig, extra map[string]string) (harness.ShareConsumer, error) {
	if j.Classic {
		return nil, fmt.Errorf("%w: subject %s: the share consumer does not use group.protocol; subject %s runs it", errors.ErrUnsupported, j.Name(), SubjectJava)
	}
	if cfg.Dial != nil {
		return nil, fmt.Errorf("%w: subject %s: ShareConfig.Dial cannot be used by a JVM", errors.ErrUnsupported, j.Name())
	}
	sub := j.sub()
	if len(extra) > 0 {
		sub.Extra = maps.Clone(extra)
	}
	c, err := sub.NewShare(cfg)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Versions reports the kafka-clients release ("4.4.0"), or
// "local:<jar file name>" for KREACTOR_JAVA_CLASSPATH (the jar whose name
// starts with kafka-clients, else the first), and the group protocol.
func (j Java) Versions() map[string]string {
	v := JavaClientsVersion(j.options())
	proto := "consumer"
	if j.Classic {
		proto = "classic"
	}
	return map[string]string{harness.VersionKafkaClients: v, "group.protocol": proto}
}

// JavaClientsVersion is what Versions reports for o.
func JavaClientsVersion(o java.Options) string {
	if len(o.Classpath) > 0 {
		name := filepath.Base(o.Classpath[0])
		for _, p := range o.Classpath {
			if b := filepath.Base(p); strings.HasPrefix(b, "kafka-clients") {
				name = b
				break
			}
		}
		return "local:" + name
	}
	if o.Clients == "" {
		return java.DefaultClients
	}
	return o.Clients
}

// Kgo is the real-client subject "kgo": franz-go's kgo in this process, on
// the KIP-848 protocol (kgo.ServerSideBalancer) and its share consumer.
type Kgo struct{}

// Name is "kgo".
func (Kgo) Name() string { return SubjectKgo }

// New builds a kgo consumer (it sends nothing before Subscribe or Assign).
func (Kgo) New(cfg consumer.Config) (harness.Consumer, error) {
	c, err := kgo.Subject{}.New(cfg)
	if err != nil {
		return nil, unsupported(err)
	}
	return c, nil
}

// NewShare builds a kgo share consumer.
func (Kgo) NewShare(cfg consumer.ShareConfig) (harness.ShareConsumer, error) {
	c, err := kgo.Subject{}.NewShare(cfg)
	if err != nil {
		return nil, unsupported(err)
	}
	return c, nil
}

// unsupported keeps a kgo *UnsupportedError (a setting outside kgo's
// limits) matching errors.ErrUnsupported, so the spec reports n/a.
func unsupported(err error) error {
	var ue *kgo.UnsupportedError
	if errors.As(err, &ue) && !errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("%w: %w", errors.ErrUnsupported, err)
	}
	return err
}

// Versions reports the franz-go version kgo is built from, and what it
// runs (Description).
func (Kgo) Versions() map[string]string {
	return map[string]string{"kgo": kgo.FranzVersion(), "kgo.protocol": "consumer (KIP-848, ServerSideBalancer)"}
}

// IsHarnessError reports whether err is a failure of the harness rather
// than of the subject: the java driver crashed, hung or rejected a command
// (*java.DriverError, java.ErrBadCommand), or Java threw because the
// harness broke the API's contract (java.ErrMisuse). The report's check
// fails on such an error for every subject, the real clients included
// (harness/suite records it as reports.EntryHarnessError).
func IsHarnessError(err error) bool {
	var de *java.DriverError
	return errors.As(err, &de) || errors.Is(err, java.ErrBadCommand) || errors.Is(err, java.ErrMisuse)
}

// CheckReaped returns an error naming the java subject's driver processes
// that were started and never reaped (java.CheckNoLiveDrivers), or nil.
func CheckReaped() error { return java.CheckNoLiveDrivers() }
