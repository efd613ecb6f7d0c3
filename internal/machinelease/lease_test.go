package machinelease

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// flock binds to the open file description, so two Acquires in one process
// contend as two processes would.

func TestSharedHoldersCoexist(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lease")
	a, err := Acquire(context.Background(), path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	b, err := Acquire(ctx, path, false)
	if err != nil {
		t.Fatalf("a second shared holder: %v", err)
	}
	_ = b.Release()
}

func TestExclusiveWaitsForShared(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lease")
	shared, err := Acquire(context.Background(), path, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*PollInterval)
	defer cancel()
	if _, err := Acquire(ctx, path, true); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("exclusive beside a shared holder: %v, want the context's deadline", err)
	}
	_ = shared.Release()
	ex, err := Acquire(context.Background(), path, true)
	if err != nil {
		t.Fatalf("exclusive after the shared holder left: %v", err)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 5*PollInterval)
	defer cancel2()
	if _, err := Acquire(ctx2, path, false); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("shared beside an exclusive holder: %v, want the context's deadline", err)
	}
	_ = ex.Release()
}

// A waiting exclusive acquirer keeps new shared ones out (the turnstile),
// and gets the lease once the shared holder before it leaves.
func TestWaitingExclusiveBlocksNewShared(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lease")
	first, err := Acquire(context.Background(), path, false)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *Lease, 1)
	go func() {
		l, err := Acquire(context.Background(), path, true)
		if err != nil {
			t.Error(err)
		}
		got <- l
	}()
	// Wait until the exclusive acquirer holds the turnstile.
	for deadline := time.Now().Add(10 * time.Second); ; {
		if tf, err := lockFile(ctxWithTimeout(t, PollInterval), path+".turnstile", syscall.LOCK_EX); err == nil {
			_ = tf.Close()
			if time.Now().After(deadline) {
				t.Fatal("the exclusive acquirer never took the turnstile")
			}
			time.Sleep(PollInterval)
			continue
		}
		break
	}
	if _, err := Acquire(ctxWithTimeout(t, 5*PollInterval), path, false); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("new shared holder while an exclusive one waits: %v, want the context's deadline", err)
	}
	_ = first.Release()
	select {
	case l := <-got:
		if l == nil || !l.Exclusive || l.Waited <= 0 {
			t.Fatalf("exclusive lease %+v", l)
		}
		_ = l.Release()
	case <-time.After(10 * time.Second):
		t.Fatal("the exclusive acquirer was not granted after the shared holder left")
	}
}

func TestOff(t *testing.T) {
	t.Setenv(EnvPath, Off)
	if Path() != "" {
		t.Fatalf("Path() = %q with %s=off", Path(), EnvPath)
	}
	l, err := Acquire(context.Background(), "", true)
	if err != nil || l.Release() != nil {
		t.Fatalf("off: %v", err)
	}
}

func TestBadPath(t *testing.T) {
	_, err := Acquire(context.Background(), filepath.Join(t.TempDir(), "missing-dir", "lease"), false)
	if err == nil || !strings.Contains(err.Error(), "missing-dir") {
		t.Fatalf("unopenable path: %v, want an error naming it", err)
	}
}

func ctxWithTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
