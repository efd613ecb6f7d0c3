package explore

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// envSynthetic, set in a child's environment, installs a detector that
// always reports the anomaly "synthetic".
const envSynthetic = "KREACTOR_EXPLORE_SYNTHETIC_ANOMALY"

func init() {
	if os.Getenv(envSynthetic) != "" {
		testDetectors = append(testDetectors, func(*Trace) []Anomaly {
			return []Anomaly{{Name: "synthetic", Evidence: "installed by the exit status test"}}
		})
	}
}

// TestReplayExitStatus runs TestExplore's replay in a child process (what
// `kreactor explore -replay` runs) and checks its exit status: non-zero
// with an ANOMALIES line when a replay shows an anomaly (a detector the
// child installs; real findings show at a rate, kgo's share-ack-lost not
// under -race), zero when none does (a fixed finding on the reactor).
func TestReplayExitStatus(t *testing.T) {
	if *flagSubject != "" || *flagReplay != "" {
		t.Skip("inside an exploration")
	}
	child := func(file string, env ...string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestExplore$", "-test.count=1", "-test.v", "-explore.replay="+file, "-explore.replays=1")
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	// The child adds a detector that always finds "synthetic": what a
	// subject shows at some rate cannot make this test deterministic.
	out, err := child("testdata/reactor-callback-twice-seed1744.json", envSynthetic+"=1")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || !strings.Contains(out, "ANOMALIES: 1 of 1 replays") || !strings.Contains(out, "synthetic") {
		t.Fatalf("replay of a finding that shows its anomaly: %v, want a non-zero exit with ANOMALIES and RATE lines\n%s", err, out)
	}
	out, err = child("testdata/reactor-callback-twice-seed1744.json")
	if err != nil || strings.Contains(out, "ANOMALIES") {
		t.Fatalf("replay of a fixed finding: %v, want exit 0 and no ANOMALIES line\n%s", err, out)
	}
}
