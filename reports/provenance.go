package reports

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// ProvenanceVersion is the version of the Provenance layout.
const ProvenanceVersion = 1

// Provenance says what produced a run file: which code (commit, dirty tree
// and a hash of its diff), which toolchain and library versions, which
// broker image and client release, on what machine shape, with which flags.
// The harness records it once per suite (suite.RecordProvenance, as the
// EntryProvenance entry of the BeforeSuite node); every suite of one run
// file must agree on it. Paths in it are relative to the module root.
type Provenance struct {
	Version int `json:"version"`
	// Commit is the git commit of the tree the suites were built from
	// ("unknown" when neither $KREACTOR_GIT_COMMIT nor git could tell).
	Commit string `json:"commit"`
	// Dirty is true when the tree had uncommitted changes; DiffHash is then
	// a short hash of `git diff HEAD` (and of untracked files' names), so
	// two dirty runs of one commit are told apart.
	Dirty    bool   `json:"dirty"`
	DiffHash string `json:"diff_hash,omitempty"`
	// Go is the Go toolchain version (runtime.Version()).
	Go string `json:"go"`
	// Modules are the versions of the libraries that shape the results,
	// from the test binary's build info: franz-go (kgo), kfake, kmsg,
	// ginkgo, gomega.
	Modules map[string]string `json:"modules"`
	// KafkaImage is the Kafka image of the kafka target; empty when that
	// target did not run.
	KafkaImage string `json:"kafka_image,omitempty"`
	// KafkaClients is the kafka-clients release (or "local:<jar name>")
	// the java subject ran; empty for other subjects.
	KafkaClients string `json:"kafka_clients,omitempty"`
	// SubjectVersions are further component versions a subject reports
	// (harness.Versioned), e.g. {"kafka-clients": "4.4.0"}.
	SubjectVersions map[string]string `json:"subject_versions,omitempty"`
	// Subject and Target are what the suite ran.
	Subject string `json:"subject"`
	Target  string `json:"target"`
	// Race is true when the test binary was built with -race.
	Race bool `json:"race"`
	// Cores is runtime.NumCPU(); GOMAXPROCS the scheduler's limit.
	Cores      int    `json:"cores"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	// Run is this run's index (1-based) among Runs repeats of one
	// `make conformance RUNS=N`; 1 of 1 when not repeated.
	Run  int `json:"run"`
	Runs int `json:"runs"`
	// LabelFilter is Ginkgo's --label-filter, if any.
	LabelFilter string `json:"label_filter,omitempty"`
	// SuiteDir is the suite's package directory relative to the module
	// root ("specs/regressions").
	SuiteDir string `json:"suite_dir"`
	// Captured is when the provenance was recorded (the suite's start).
	Captured time.Time `json:"captured"`
	// LoadStart is the machine's load when the suite started (nil when
	// /proc could not be read); the end's is Suite.LoadEnd.
	LoadStart *LoadSample `json:"load_start,omitempty"`
}

// Code is the identity of the code a run measured: commit, dirty flag and
// diff hash. Runs of different Code are never merged into one report.
func (p *Provenance) Code() string {
	if p == nil {
		return "unknown provenance"
	}
	s := p.Commit
	if p.Dirty {
		s += " (dirty"
		if p.DiffHash != "" {
			s += " " + p.DiffHash
		}
		s += ")"
	}
	return s
}

// ShortCommit is the first 12 characters of the commit.
func (p *Provenance) ShortCommit() string {
	if p == nil {
		return "unknown"
	}
	if len(p.Commit) > 12 {
		return p.Commit[:12]
	}
	return p.Commit
}

// sameRun reports whether two suites' provenance belong in one run file:
// everything but the suite directory and capture time agrees.
func sameRun(a, b Provenance) bool {
	a.SuiteDir, b.SuiteDir = "", ""
	a.Captured, b.Captured = time.Time{}, time.Time{}
	a.LabelFilter, b.LabelFilter = "", ""
	a.LoadStart, b.LoadStart = nil, nil
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func decodeProvenance(asJSON string) (*Provenance, error) {
	var p Provenance
	if err := json.Unmarshal([]byte(asJSON), &p); err != nil {
		return nil, fmt.Errorf("decode %s: %w", EntryProvenance, err)
	}
	if p.Version != ProvenanceVersion {
		return nil, fmt.Errorf("%s version %d, this report reads %d", EntryProvenance, p.Version, ProvenanceVersion)
	}
	if p.Run < 1 || p.Runs < p.Run {
		return nil, fmt.Errorf("%s: run %d of %d: want 1 <= run <= runs", EntryProvenance, p.Run, p.Runs)
	}
	return &p, nil
}

// RunFile is one input file (one `ginkgo --json-report` of one subject on
// one target, one repeat): its provenance and time span.
type RunFile struct {
	// Source is the file's path as given, made relative (see relPath).
	Source string `json:"source"`
	// Provenance is nil when no suite in the file recorded one.
	Provenance *Provenance `json:"provenance,omitempty"`
	Start      time.Time   `json:"start"`
	End        time.Time   `json:"end"`
	Specs      int         `json:"specs"`
	// Suites are the suite directories in the file.
	Suites []string `json:"suites"`
	// Excluded says why the file's rows are not in the report (its code
	// differs from the newest run's); empty when merged.
	Excluded string `json:"excluded,omitempty"`
	// Load is the machine's load at the start of the file's first suite
	// and the end of its last (UnderLoad marks a run taken under load).
	Load RunLoad `json:"load"`
}

// Run returns the repeat index (1 when unknown).
func (f RunFile) Run() int {
	if f.Provenance == nil {
		return 1
	}
	return f.Provenance.Run
}

// separateByCode keeps the files whose Code matches the newest file's (by
// end time) and marks the others Excluded. With strict set, files of more
// than one Code are an error listing each file's code instead.
func separateByCode(files []RunFile, strict bool) ([]RunFile, error) {
	if len(files) == 0 {
		return files, nil
	}
	newest := slices.MaxFunc(files, func(a, b RunFile) int { return a.End.Compare(b.End) })
	keep := newest.Provenance.Code()
	var differ []string
	for i := range files {
		if code := files[i].Provenance.Code(); code != keep {
			files[i].Excluded = fmt.Sprintf("measured code %s, not %s (the newest run, %s); rerun or remove the file", code, keep, newest.Source)
			differ = append(differ, fmt.Sprintf("%s: %s", files[i].Source, code))
		}
	}
	if strict && len(differ) > 0 {
		return nil, fmt.Errorf("run files measure different code: newest %s is %s; %s", newest.Source, keep, strings.Join(differ, "; "))
	}
	return files, nil
}

// relPath renders p relative: relative to root when inside it, a module
// cache path from the module on ("github.com/onsi/ginkgo/v2@v2.34.0/..."),
// otherwise the base name. Paths already relative are only cleaned.
func relPath(root, p string) string {
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) {
		return filepath.ToSlash(filepath.Clean(p))
	}
	if root != "" {
		if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	slashed := filepath.ToSlash(p)
	if i := strings.Index(slashed, "/pkg/mod/"); i >= 0 {
		return slashed[i+len("/pkg/mod/"):]
	}
	return path.Base(slashed)
}

// moduleRoot derives the module root from a suite's absolute path and its
// provenance's relative SuiteDir ("/x/specs/regressions" minus
// "specs/regressions" is "/x"); empty when they do not line up.
func moduleRoot(suitePath, suiteDir string) string {
	if suitePath == "" || suiteDir == "" {
		return ""
	}
	sp, sd := filepath.ToSlash(filepath.Clean(suitePath)), "/"+strings.Trim(filepath.ToSlash(suiteDir), "/")
	if sd == "/." {
		return filepath.FromSlash(sp)
	}
	if strings.HasSuffix(sp, sd) {
		return filepath.FromSlash(strings.TrimSuffix(sp, sd))
	}
	return ""
}

// sortRunFiles orders files by subject, target, repeat, source.
func sortRunFiles(files []RunFile) {
	slices.SortStableFunc(files, func(a, b RunFile) int {
		sub := func(f RunFile) (string, string) {
			if f.Provenance == nil {
				return "", ""
			}
			return f.Provenance.Subject, f.Provenance.Target
		}
		as, at := sub(a)
		bs, bt := sub(b)
		return cmp.Or(cmp.Compare(subjectRank(as), subjectRank(bs)), cmp.Compare(as, bs), cmp.Compare(targetRank(at), targetRank(bt)), cmp.Compare(at, bt),
			cmp.Compare(a.Run(), b.Run()), cmp.Compare(a.Source, b.Source))
	})
}
