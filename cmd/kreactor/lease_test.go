package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kreactor/kreactor/internal/machinelease"
)

func TestLeasePassesTheExitStatus(t *testing.T) {
	t.Setenv(machinelease.EnvPath, filepath.Join(t.TempDir(), "lease"))
	var out, errb bytes.Buffer
	if st := run([]string{"lease", "--", "sh", "-c", "echo $" + machinelease.EnvPath + "; exit 3"}, &out, &errb); st != 3 || out.String() != machinelease.Off+"\n" {
		t.Fatalf("status %d, stdout %q, stderr %q: want 3, and the lease off inside the command", st, out.String(), errb.String())
	}
	if st := run([]string{"lease"}, &out, &errb); st != 2 || !strings.Contains(errb.String(), "no command") {
		t.Fatalf("no command: status %d, stderr %q", st, errb.String())
	}
}

// While the command runs it holds the lease shared: an exclusive acquirer
// waits.
func TestLeaseHeldWhileTheCommandRuns(t *testing.T) {
	dir := t.TempDir()
	path, started, stop := filepath.Join(dir, "lease"), filepath.Join(dir, "started"), filepath.Join(dir, "stop")
	t.Setenv(machinelease.EnvPath, path)
	done := make(chan int)
	go func() {
		var out, errb bytes.Buffer
		done <- run([]string{"lease", "--", "sh", "-c", `touch "$0"; until [ -e "$1" ]; do sleep 0.05; done`, started, stop}, &out, &errb)
	}()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := machinelease.Acquire(ctx, path, true); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("exclusive while the leased command runs: %v, want the deadline", err)
	}
	if err := os.WriteFile(stop, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if st := <-done; st != 0 {
		t.Fatalf("status %d", st)
	}
	l, err := machinelease.Acquire(context.Background(), path, true)
	if err != nil {
		t.Fatalf("exclusive after the command ended: %v", err)
	}
	_ = l.Release()
}
