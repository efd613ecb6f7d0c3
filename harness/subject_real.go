package harness

// The real clients as subjects: Apache Kafka's Java consumer from
// kafka-clients (package harness/subjects/java, a JVM per consumer) and
// franz-go's kgo (package harness/subjects/kgo, in this process). They are
// evidence, not models: the report shows them next to the reactor and the
// baseline, and its expectation check never requires them to pass a
// regression (reports.Check's evidence subjects).

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"strings"

	"github.com/onsi/ginkgo/v2"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/harness/subjects/java"
	"github.com/kreactor/kreactor/harness/subjects/kgo"
	"github.com/kreactor/kreactor/reports"
)

// Names of the real-client subjects.
const (
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

// VersionKafkaClients is the Versioned key of the kafka-clients release
// (reports.Provenance.KafkaClients; the report's column variant).
const VersionKafkaClients = "kafka-clients"

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
// JVM cannot run (Config.Dial: an in-process dialer) is ErrNotSupported,
// so the spec reports n/a.
func (j Java) New(cfg consumer.Config) (Consumer, error) {
	if cfg.Dial != nil {
		return nil, fmt.Errorf("%w: subject %s: Config.Dial (an in-process dialer, e.g. a client-side response delay) cannot be used by a JVM", ErrNotSupported, j.Name())
	}
	c, err := j.sub().New(cfg)
	if err != nil {
		return nil, HarnessError(err)
	}
	return javaConsumer{c}, nil
}

// NewShare starts a KafkaShareConsumer (subject java only).
func (j Java) NewShare(cfg consumer.ShareConfig) (ShareConsumer, error) {
	return j.newShare(cfg, nil)
}

// NewExplicitShare starts a KafkaShareConsumer in explicit acknowledgement
// mode (share.acknowledgement.mode=explicit, kafka-clients 4.1+).
func (j Java) NewExplicitShare(cfg consumer.ShareConfig) (ShareConsumer, error) {
	return j.newShare(cfg, map[string]string{"share.acknowledgement.mode": "explicit"})
}

func (j Java) newShare(cfg consumer.ShareConfig, extra map[string]string) (ShareConsumer, error) {
	if j.Classic {
		return nil, fmt.Errorf("%w: subject %s: the share consumer does not use group.protocol; subject %s runs it", ErrNotSupported, j.Name(), SubjectJava)
	}
	if cfg.Dial != nil {
		return nil, fmt.Errorf("%w: subject %s: ShareConfig.Dial cannot be used by a JVM", ErrNotSupported, j.Name())
	}
	sub := j.sub()
	if len(extra) > 0 {
		sub.Extra = maps.Clone(extra)
	}
	c, err := sub.NewShare(cfg)
	if err != nil {
		return nil, HarnessError(err)
	}
	return javaShareConsumer{c}, nil
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
	return map[string]string{VersionKafkaClients: v, "group.protocol": proto}
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
func (Kgo) New(cfg consumer.Config) (Consumer, error) {
	c, err := kgo.Subject{}.New(cfg)
	if err != nil {
		return nil, unsupported(err)
	}
	return c, nil
}

// NewShare builds a kgo share consumer.
func (Kgo) NewShare(cfg consumer.ShareConfig) (ShareConsumer, error) {
	c, err := kgo.Subject{}.NewShare(cfg)
	if err != nil {
		return nil, unsupported(err)
	}
	return c, nil
}

// unsupported keeps a kgo *UnsupportedError (a setting outside kgo's
// limits) matching ErrNotSupported, so the spec reports n/a.
func unsupported(err error) error {
	var ue *kgo.UnsupportedError
	if errors.As(err, &ue) && !errors.Is(err, ErrNotSupported) {
		return fmt.Errorf("%w: %w", ErrNotSupported, err)
	}
	return err
}

// Versions reports the franz-go version kgo is built from, and what it
// runs (Description).
func (Kgo) Versions() map[string]string {
	return map[string]string{"kgo": kgo.FranzVersion(), "kgo.protocol": "consumer (KIP-848, ServerSideBalancer)"}
}

// HarnessError records on the running spec that err, a failure of the
// harness rather than of the subject (the java driver crashed, hung or
// rejected a command: *java.DriverError, java.ErrBadCommand; or Java threw
// because the harness broke the API's contract: java.ErrMisuse), happened:
// the report's check fails on it for every subject, the real clients
// included (reports.EntryHarnessError). Other errors, and calls outside a
// running spec, record nothing. It returns err.
func HarnessError(err error) error {
	if err == nil || !inSpec() {
		return err
	}
	var de *java.DriverError
	if errors.As(err, &de) || errors.Is(err, java.ErrBadCommand) || errors.Is(err, java.ErrMisuse) {
		ginkgo.AddReportEntry(reports.EntryHarnessError, []string{err.Error()}, ginkgo.ReportEntryVisibilityNever)
	}
	return err
}

// javaConsumer notes the driver's failures (HarnessError) on every
// application call; the java consumer's optional abilities (CPUSampler,
// SelectCounter) stay visible through Unwrap.
type javaConsumer struct{ *java.Consumer }

// Unwrap returns the java consumer.
func (c javaConsumer) Unwrap() Consumer { return c.Consumer }

func (c javaConsumer) Subscribe(topics ...string) error {
	return HarnessError(c.Consumer.Subscribe(topics...))
}
func (c javaConsumer) Assign(tps ...TopicPartition) error {
	return HarnessError(c.Consumer.Assign(tps...))
}
func (c javaConsumer) Pause(tps ...TopicPartition) error {
	return HarnessError(c.Consumer.Pause(tps...))
}
func (c javaConsumer) Resume(tps ...TopicPartition) error {
	return HarnessError(c.Consumer.Resume(tps...))
}
func (c javaConsumer) Poll(ctx context.Context) ([]Record, error) {
	recs, err := c.Consumer.Poll(ctx)
	return recs, HarnessError(err)
}
func (c javaConsumer) CommitSync(ctx context.Context) error {
	return HarnessError(c.Consumer.CommitSync(ctx))
}
func (c javaConsumer) CommitAsync(cb func(error)) {
	c.Consumer.CommitAsync(func(err error) { cb(HarnessError(err)) })
}
func (c javaConsumer) Close(ctx context.Context) error {
	return HarnessError(c.Consumer.Close(ctx))
}

// javaShareConsumer is javaConsumer for KafkaShareConsumer.
type javaShareConsumer struct{ *java.ShareConsumer }

// Unwrap returns the java share consumer.
func (c javaShareConsumer) Unwrap() ShareConsumer { return c.ShareConsumer }

func (c javaShareConsumer) Subscribe(topics ...string) error {
	return HarnessError(c.ShareConsumer.Subscribe(topics...))
}
func (c javaShareConsumer) Poll(ctx context.Context) ([]ShareRecord, error) {
	recs, err := c.ShareConsumer.Poll(ctx)
	return recs, HarnessError(err)
}
func (c javaShareConsumer) Acknowledge(r ShareRecord, typ consumer.AcknowledgeType) error {
	return HarnessError(c.ShareConsumer.Acknowledge(r, typ))
}
func (c javaShareConsumer) CommitSync(ctx context.Context) (map[TopicPartition]error, error) {
	res, err := c.ShareConsumer.CommitSync(ctx)
	return res, HarnessError(err)
}
func (c javaShareConsumer) CommitAsync() error {
	return HarnessError(c.ShareConsumer.CommitAsync())
}
func (c javaShareConsumer) Close(ctx context.Context) error {
	return HarnessError(c.ShareConsumer.Close(ctx))
}
