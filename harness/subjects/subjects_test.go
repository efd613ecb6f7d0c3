package subjects

import (
	"strings"
	"testing"

	"github.com/kreactor/kreactor/harness"
)

func TestSelected(t *testing.T) {
	t.Setenv(Env, "")
	if s, err := Selected(); err != nil || s.Name() != "reactor" {
		t.Fatalf("default subject = %v, %v, want reactor", s, err)
	}
	t.Setenv(Env, " baseline ")
	if s, err := Selected(); err != nil || s.Name() != "baseline" {
		t.Fatalf("KREACTOR_SUBJECT=' baseline ': %v, %v", s, err)
	}
	t.Setenv(Env, "nope")
	if _, err := Selected(); err == nil || !strings.Contains(err.Error(), `KREACTOR_SUBJECT="nope"`) || !strings.Contains(err.Error(), "baseline, java, java-classic, kgo, null, reactor") {
		t.Fatalf("unknown subject error = %v, want one naming the value and listing baseline, java, java-classic, kgo, null, reactor", err)
	}
	// The real clients, with the versions the provenance records.
	for name, key := range map[string]string{SubjectJava: harness.VersionKafkaClients, SubjectJavaClassic: harness.VersionKafkaClients, SubjectKgo: "kgo"} {
		t.Setenv(Env, name)
		s, err := Selected()
		if err != nil || s.Name() != name {
			t.Fatalf("KREACTOR_SUBJECT=%s: %v, %v", name, s, err)
		}
		v, ok := s.(harness.Versioned)
		if !ok || v.Versions()[key] == "" {
			t.Fatalf("subject %s: Versions %v, want %q set", name, v, key)
		}
	}
	t.Setenv("KREACTOR_JAVA_CLIENTS", "4.1.2")
	if v := (Java{}).Versions()[harness.VersionKafkaClients]; v != "4.1.2" {
		t.Fatalf("java with KREACTOR_JAVA_CLIENTS=4.1.2 reports kafka-clients %q", v)
	}
	t.Setenv("KREACTOR_JAVA_CLASSPATH", "/x/y/kafka-clients-4.5.0-SNAPSHOT.jar:/x/lz4.jar")
	if v := (Java{}).Versions()[harness.VersionKafkaClients]; v != "local:kafka-clients-4.5.0-SNAPSHOT.jar" {
		t.Fatalf("java with a classpath reports kafka-clients %q, want local:<jar name>", v)
	}
}

// Every subject is found by its own name, and the map Lookup reads is new on
// each call: changing what Names returned changes nothing.
func TestLookup(t *testing.T) {
	names := Names()
	for _, n := range names {
		if s, ok := Lookup(n); !ok || s.Name() != n {
			t.Errorf("Lookup(%q) = %v, %v", n, s, ok)
		}
	}
	names[0] = "changed"
	if Names()[0] == "changed" {
		t.Fatal("Names returned the registry's own slice")
	}
	if _, ok := Lookup("changed"); ok {
		t.Fatal("Lookup found a name nobody declared")
	}
}
