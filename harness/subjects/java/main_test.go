package java

import (
	"fmt"
	"os"
	"os/exec"
	"testing"

	"go.uber.org/goleak"
)

// EnvRequireJava = 1 turns "java or mvn missing" from a skip into a
// failure (CI on a machine that must have them).
const EnvRequireJava = "KREACTOR_REQUIRE_JAVA"

// TestMain runs the tests, then fails the run if a driver process outlived
// them (this package's bookkeeping, and independently /proc's list of our
// child processes) or a goroutine leaked.
func TestMain(m *testing.M) {
	code := m.Run()
	if err := CheckNoLiveDrivers(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	if kids, err := ChildProcesses(); err != nil {
		fmt.Fprintln(os.Stderr, "listing child processes:", err)
		code = 1
	} else {
		for _, k := range kids {
			if k.Comm == "java" {
				fmt.Fprintf(os.Stderr, "leaked java child process: pid %d (state %s)\n", k.PID, k.State)
				code = 1
			}
		}
	}
	if err := goleak.Find(); err != nil {
		fmt.Fprintln(os.Stderr, "goleak:", err)
		code = 1
	}
	os.Exit(code)
}

// requireJava skips t when java or mvn is missing, unless
// KREACTOR_REQUIRE_JAVA=1, which makes it a failure.
func requireJava(t testing.TB) {
	t.Helper()
	var missing []string
	for _, tool := range []string{"java", "mvn"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) == 0 {
		return
	}
	msg := fmt.Sprintf("java subject tests need %v on PATH (JDK 17+, Maven 3.6.3+); set %s=1 to fail instead of skip", missing, EnvRequireJava)
	if os.Getenv(EnvRequireJava) == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}
