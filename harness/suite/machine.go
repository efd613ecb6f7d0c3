package suite

import (
	"context"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/kreactor/kreactor/internal/machinelease"
)

// machine is the machine lease this process holds for the running spec
// (shared), or across a suite's serial block (exclusive: the specs Alone
// marks run one after another on process 1, after every parallel spec;
// taken by the first of them, given back at the next parallel spec or the
// suite's end, so the block drains the other processes on the machine once
// rather than once per spec). Ginkgo's spec goroutine only.
var machine *machinelease.Lease

// holdMachine runs before every spec (ReportBeforeEach, Run): a spec that
// runs alone (Serial, from Alone) takes the machine lease exclusively, any
// other spec shared. Other harness processes on the machine (another
// subject's or target's run, `make unit`, suite compilation: see
// machinelease) take it too, so a spec that judges CPU or timing has the
// cores to itself across all of them, not only within its Ginkgo run.
//
// It runs in a reporting node, before the spec's clock starts: the wait,
// which lasts as long as the holders before it (minutes behind `make
// unit`), counts neither against the spec's timeout nor in its run time.
func holdMachine(r ginkgo.SpecReport) {
	if r.State.Is(types.SpecStateSkipped | types.SpecStatePending | types.SpecStateFailureStates) {
		return
	}
	exclusive := r.IsSerial
	if machine != nil {
		if exclusive && machine.Exclusive {
			return
		}
		releaseMachine()
	}
	l, err := machinelease.Acquire(context.Background(), "", exclusive)
	if err != nil {
		ginkgo.Fail("the machine lease (KREACTOR_MACHINE_LEASE=off runs without it): " + err.Error())
	}
	machine = l
}

// afterSpec gives back a shared lease when its spec ends (ReportAfterEach);
// an exclusive one stays for the rest of the serial block.
func afterSpec(ginkgo.SpecReport) {
	if machine != nil && !machine.Exclusive {
		releaseMachine()
	}
}

// releaseMachine gives back the lease, if held.
func releaseMachine() {
	if machine != nil {
		_ = machine.Release()
		machine = nil
	}
}
