package suite

import (
	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/kreactor/kreactor/internal/machinelease"
)

// machine is the exclusive machine lease process 1 holds across a suite's
// serial block (the specs Alone marks run one after another there, after
// every parallel spec): taken by the first of them, given back at the next
// parallel spec or the suite's end, so the block drains the other
// processes on the machine once rather than once per spec. Ginkgo's spec
// goroutine only.
var machine *machinelease.Lease

// holdMachine is every spec's first BeforeEach (Run): a spec that runs alone
// (Serial, from Alone) takes the machine lease exclusively, any other spec
// shared, until it ends. Other harness processes on the machine (another
// subject's or target's run, `make unit`, suite compilation: see
// machinelease) take it too, so a spec that judges CPU or timing has the
// cores to itself across all of them, not only within its Ginkgo run.
func holdMachine(ctx ginkgo.SpecContext) {
	exclusive := ginkgo.CurrentSpecReport().IsSerial
	if machine != nil {
		if exclusive {
			return
		}
		releaseMachine()
	}
	l, err := machinelease.Acquire(ctx, "", exclusive)
	gomega.Expect(err).NotTo(gomega.HaveOccurred(), "the machine lease (KREACTOR_MACHINE_LEASE=off runs without it)")
	if exclusive {
		machine = l
		return
	}
	ginkgo.DeferCleanup(l.Release)
}

// releaseMachine gives back the exclusive lease of a serial block, if held.
func releaseMachine() {
	if machine != nil {
		_ = machine.Release()
		machine = nil
	}
}
