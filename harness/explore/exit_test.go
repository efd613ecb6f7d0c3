package explore

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestReplayExitStatus runs TestExplore's replay in a child process (what
// `kreactor explore -replay` runs) and checks its exit status: non-zero
// with an ANOMALIES line when a replay shows an anomaly (kgo's
// share-ack-lost finding, in a bubble: 10 of 10 replays when measured; the
// baseline's wall-clock findings did not always show under -race), zero
// when none does (a fixed finding on the reactor).
func TestReplayExitStatus(t *testing.T) {
	if *flagSubject != "" || *flagReplay != "" {
		t.Skip("inside an exploration")
	}
	child := func(file string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestExplore$", "-test.count=1", "-test.v", "-explore.replay="+file, "-explore.replays=1")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := child("findings/kgo-share-ack-lost-seed394.json")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || !strings.Contains(out, "ANOMALIES: 1 of 1 replays") || !strings.Contains(out, "RATE: share-ack-lost shown in 1/1") {
		t.Fatalf("replay of a finding that shows its anomaly: %v, want a non-zero exit with ANOMALIES and RATE lines\n%s", err, out)
	}
	out, err = child("testdata/reactor-callback-twice-seed1744.json")
	if err != nil || strings.Contains(out, "ANOMALIES") {
		t.Fatalf("replay of a fixed finding: %v, want exit 0 and no ANOMALIES line\n%s", err, out)
	}
}
