package suite

import (
	"slices"

	"github.com/onsi/ginkgo/v2"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/subjects"
)

// What a spec judges that another spec running beside it could change.
// Specs that only wait (for a timeout, a retry schedule, a broker's answer)
// run in parallel (`ginkgo -p`); a spec that judges one of these runs
// alone, after the parallel specs of its suite (Ginkgo's Serial), and with
// the machine lease held exclusively (holdMachine, internal/machinelease),
// so the processes beside it, in its Ginkgo run or in any other harness run
// on the machine, are idle and its figure is the subject's own.
const (
	// JudgesCPU: the spec bounds a consumer's CPU in a window by an idle
	// window or an absolute budget (measure.ReadCPU, measure.JudgeCPU, a scenario file's
	// cpu expectation).
	JudgesCPU = "cpu"
	// JudgesTiming: the spec bounds how promptly the subject does
	// something under a steady load it generates itself (thousands of calls
	// or loop steps in a time bound, the live heap per loop step), which
	// other busy processes on the same cores stretch.
	JudgesTiming = "timing"
)

// LabelJudges prefixes the label Alone adds ("judges:cpu"); the plan
// (kreactor plan) reads it to schedule such units alone.
const LabelJudges = "judges:"

// Alone returns the decorators of a spec that judges what, e.g.
//
//	It("...", suite.Spec(...), suite.Alone(suite.JudgesCPU), func(ctx SpecContext) {...})
//
// Ginkgo's Serial (the spec runs on process 1 after every parallel spec of
// the suite finished) and one `judges:<kind>` label per kind. Ginkgo unrolls
// the returned slice. The spec keeps its labels but not Serial where what
// it judges cannot be changed by a spec beside it: on a subject judged on
// liveness alone (the null control), and for a spec that judges CPU alone
// on a subject that says such specs may run beside others (the reactor:
// its consumers run in the test process, so measure.JudgeCPU shows their
// figure and never fails on it). It panics on an unknown kind.
func Alone(kinds ...string) []any {
	if len(kinds) == 0 {
		panic("suite.Alone: name what the spec judges (JudgesCPU, JudgesTiming)")
	}
	var labels ginkgo.Labels
	for _, k := range kinds {
		if k != JudgesCPU && k != JudgesTiming {
			panic("suite.Alone: unknown kind " + k + " (want " + JudgesCPU + " or " + JudgesTiming + ")")
		}
		labels = append(labels, LabelJudges+k)
	}
	if s, err := subjects.Selected(); err == nil && (livenessOnly(s) || (!slices.Contains(kinds, JudgesTiming) && cpuSpecsBeside(s))) {
		return []any{labels}
	}
	return []any{ginkgo.Serial, labels}
}

// cpuSpecsBeside reports whether subject s lets a spec that judges CPU
// only run beside other specs: its CPU figure is shown and never judged
// (measure.CPUVerdict.Checked), and its own load leaves the specs beside
// it alone.
func cpuSpecsBeside(s harness.Subject) bool {
	c, ok := s.(interface{ CPUSpecsBeside() bool })
	return ok && c.CPUSpecsBeside()
}

// livenessOnly reports whether subject s is judged on liveness keys alone
// (the null control: it sends nothing), so that what other processes do
// beside its specs cannot change a verdict on it and its specs that judge
// CPU or timing need not wait to run alone.
func livenessOnly(s harness.Subject) bool {
	l, ok := s.(interface{ LivenessOnly() bool })
	return ok && l.LivenessOnly()
}
