package scenario

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/kreactor/kreactor/harness/suite"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Every shipped scenario file loads, and its id is one suite.Spec accepts
// (an id that is not used to crash the Ginkgo tree).
func TestShippedScenariosLoad(t *testing.T) {
	ls, err := LoadDir("../../specs/scenarios")
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) < 30 {
		t.Fatalf("loaded %d scenarios, want at least 30", len(ls))
	}
	for _, l := range ls {
		if l.Err != nil {
			t.Errorf("%v", l.Err)
			continue
		}
		sc := l.Scenario
		if sc.Title == "" || len(sc.Covers) == 0 || len(sc.Steps) == 0 || len(sc.Expect) == 0 {
			t.Errorf("%s: incomplete: %+v", sc.File, sc)
		}
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%s: suite.Spec panics on its id: %v", sc.File, p)
				}
			}()
			suite.Spec(sc.ID, sc.Covers, "reactor", "kfake")
		}()
		if sc.Bound() > MaxTimeline {
			t.Errorf("%s: bound %s over MaxTimeline", sc.File, sc.Bound())
		}
	}
}

// A schedule is plain data: Format prints it as a file and Parse gives the
// same schedule back (the printed file is a fixpoint).
func TestFormatRoundTrip(t *testing.T) {
	ls, err := LoadDir("../../specs/scenarios")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		if l.Err != nil {
			continue
		}
		b1, err := Format(l.Scenario)
		if err != nil {
			t.Fatalf("%s: Format: %v", l.File, err)
		}
		sc2, err := Parse(l.File, b1)
		if err != nil {
			t.Fatalf("%s: the formatted file does not parse: %v\n%s", l.File, err, b1)
		}
		b2, err := Format(sc2)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b1, b2) {
			t.Errorf("%s: Format is not a fixpoint:\n%s\n---\n%s", l.File, b1, b2)
		}
		if sc2.ID != l.Scenario.ID || len(sc2.Steps) != len(l.Scenario.Steps) || len(sc2.Expect) != len(l.Scenario.Expect) || sc2.Bound() != l.Scenario.Bound() {
			t.Errorf("%s: round trip changed the scenario", l.File)
		}
	}
}

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// The suite never loses other scenario specs because one file is bad: each
// file's load result stands alone, and two files with one id fail only the
// second (they used to collapse every scenario spec into one
// failing load spec).
func TestLoadDirKeepsEveryFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.yaml", good)
	writeFile(t, dir, "b.yaml", strings.Replace(good, "expect:", "expekt:", 1))
	writeFile(t, dir, "c.yaml", good) // same id as a.yaml
	ls, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 3 {
		t.Fatalf("%d results, want 3", len(ls))
	}
	if ls[0].Err != nil || ls[0].Scenario == nil {
		t.Fatalf("a.yaml: %v", ls[0].Err)
	}
	var e *Error
	if !errors.As(ls[1].Err, &e) || e.Key != "expekt" {
		t.Fatalf("b.yaml: %v", ls[1].Err)
	}
	if !errors.As(ls[2].Err, &e) || e.Key != "id" || !strings.Contains(e.Msg, "duplicate id") || !strings.Contains(e.Msg, "a.yaml") || e.Line != 2 {
		t.Fatalf("c.yaml: %v, want a duplicate id error naming a.yaml at line 2", ls[2].Err)
	}
}

// A FIFO is refused before it is opened for reading: no hang waiting for a
// writer.
func TestLoadRefusesFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo.yaml")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := Load(p); done <- err }()
	select {
	case err := <-done:
		if !isNotRegular(err) || !strings.Contains(err.Error(), p) {
			t.Fatalf("err = %v, want a not-a-regular-file error naming the path", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Load of a FIFO hangs")
	}
}

// /dev/zero reads without end: it is refused as a device, without a read.
func TestLoadRefusesDevice(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err := Load("/dev/zero")
	if !isNotRegular(err) || !strings.Contains(err.Error(), "/dev/zero") {
		t.Fatalf("err = %v", err)
	}
	if _, err := Load(t.TempDir()); !isNotRegular(err) {
		t.Fatalf("a directory: %v", err)
	}
}

// A file over MaxFileBytes is refused with the limit's name; Parse refuses
// oversized data too.
func TestLoadRefusesLargeFile(t *testing.T) {
	p := writeFile(t, t.TempDir(), "big.yaml", good+"#"+strings.Repeat("x", MaxFileBytes)+"\n")
	_, err := Load(p)
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Msg, "MaxFileBytes") || e.File != p {
		t.Fatalf("err = %v", err)
	}
	if _, err := Parse("big.yaml", make([]byte, MaxFileBytes+1)); err == nil || !strings.Contains(err.Error(), "MaxFileBytes") {
		t.Fatalf("Parse: %v", err)
	}
}

func TestLoadMissingFileNamesIt(t *testing.T) {
	_, err := Load("no/such/file.yaml")
	if err == nil || !strings.HasPrefix(err.Error(), "no/such/file.yaml: stat: ") || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v", err)
	}
}

// A file that cannot be read is named "FILE: ..." (no line, and no fake
// line 0): a symbolic link loop, a dangling link, a FIFO.
func TestLoadUnreadableFileForm(t *testing.T) {
	dir := t.TempDir()
	loop, dangling, fifo := filepath.Join(dir, "loop.yaml"), filepath.Join(dir, "dangling.yaml"), filepath.Join(dir, "fifo.yaml")
	if err := os.Symlink(loop, loop); err != nil {
		t.Skipf("symlink: %v", err)
	}
	if err := os.Symlink(filepath.Join(dir, "nothing.yaml"), dangling); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for file, want := range map[string]string{
		loop:     loop + ": stat: too many levels of symbolic links",
		dangling: dangling + ": stat: no such file or directory",
		fifo:     fifo + ": not a regular file (a FIFO)",
	} {
		_, err := Load(file)
		var e *Error
		if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), ":0:") {
			t.Errorf("%s: err = %v, want it to start with %q", file, err, want)
		}
	}
}
