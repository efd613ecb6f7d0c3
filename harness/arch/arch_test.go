package arch

import (
	"go/token"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"
)

// Each rule on a snippet that breaks it (the `// want` comments in
// testdata/src) and, where there is one, on a package that keeps it.
func TestAnalyzers(t *testing.T) {
	const m = ModulePath
	dir := analysistest.TestData()
	for _, tc := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"mechanicsimports", func(t *testing.T) {
			analysistest.Run(t, dir, MechanicsImports, m+"/reactor/leaky", m+"/reactor/clean")
		}},
		{"separatemanagers", func(t *testing.T) {
			analysistest.Run(t, dir, SeparateManagers, m+"/managers/group/cross", m+"/managers/share")
		}},
		{"coreimports", func(t *testing.T) { analysistest.Run(t, dir, CoreImports, m+"/harness") }},
		{"managerfields", func(t *testing.T) { analysistest.Run(t, dir, ManagerFields, m+"/managers/fields") }},
		{"managerwrites", func(t *testing.T) {
			rs := analysistest.Run(t, dir, ManagerWrites, m+"/managers/writes")
			fw := rs[0].Result.(*FieldWrites)
			if len(fw.Reads) != 1 || !strings.Contains(fw.Reads[0].What, "Commit.Poll reads Fetch.parts") {
				t.Errorf("reads %v, want the one read of Fetch.parts by Commit.Poll", fw.Reads)
			}
		}},
		{"packagevars", func(t *testing.T) {
			rs := analysistest.Run(t, dir, PackageVars, m+"/managers/vars")
			if n := rs[0].Result.(*VarReport).Inspected; n != 8 {
				t.Errorf("inspected %d vars, want 8 (the blank one skipped)", n)
			}
		}},
		{"reactorloop", func(t *testing.T) {
			rs := analysistest.Run(t, dir, ReactorLoop, m+"/consumer")
			if calls := rs[0].Result.(map[string][]token.Position); len(calls["New"]) != 1 || len(calls["NewShare"]) != 2 {
				t.Errorf("reactor.New calls %v, want 1 from New (through a helper) and 2 from NewShare", calls)
			}
		}},
		{"managerimpl", func(t *testing.T) {
			rs := analysistest.Run(t, dir, ManagerImpl, m+"/managers/group")
			if r := rs[0].Result.(*ManagerImplReport); len(r.Checked) != 1 || r.Checked[0] != "group.Fetch: reactor.Manager[View]" {
				t.Errorf("checked %v, want group.Fetch on its View", r.Checked)
			}
		}},
		{"noregistry", func(t *testing.T) {
			rs := analysistest.Run(t, dir, NoRegistry, m+"/reactor")
			if r := rs[0].Result.(*RegistryReport); r.TakesCode != 3 || r.CodeFields != 4 {
				t.Errorf("%+v: want 3 functions taking code (Submit, Effect, OnDone) and 4 fields holding it (Config.Managers, Config.View, Request.OnComplete, Request.Hooks)", *r)
			}
		}},
	} {
		t.Run(tc.name, tc.run)
	}
}
