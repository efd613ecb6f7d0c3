package suite

import (
	"errors"

	"go.uber.org/goleak"

	"github.com/kreactor/kreactor/harness/subjects"
)

// leakBaseline ignores the goroutines running when the suite started: the
// Go runtime's and Ginkgo's own (its signal and interrupt handlers, its
// output interceptor under the ginkgo CLI, progress-report listeners). They
// are named by stack at snapshot time, so anything started later and still
// running after the suite is reported. Set by SnapshotGoroutines, read by
// VerifyNoLeakedGoroutines; both run on Ginkgo's suite goroutine.
var leakBaseline []goleak.Option

// SnapshotGoroutines records the goroutines running now as the baseline; call
// it from BeforeSuite before anything starts a cluster or a consumer.
func SnapshotGoroutines() {
	leakBaseline = append([]goleak.Option{goleak.IgnoreCurrent()}, ginkgoParallel...)
}

// ginkgoParallel are the goroutines of Ginkgo's output interceptor in a
// parallel run (ginkgo -p): it pauses around each spec's report and resumes
// with new goroutines copying the process's output, so they are not in the
// baseline taken at the suite's start.
var ginkgoParallel = []goleak.Option{
	goleak.IgnoreAnyFunction("github.com/onsi/ginkgo/v2/internal.(*genericOutputInterceptor).ResumeIntercepting.func1"),
	goleak.IgnoreAnyFunction("github.com/onsi/ginkgo/v2/internal.(*genericOutputInterceptor).ResumeIntercepting.func1.1"),
}

// LeakedGoroutines returns goleak's report of goroutines started since
// SnapshotGoroutines that are still running (goleak retries for a while, so
// goroutines that are exiting are given time), and the java subject's
// driver processes that were never reaped (subjects.CheckReaped), or
// nil. Run calls it after the suite, once every spec's cleanup ran.
func LeakedGoroutines() error {
	return errors.Join(goleak.Find(leakBaseline...), subjects.CheckReaped())
}
