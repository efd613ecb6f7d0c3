package machinelease

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// EnvPath names the lease file; "off" disables the lease (Acquire returns
// a no-op release at once).
const EnvPath = "KREACTOR_MACHINE_LEASE"

// Off is EnvPath's value that disables the lease.
const Off = "off"

// PollInterval is how often a waiting acquirer retries (LOCK_NB), in ms
// granularity: short against the specs' seconds-long windows, long enough
// that a waiting process costs no measurable CPU.
const PollInterval = 10 * time.Millisecond

// Path is the lease file in use: $KREACTOR_MACHINE_LEASE, else
// $TMPDIR/kreactor-machine.lease; "" when the lease is off.
func Path() string {
	switch p := os.Getenv(EnvPath); p {
	case Off:
		return ""
	case "":
		return filepath.Join(os.TempDir(), "kreactor-machine.lease")
	default:
		return p
	}
}

// Lease is a held lease; Release gives it back.
type Lease struct {
	f         *os.File // nil when the lease is off
	Exclusive bool
	// Waited is how long Acquire waited for the lease.
	Waited time.Duration
}

// Release gives the lease back. Safe on a nil or released Lease.
func (l *Lease) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the descriptor drops the flock
	l.f = nil
	return err
}

// Acquire takes the lease at path (Path() when path is ""; a no-op when the
// lease is off), shared or exclusive, waiting until it is granted or ctx
// ends. Errors: the lease file cannot be opened (it names the path), or
// ctx's error wrapped with the path and how long it waited.
func Acquire(ctx context.Context, path string, exclusive bool) (*Lease, error) {
	if path == "" {
		if path = Path(); path == "" {
			return &Lease{Exclusive: exclusive}, nil
		}
	}
	began := time.Now()
	turnstile, err := lockFile(ctx, path+".turnstile", syscall.LOCK_EX)
	if err != nil {
		return nil, fmt.Errorf("machine lease %s: %w (waited %v)", path, err, time.Since(began).Round(time.Millisecond))
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	f, err := lockFile(ctx, path, how)
	_ = turnstile.Close()
	if err != nil {
		return nil, fmt.Errorf("machine lease %s: %w (waited %v)", path, err, time.Since(began).Round(time.Millisecond))
	}
	return &Lease{f: f, Exclusive: exclusive, Waited: time.Since(began)}, nil
}

// lockFile opens path (creating it) and flocks it with how, polling.
func lockFile(ctx context.Context, path string, how int) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, err
	}
	t := time.NewTicker(PollInterval)
	defer t.Stop()
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			_ = f.Close()
			return nil, fmt.Errorf("flock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}
