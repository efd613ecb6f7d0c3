package arch

import (
	"strings"
	"testing"
)

// TestModuleKeepsTheRules runs every rule on the packages they govern (and
// the packages they read: the consumer, the harness core) and fails naming
// each place that breaks one. The structural specs (specs/properties) run
// the same analyzers and attach their figures to the report.
func TestModuleKeepsTheRules(t *testing.T) {
	r, err := Check([]string{ReactorPkg + "/...", ManagersPkg + "/...", ConsumerPkg, HarnessPkg}, Analyzers()...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{ReactorPkg, GroupPkg, ConsumerPkg, HarnessPkg} {
		if r.Packages[want] == nil {
			t.Fatalf("%s was not loaded: the rules would pass by reading nothing", want)
		}
	}
	if ms := r.Result(ManagerImpl, GroupPkg).(*ManagerImplReport); len(ms.Checked) < 4 {
		t.Errorf("managers of managers/group found: %v, want at least 4: the shape check is not looking", ms.Checked)
	}
	if d := r.AllDiagnostics(); len(d) > 0 {
		t.Errorf("the module breaks its architecture rules:\n  %s", strings.Join(d, "\n  "))
	}
}
