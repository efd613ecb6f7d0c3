package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/kreactor/kreactor/internal/machinelease"
)

// runLease runs a command holding the machine lease (package machinelease):
// shared by default, as `make unit` and suite compilation take it, so a
// spec that judges CPU or timing in another run waits until the command
// ends. The command's exit status is kreactor's. The command runs with
// KREACTOR_MACHINE_LEASE=off: it holds the lease as a whole, so what it
// starts (a test binary running a Ginkgo suite) must not wait for the lease
// again, which an exclusive acquirer would do forever.
func runLease(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("lease", "[-exclusive] -- COMMAND [ARG...]", stderr)
	exclusive := fs.Bool("exclusive", false, "take the lease exclusively (as a spec that judges CPU or timing does)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return errUsage
	}
	argv := fs.Args() // what follows the flags (and "--") is the command
	if len(argv) == 0 {
		return badFlag(fs, "no command: want -- COMMAND [ARG...]")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	l, err := machinelease.Acquire(ctx, "", *exclusive)
	if err != nil {
		return err
	}
	defer l.Release()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	cmd.Env = append(os.Environ(), machinelease.EnvPath+"="+machinelease.Off)
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exitStatus(exit.ExitCode())
	}
	if err != nil {
		return fmt.Errorf("lease: %w", err)
	}
	return nil
}

// exitStatus is a command's non-zero exit status, passed on by main.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }
