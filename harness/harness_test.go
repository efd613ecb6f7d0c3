package harness

import (
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
	"go.uber.org/goleak"

	"github.com/kreactor/kreactor/consumer"
	"github.com/kreactor/kreactor/managers"
)

// TestMain checks for leaked goroutines; Ginkgo's interrupt handler (started by
// TestTimelineSuite's RunSpecs) lives for the process by design.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/onsi/ginkgo/v2/internal/interrupt_handler.(*InterruptHandler).registerForInterrupts.func2"))
}

func TestSpecLabels(t *testing.T) {
	got := Spec("kafka-20253-coordinator-lost", []string{"KAFKA-20253", "P2"}, "reactor", "kfake")
	want := []string{"id:kafka-20253-coordinator-lost", "covers:KAFKA-20253", "covers:P2", "subject:reactor", "target:kfake"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("Spec labels = %v, want %v", got, want)
	}
	for _, bad := range []func(){
		func() { Spec("Bad/Id", []string{"P2"}, "reactor", "kfake") },
		func() { Spec("ok", nil, "reactor", "kfake") },
		func() { Spec("ok", []string{"P2,P3"}, "reactor", "kfake") },
		func() { Spec("ok", []string{"P2"}, "", "kfake") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("Spec accepted an invalid argument")
				}
			}()
			bad()
		}()
	}
}

func rec(p int32, off int64) consumer.Record {
	return consumer.Record{Topic: "t", Partition: p, Offset: off}
}

func TestCheckDelivery(t *testing.T) {
	tp0, tp1 := managers.TopicPartition{Topic: "t", Partition: 0}, managers.TopicPartition{Topic: "t", Partition: 1}
	want := map[managers.TopicPartition]int{tp0: 2, tp1: 1}
	d, err := CheckDelivery([]consumer.Record{rec(0, 0), rec(1, 0), rec(0, 1)}, want, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Next[tp0] != 2 || d.Next[tp1] != 1 {
		t.Fatalf("Next = %v", d.Next)
	}
	for name, recs := range map[string][]consumer.Record{
		"duplicate": {rec(0, 0), rec(0, 0), rec(0, 1), rec(1, 0)},
		"reordered": {rec(0, 1), rec(0, 0), rec(1, 0)},
		"gap":       {rec(0, 0), rec(1, 0)},
		"extra":     {rec(0, 0), rec(0, 1), rec(1, 0), rec(2, 0)},
	} {
		if _, err := CheckDelivery(recs, want, nil); err == nil {
			t.Errorf("%s: CheckDelivery accepted %v", name, recs)
		}
	}
	if _, err := CheckDelivery([]consumer.Record{rec(0, 5)}, map[managers.TopicPartition]int{tp0: 1}, map[managers.TopicPartition]int64{tp0: 5}); err != nil {
		t.Errorf("resuming at offset 5: %v", err)
	}
}

type fakeRecorder []Request

func (f fakeRecorder) Count(flt RequestFilter) int {
	n := 0
	for _, r := range f {
		if flt.Match(r) {
			n++
		}
	}
	return n
}
func (f fakeRecorder) Filter(RequestFilter) []Request { return nil }
func (f fakeRecorder) Mark() time.Time                { return time.Now() }

func TestWindowCounts(t *testing.T) {
	t0 := time.Unix(100, 0)
	r := fakeRecorder{
		{Key: kmsg.FindCoordinator, ClientID: "c", At: t0.Add(-time.Millisecond)}, // before
		{Key: kmsg.FindCoordinator, ClientID: "c", At: t0},                        // first instant: in
		{Key: kmsg.FindCoordinator, ClientID: "other", At: t0.Add(time.Second)},   // other client
		{Key: kmsg.Fetch, ClientID: "c", At: t0.Add(time.Second)},                 // other key
		{Key: kmsg.FindCoordinator, ClientID: "c", At: t0.Add(2 * time.Second)},   // end: out
	}
	w := Window{From: t0, To: t0.Add(2 * time.Second)}
	if got := CountIn(r, kmsg.FindCoordinator, "c", w); got != 1 {
		t.Errorf("CountIn = %d, want 1", got)
	}
	if got := RequestsIn(r, "c", w); got != 2 {
		t.Errorf("RequestsIn = %d, want 2", got)
	}
	if got := RateIn(r, kmsg.FindCoordinator, "c", w); got != 0.5 {
		t.Errorf("RateIn = %v, want 0.5/s", got)
	}
}

func TestSelectedSubject(t *testing.T) {
	t.Setenv(EnvSubject, "")
	if s := MustSelectSubject(); s.Name() != "reactor" {
		t.Fatalf("default subject = %s, want reactor", s.Name())
	}
	t.Setenv(EnvSubject, " baseline ")
	if s, err := SelectedSubject(); err != nil || s.Name() != "baseline" {
		t.Fatalf("KREACTOR_SUBJECT=' baseline ': %v, %v", s, err)
	}
	t.Setenv(EnvSubject, "nope")
	if _, err := SelectedSubject(); err == nil || !strings.Contains(err.Error(), `KREACTOR_SUBJECT="nope"`) || !strings.Contains(err.Error(), "baseline, java, java-classic, kgo, null, reactor") {
		t.Fatalf("unknown subject error = %v, want one naming the value and listing baseline, java, java-classic, kgo, null, reactor", err)
	}
	// The real clients, with the versions the provenance records.
	for name, key := range map[string]string{SubjectJava: VersionKafkaClients, SubjectJavaClassic: VersionKafkaClients, SubjectKgo: "kgo"} {
		t.Setenv(EnvSubject, name)
		s, err := SelectedSubject()
		if err != nil || s.Name() != name {
			t.Fatalf("KREACTOR_SUBJECT=%s: %v, %v", name, s, err)
		}
		v, ok := s.(Versioned)
		if !ok || v.Versions()[key] == "" {
			t.Fatalf("subject %s: Versions %v, want %q set", name, v, key)
		}
	}
	t.Setenv("KREACTOR_JAVA_CLIENTS", "4.1.2")
	if v := (Java{}).Versions()[VersionKafkaClients]; v != "4.1.2" {
		t.Fatalf("java with KREACTOR_JAVA_CLIENTS=4.1.2 reports kafka-clients %q", v)
	}
	t.Setenv("KREACTOR_JAVA_CLASSPATH", "/x/y/kafka-clients-4.5.0-SNAPSHOT.jar:/x/lz4.jar")
	if v := (Java{}).Versions()[VersionKafkaClients]; v != "local:kafka-clients-4.5.0-SNAPSHOT.jar" {
		t.Fatalf("java with a classpath reports kafka-clients %q, want local:<jar name>", v)
	}
}
