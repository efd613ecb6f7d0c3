package suite

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"golang.org/x/mod/modfile"

	"github.com/kreactor/kreactor/harness"
	"github.com/kreactor/kreactor/harness/measure"
	"github.com/kreactor/kreactor/harness/subjects"
	"github.com/kreactor/kreactor/reports"
)

// Environment variables the Makefile sets for provenance. The test binary
// falls back to running git itself when they are unset.
const (
	EnvGitCommit = "KREACTOR_GIT_COMMIT" // full commit hash
	EnvGitDirty  = "KREACTOR_GIT_DIRTY"  // "1" when `git status --porcelain` printed anything
	EnvGitDiff   = "KREACTOR_GIT_DIFF"   // short hash of the uncommitted changes
	EnvRun       = "KREACTOR_RUN"        // this repeat's index, 1-based (make conformance RUNS=N)
	EnvRuns      = "KREACTOR_RUNS"       // number of repeats
)

// Setup is what every suite's BeforeSuite runs (Run registers it): it
// records the run's provenance (RecordProvenance), defers the machine's
// load at the suite's end (reports.EntryLoad) and then takes the goroutine
// baseline (SnapshotGoroutines).
func Setup() {
	RecordProvenance()
	ginkgo.DeferCleanup(recordLoadEnd)
	SnapshotGoroutines()
}

// loadOrNil is measure.SampleLoad, nil when it fails.
func loadOrNil() *reports.LoadSample {
	s, err := measure.SampleLoad()
	if err != nil {
		return nil
	}
	return &s
}

// recordLoadEnd attaches the load at the suite's end (reports.EntryLoad) to
// the running node: Setup defers it, so it runs after AfterSuite.
func recordLoadEnd() {
	if s := loadOrNil(); s != nil {
		ginkgo.AddReportEntry(reports.EntryLoad, *s, ginkgo.ReportEntryVisibilityNever)
	}
}

// RecordProvenance attaches the run's Provenance (reports.EntryProvenance)
// to the running BeforeSuite node, where the report reads it. It fails the
// suite, naming the variable, when $KREACTOR_RUN or $KREACTOR_RUNS is
// malformed.
func RecordProvenance() {
	ginkgo.GinkgoHelper()
	p, err := CurrentProvenance()
	if err != nil {
		ginkgo.Fail(err.Error())
	}
	ginkgo.AddReportEntry(reports.EntryProvenance, p, ginkgo.ReportEntryVisibilityNever)
}

// CurrentProvenance collects the provenance of this test process: the
// selected subject and target, git state ($KREACTOR_GIT_* or git in the
// working directory), Go and module versions (build info), -race, cores,
// repeat index, label filter and the suite directory relative to the
// module root.
func CurrentProvenance() (reports.Provenance, error) {
	p := reports.Provenance{
		Version: reports.ProvenanceVersion,
		Go:      runtime.Version(), Race: raceEnabled,
		Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		OS: runtime.GOOS, Arch: runtime.GOARCH,
		LabelFilter: ginkgo.GinkgoLabelFilter(),
		Captured:    time.Now().UTC(),
		LoadStart:   loadOrNil(),
		Run:         1, Runs: 1,
	}
	for _, v := range []struct {
		env string
		dst *int
	}{{EnvRun, &p.Run}, {EnvRuns, &p.Runs}} {
		if s := strings.TrimSpace(os.Getenv(v.env)); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				return p, fmt.Errorf("harness: %s=%q: want a positive integer", v.env, s)
			}
			*v.dst = n
		}
	}
	if p.Run > p.Runs {
		return p, fmt.Errorf("harness: %s=%d exceeds %s=%d", EnvRun, p.Run, EnvRuns, p.Runs)
	}
	if t := selectedTarget.Load(); t != nil {
		p.Target = (*t).Name()
		if v, ok := (*t).(harness.Versioned); ok {
			vs := v.Versions()
			p.KafkaImage = vs[harness.VersionKafkaImage]
			delete(vs, harness.VersionKafkaImage)
			p.SubjectVersions = addVersions(p.SubjectVersions, vs)
		}
	}
	if s, err := subjects.Selected(); err == nil {
		p.Subject = s.Name()
		if v, ok := s.(harness.Versioned); ok {
			p.SubjectVersions = addVersions(p.SubjectVersions, v.Versions())
		}
	}
	p.KafkaClients = p.SubjectVersions[harness.VersionKafkaClients]
	root, dir := moduleDir()
	p.SuiteDir = dir
	p.Modules = moduleVersions(root)
	p.Commit, p.Dirty, p.DiffHash = gitState(root)
	return p, nil
}

func addVersions(dst, src map[string]string) map[string]string {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = map[string]string{}
	}
	maps.Copy(dst, src)
	return dst
}

// reportedModules are the modules whose versions shape the results, by the
// short name the report shows.
var reportedModules = map[string]string{
	"github.com/twmb/franz-go":                    "franz-go",
	"github.com/twmb/franz-go/pkg/kfake":          "kfake",
	"github.com/twmb/franz-go/pkg/kmsg":           "kmsg",
	"github.com/onsi/ginkgo/v2":                   "ginkgo",
	"github.com/onsi/gomega":                      "gomega",
	"github.com/testcontainers/testcontainers-go": "testcontainers-go",
}

// moduleVersions reads the reported modules' versions from the binary's
// build info, or, for a test binary (which carries no dependency list),
// from the go.mod at the module root (its versions are exact pins).
func moduleVersions(root string) map[string]string {
	out := map[string]string{}
	bi, ok := debug.ReadBuildInfo()
	if !ok || len(bi.Deps) == 0 {
		if root == "" {
			return out
		}
		data, err := os.ReadFile(filepath.Join(root, "go.mod"))
		if err != nil {
			return out
		}
		f, err := modfile.ParseLax("go.mod", data, nil)
		if err != nil {
			return out
		}
		for _, r := range f.Require {
			if name, ok := reportedModules[r.Mod.Path]; ok {
				out[name] = r.Mod.Version
			}
		}
		for _, r := range f.Replace {
			if name, ok := reportedModules[r.Old.Path]; ok {
				out[name] = "replaced by " + r.New.Path + " " + r.New.Version
			}
		}
		return out
	}
	for _, d := range bi.Deps {
		name, ok := reportedModules[d.Path]
		if !ok {
			continue
		}
		v := d.Version
		if d.Replace != nil {
			v = d.Replace.Version
			if v == "" {
				v = "replaced by a local directory"
			}
		}
		out[name] = v
	}
	return out
}

// moduleDir finds the module root (the nearest directory with go.mod above
// the working directory) and returns it and the working directory relative
// to it ("specs/regressions"); both empty when there is none.
func moduleDir() (root, rel string) {
	wd, err := os.Getwd()
	if err != nil {
		return "", ""
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			r, err := filepath.Rel(d, wd)
			if err != nil {
				return "", ""
			}
			return d, filepath.ToSlash(r)
		}
		if filepath.Dir(d) == d {
			return "", ""
		}
	}
}

// gitState returns the commit, dirty flag and diff hash from the
// environment, else from git run in root; "unknown" when neither works.
func gitState(root string) (commit string, dirty bool, diff string) {
	if c := strings.TrimSpace(os.Getenv(EnvGitCommit)); c != "" {
		return c, os.Getenv(EnvGitDirty) == "1", strings.TrimSpace(os.Getenv(EnvGitDiff))
	}
	git := func(args ...string) ([]byte, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		return cmd.Output()
	}
	if root == "" {
		return "unknown", false, ""
	}
	out, err := git("rev-parse", "HEAD")
	if err != nil {
		return "unknown", false, ""
	}
	commit = strings.TrimSpace(string(out))
	status, err := git("status", "--porcelain")
	if err != nil || len(bytes.TrimSpace(status)) == 0 {
		return commit, false, ""
	}
	d, _ := git("diff", "HEAD")
	return commit, true, DiffHash(d, status)
}

// DiffHash is the short hash the provenance uses for uncommitted changes:
// the first 12 hex digits of SHA-256 over `git diff HEAD` and
// `git status --porcelain` (so untracked files count). The Makefile
// computes the same with sha256sum.
func DiffHash(diff, status []byte) string {
	h := sha256.New()
	h.Write(diff)
	h.Write(status)
	return hex.EncodeToString(h.Sum(nil))[:12]
}
