// Package reports turns Ginkgo JSON reports of the kreactor suite into a conformance report:
// ParseFiles reads `ginkgo --json-report` output (one file per subject, target and repeat)
// into one Row per spec with its figures and time series, and each file's provenance;
// BuildRun joins rows to the catalogue (package catalogue), groups them per spec and
// column with figure spreads over repeats, and Check evaluates the expectations (reference
// passes everything, control fails every regression). WriteHTML (self-contained, plots from
// package charts), WriteMarkdown, WriteJira and WriteJSON render the result.
//
// # Conventions read from specs
//
// Labels (plain strings; suite, container and leaf labels are all read):
//   - `id:<spec-id>` exactly one per spec (required, see Options.Lenient);
//   - `covers:<item>` zero or more catalogue item ids;
//   - `subject:<name>` and `target:<name>` at most one each.
//
// Figures are report entries (AddReportEntry) whose value is a Figure; other entries are kept
// as text figures. See Figure. Entries named in entries.go (EntrySeries, EntryProvenance,
// EntrySignals, EntryFailedKeys) are structured data, versioned, never shown as figures.
package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/kreactor/kreactor/internal/jsonreport"
)

// Label prefixes the suite uses.
const (
	LabelID      = "id:"
	LabelCovers  = "covers:"
	LabelSubject = "subject:"
	LabelTarget  = "target:"
)

// Verdict is the outcome of one spec.
type Verdict string

// The verdicts, one per Ginkgo spec state.
const (
	VerdictPass        Verdict = "pass"
	VerdictFail        Verdict = "fail"
	VerdictSkipped     Verdict = "skipped"
	VerdictPending     Verdict = "pending"
	VerdictPanicked    Verdict = "panicked"
	VerdictInterrupted Verdict = "interrupted"
	VerdictTimedout    Verdict = "timedout"
	// VerdictAborted is Ginkgo's Abort(); it is a failure like the others.
	VerdictAborted Verdict = "aborted"
)

// Failed reports whether the verdict means the spec did not hold.
func (v Verdict) Failed() bool {
	switch v {
	case VerdictFail, VerdictPanicked, VerdictInterrupted, VerdictTimedout, VerdictAborted:
		return true
	}
	return false
}

func verdictOf(s jsonreport.SpecState) (Verdict, bool) {
	switch s {
	case jsonreport.SpecStatePassed:
		return VerdictPass, true
	case jsonreport.SpecStateFailed:
		return VerdictFail, true
	case jsonreport.SpecStateSkipped:
		return VerdictSkipped, true
	case jsonreport.SpecStatePending:
		return VerdictPending, true
	case jsonreport.SpecStatePanicked:
		return VerdictPanicked, true
	case jsonreport.SpecStateInterrupted:
		return VerdictInterrupted, true
	case jsonreport.SpecStateTimedout:
		return VerdictTimedout, true
	case jsonreport.SpecStateAborted:
		return VerdictAborted, true
	}
	return "", false
}

// Row is the result of one spec run against one subject on one target.
type Row struct {
	ID      string   `json:"id"`
	Covers  []string `json:"covers"`
	Subject string   `json:"subject"`
	Target  string   `json:"target"`
	Verdict Verdict  `json:"verdict"`
	// Message is the first line of the failure message for a failed verdict (with the panic
	// value for a panic), or the skip reason for a skipped spec; otherwise empty.
	Message string `json:"message,omitempty"`
	// Location is file:line of the failure (relative to the suite directory when inside it);
	// set only for failed verdicts.
	Location string `json:"location,omitempty"`
	// SpecLocation is file:line of the It (or Entry), relative like Location.
	SpecLocation string        `json:"spec_location"`
	Duration     time.Duration `json:"-"`
	// Text is the full spec text: container texts and the leaf text, space separated.
	Text    string        `json:"text"`
	Figures []NamedFigure `json:"figures"`
	// Suite is the Ginkgo suite description; Source the input it came from (file name), if known.
	Suite  string    `json:"suite"`
	Source string    `json:"source,omitempty"`
	Start  time.Time `json:"-"`
	// DerivedID is true when the spec had no id: label and Options.Lenient derived ID from Text.
	DerivedID bool `json:"derived_id,omitempty"`
	// Variant is the subject's release when a subject is run in several (the java subject's
	// kafka-clients version, Provenance.KafkaClients); empty otherwise.
	Variant string `json:"variant,omitempty"`
	// Run is the repeat index of the run file the row came from (Provenance.Run; 1 without
	// provenance).
	Run int `json:"run"`
	// SuiteDir is the suite's package directory relative to the module root
	// ("specs/regressions"), for the reproduce command; empty when unknown.
	SuiteDir string `json:"suite_dir,omitempty"`
	// Series is the spec's recorded time series (EntrySeries), nil when none was recorded.
	Series *Series `json:"-"`
	// Signals and FailedKeys are the spec's EntrySignals and EntryFailedKeys; nil
	// when the spec attached none.
	Signals    []string `json:"signals,omitempty"`
	FailedKeys []string `json:"failed_keys,omitempty"`
	// Liveness are the spec's EntryLiveness keys: the expectations that
	// express progress; nil when the spec attached none.
	Liveness []string `json:"liveness,omitempty"`
	// HarnessErrors are the spec's EntryHarnessError messages: the harness
	// failed it (a driver that crashed), not the subject.
	HarnessErrors []string `json:"harness_errors,omitempty"`
	// Floors are the spec's evidence floor (EntryEvidence): below it the
	// run is inconclusive (FloorShortfall); nil when the spec declared none.
	Floors []Floor `json:"floors,omitempty"`
}

// Suite describes one Ginkgo suite run found in the input.
type Suite struct {
	Description string `json:"description"`
	// Path is the suite's directory, relative to the module root when it is known.
	Path      string    `json:"path"`
	Source    string    `json:"source,omitempty"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	Succeeded bool      `json:"succeeded"`
	// Problems lists failed suite-level nodes (BeforeSuite, AfterSuite, ReportAfterSuite...)
	// and Ginkgo's special failure reasons, e.g. programmatic focus.
	Problems []string `json:"problems,omitempty"`
	// Provenance is what the suite's BeforeSuite recorded (EntryProvenance); nil if none
	// (also when no spec ran: Ginkgo then skips BeforeSuite).
	Provenance *Provenance `json:"provenance,omitempty"`
	// LabelFilter is the run's --label-filter, from Ginkgo's suite config.
	LabelFilter string `json:"label_filter,omitempty"`
	// LoadEnd is the machine's load when the suite ended (EntryLoad on a
	// suite-level node); nil when none was recorded.
	LoadEnd *LoadSample `json:"load_end,omitempty"`
}

// Load is the load around the suite's run: its provenance's start sample
// and its end sample.
func (s Suite) Load() RunLoad {
	l := RunLoad{End: s.LoadEnd}
	if s.Provenance != nil {
		l.Start = s.Provenance.LoadStart
	}
	return l
}

// Run is everything Decode reads from one or more inputs.
type Run struct {
	Rows   []Row
	Suites []Suite
	// Files are the inputs, one each, with their provenance; a file whose code differs from
	// the newest file's is listed with Excluded set and contributes no rows or suites.
	Files []RunFile
	// Warnings are problems that did not fail the parse (lenient mode, suite-level failures).
	Warnings []string
}

// Options controls Decode.
type Options struct {
	// Lenient keeps a spec that has no id: label, deriving its id from the spec text
	// ("text:" + a slug of the text), marking the row DerivedID and adding a warning; it also
	// turns duplicate (id, subject, target) rows into warnings. The default (strict) makes both
	// an error, because a report row that cannot be traced back to one spec proves nothing.
	Lenient bool
	// Source names the input in errors and rows (usually its file name); may be empty.
	Source string
	// StrictProvenance makes run files that measured different code (commit, dirty tree,
	// diff) an error; by default the newest file's code wins and the others are excluded
	// and listed.
	StrictProvenance bool
}

// Parse reads Ginkgo's --json-report output (a JSON array of jsonreport.Report) in strict mode and
// returns one Row per It (suite-level nodes are skipped). See Decode.
func Parse(r io.Reader) ([]Row, error) {
	run, err := Decode(r, Options{})
	if err != nil {
		return nil, err
	}
	return run.Rows, nil
}

// Decode reads Ginkgo's --json-report output with the given options. It errors on malformed
// JSON, JSON null (not a report), a spec with an unknown state, a spec without an id: label (unless opt.Lenient), a
// spec with more than one id:, subject: or target: value, a structured entry (EntrySeries,
// EntryProvenance, ...) of an unknown version or shape, or suites in one input that recorded
// different provenance; errors name opt.Source, the spec text and its location.
func Decode(r io.Reader, opt Options) (Run, error) {
	var reports []jsonreport.Report
	dec := json.NewDecoder(r)
	if err := dec.Decode(&reports); err != nil {
		return Run{}, fmt.Errorf("%sdecode Ginkgo JSON report: %w", prefix(opt.Source), err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Run{}, fmt.Errorf("%sdecode Ginkgo JSON report: trailing data after the report array", prefix(opt.Source))
	}
	if reports == nil { // JSON null: decodes without error into no reports
		return Run{}, fmt.Errorf("%snot a Ginkgo JSON report: null, want an array of suite reports", prefix(opt.Source))
	}
	var run Run
	var errs []error
	file := RunFile{Source: displayPath(opt.Source), Suites: []string{}}
	for _, rep := range reports {
		prov, err := suiteProvenance(rep)
		if err != nil {
			errs = append(errs, fmt.Errorf("%ssuite %q: %w", prefix(opt.Source), rep.SuiteDescription, err))
			continue
		}
		root := moduleRootOf(rep.SuitePath, prov)
		suite := Suite{
			Description: rep.SuiteDescription, Path: relPath(root, rep.SuitePath), Source: displayPath(opt.Source),
			Start: rep.StartTime, End: rep.EndTime, Succeeded: rep.SuiteSucceeded, Provenance: prov,
			LabelFilter: UserFilter(rep.SuiteConfig.LabelFilter),
		}
		suiteDir := ""
		if prov != nil {
			suiteDir = prov.SuiteDir
		} else if root != "" {
			suiteDir = suite.Path
		}
		for _, reason := range rep.SpecialSuiteFailureReasons {
			suite.Problems = append(suite.Problems, reason)
		}
		for _, sr := range rep.SpecReports {
			if sr.LeafNodeType != jsonreport.NodeTypeIt {
				errs = append(errs, suiteNode(&suite, rep, sr, root, opt)...)
				continue
			}
			row, warn, err := rowOf(rep, sr, opt, root)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			row.SuiteDir = suiteDir
			if prov != nil {
				row.Run, row.Variant = prov.Run, prov.KafkaClients
			}
			if warn != "" {
				run.Warnings = append(run.Warnings, warn)
			}
			run.Rows = append(run.Rows, row)
			file.Specs++
		}
		for _, p := range suite.Problems {
			run.Warnings = append(run.Warnings, fmt.Sprintf("%ssuite %q: %s", prefix(displayPath(opt.Source)), suite.Description, p))
		}
		run.Suites = append(run.Suites, suite)
		if err := file.addSuite(suite, opt.Source); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return Run{}, errors.Join(errs...)
	}
	// A suite whose specs were all filtered out skips BeforeSuite and records no provenance;
	// its rows belong to the same run as the file's other suites.
	for i := range run.Rows {
		if run.Rows[i].Run != 0 {
			continue
		}
		run.Rows[i].Run = 1
		if p := file.Provenance; p != nil {
			run.Rows[i].Run, run.Rows[i].Variant = p.Run, p.KafkaClients
		}
	}
	run.Files = []RunFile{file}
	if err := checkDuplicates(&run, opt.Lenient); err != nil {
		return Run{}, err
	}
	return run, nil
}

// suiteNode reads a suite-level node (BeforeSuite, ReportAfterSuite, ...)
// into suite: the load it recorded, and its failure as a problem.
func suiteNode(suite *Suite, rep jsonreport.Report, sr jsonreport.SpecReport, root string, opt Options) []error {
	var errs []error
	for _, e := range sr.ReportEntries {
		if e.Name != EntryLoad {
			continue
		}
		l, err := decodeLoad(e.Value.AsJSON)
		if err != nil {
			errs = append(errs, fmt.Errorf("%ssuite %q: %w", prefix(opt.Source), rep.SuiteDescription, err))
			continue
		}
		suite.LoadEnd = l
	}
	if sr.State.Failed() {
		suite.Problems = append(suite.Problems, fmt.Sprintf("%s %s at %s: %s",
			sr.LeafNodeType, sr.State, relLocation(root, rep.SuitePath, sr.Failure.Location), firstLine(sr.Failure.Message)))
	}
	return errs
}

// addSuite adds suite to the file's suites, times, load and provenance;
// two suites that recorded different runs are an error (one input must be
// one run).
func (file *RunFile) addSuite(suite Suite, source string) error {
	file.Suites = append(file.Suites, suite.Path)
	if file.Start.IsZero() || suite.Start.Before(file.Start) {
		file.Start = suite.Start
	}
	if suite.End.After(file.End) {
		file.End = suite.End
	}
	if l := suite.Load(); l.Start != nil && (file.Load.Start == nil || l.Start.At.Before(file.Load.Start.At)) {
		file.Load.Start = l.Start
	}
	if l := suite.Load(); l.End != nil && (file.Load.End == nil || l.End.At.After(file.Load.End.At)) {
		file.Load.End = l.End
	}
	prov := suite.Provenance
	switch {
	case prov == nil:
	case file.Provenance == nil:
		file.Provenance = prov
	case !sameRun(*file.Provenance, *prov):
		return fmt.Errorf("%ssuites %s and %s recorded different provenance (%s on %s/%s run %d, %s on %s/%s run %d): one input must be one run",
			prefix(source), file.Provenance.SuiteDir, prov.SuiteDir,
			file.Provenance.Code(), file.Provenance.Subject, file.Provenance.Target, file.Provenance.Run,
			prov.Code(), prov.Subject, prov.Target, prov.Run)
	}
	return nil
}

// suiteProvenance returns the provenance a suite-level node recorded, or nil.
func suiteProvenance(rep jsonreport.Report) (*Provenance, error) {
	for _, sr := range rep.SpecReports {
		if sr.LeafNodeType == jsonreport.NodeTypeIt {
			continue
		}
		for _, e := range sr.ReportEntries {
			if e.Name == EntryProvenance {
				return decodeProvenance(e.Value.AsJSON)
			}
		}
	}
	return nil, nil
}

// moduleRootOf is the module root: from the provenance's suite directory, else the nearest
// directory above suitePath holding a go.mod on this machine; empty if neither works.
func moduleRootOf(suitePath string, prov *Provenance) string {
	if prov != nil {
		if root := moduleRoot(suitePath, prov.SuiteDir); root != "" {
			return root
		}
	}
	if suitePath == "" || !filepath.IsAbs(suitePath) {
		return ""
	}
	for d := suitePath; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// displayPath renders an input path for reports: relative to the working directory when
// inside it, else its base name (absolute local paths never appear in a report).
func displayPath(p string) string {
	if p == "" || !filepath.IsAbs(p) {
		return relPath("", p)
	}
	wd, _ := os.Getwd()
	return relPath(wd, p)
}

// ParseFiles decodes each file and merges the runs (e.g. one run of the suite per subject,
// target and repeat). Errors name the file. Files whose provenance says they measured
// different code are separated: the newest file's code is kept and the others are listed
// in Run.Files with Excluded set (or, with opt.StrictProvenance, refused). Rows with the same
// (id, subject, target, run) in two kept inputs are an error in strict mode.
func ParseFiles(paths []string, opt Options) (Run, error) {
	var runs []Run
	var files []RunFile
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return Run{}, fmt.Errorf("read Ginkgo JSON report: %w", err)
		}
		o := opt
		o.Source = p
		run, err := Decode(f, o)
		f.Close()
		if err != nil {
			return Run{}, err
		}
		if run.Files[0].Provenance == nil && len(run.Files[0].Suites) > 0 {
			run.Warnings = append(run.Warnings, fmt.Sprintf("%s: no provenance recorded (a suite without suite.Setup in its BeforeSuite?): commit, versions and flags are unknown", displayPath(p)))
		}
		runs = append(runs, run)
		files = append(files, run.Files...)
	}
	files, err := separateByCode(files, opt.StrictProvenance)
	if err != nil {
		return Run{}, err
	}
	var all Run
	for i, run := range runs {
		if files[i].Excluded != "" {
			all.Warnings = append(all.Warnings, fmt.Sprintf("%s: not merged: %s", files[i].Source, files[i].Excluded))
			continue
		}
		all.Rows = append(all.Rows, run.Rows...)
		all.Suites = append(all.Suites, run.Suites...)
		all.Warnings = append(all.Warnings, run.Warnings...)
	}
	sortRunFiles(files)
	all.Files = files
	all.Rows = mergeShards(all.Rows)
	all.Warnings = dedupWarnings(all.Warnings)
	if err := checkDuplicates(&all, opt.Lenient); err != nil {
		return Run{}, err
	}
	return all, nil
}

func dedupWarnings(ws []string) []string {
	seen := map[string]bool{}
	out := ws[:0]
	for _, w := range ws {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// checkDuplicates rejects (or, lenient, warns about) two rows with one (id, subject, variant,
// target, run): releases of one subject (the release matrix) are different columns.
func checkDuplicates(run *Run, lenient bool) error {
	type key struct {
		id, subject, variant, target string
		run                          int
	}
	first := map[key]Row{}
	var errs []error
	for _, r := range run.Rows {
		k := key{r.ID, r.Subject, r.Variant, r.Target, r.Run}
		prev, dup := first[k]
		if !dup {
			first[k] = r
			continue
		}
		msg := fmt.Sprintf("duplicate spec id %q for subject %q, target %q, run %d: %s and %s",
			r.ID, r.Subject, r.Target, r.Run, where(prev), where(r))
		if lenient {
			run.Warnings = append(run.Warnings, msg)
		} else {
			errs = append(errs, errors.New(msg))
		}
	}
	return errors.Join(errs...)
}

func where(r Row) string {
	if r.Source != "" {
		return r.Source + ": " + r.SpecLocation
	}
	return r.SpecLocation
}

func rowOf(rep jsonreport.Report, sr jsonreport.SpecReport, opt Options, root string) (Row, string, error) {
	row := Row{
		Text:         sr.FullText(),
		SpecLocation: relLocation(root, rep.SuitePath, sr.LeafNodeLocation),
		Duration:     sr.RunTime,
		Suite:        rep.SuiteDescription,
		Source:       displayPath(opt.Source),
		Start:        sr.StartTime,
		Covers:       []string{},
		Figures:      []NamedFigure{},
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%sspec %q at %s: %s", prefix(opt.Source), row.Text, row.SpecLocation, fmt.Sprintf(format, args...))
	}
	v, ok := verdictOf(sr.State)
	if !ok {
		return Row{}, "", bad("unknown spec state %q", sr.State)
	}
	row.Verdict = v

	labels := append([]string{}, rep.SuiteLabels...)
	for _, ls := range sr.ContainerHierarchyLabels {
		labels = append(labels, ls...)
	}
	labels = append(labels, sr.LeafNodeLabels...)
	warn, err := row.applyLabels(labels, opt, bad)
	if err != nil {
		return Row{}, "", err
	}

	switch {
	case v.Failed():
		row.Message = firstLine(sr.Failure.Message)
		if p := firstLine(sr.Failure.ForwardedPanic); p != "" {
			row.Message += ": " + p
		}
		row.Location = relLocation(root, rep.SuitePath, sr.Failure.Location)
	case v == VerdictSkipped:
		row.Message = firstLine(sr.Failure.Message)
	}

	if err := row.addEntries(sr.ReportEntries); err != nil {
		return Row{}, "", bad("%v", err)
	}
	return row, warn, nil
}

// applyLabels sets the row's id, covered items, subject and target from its
// labels: exactly one id (or, lenient, one derived from the text, with a
// warning), at most one subject and one target, none empty.
func (row *Row) applyLabels(labels []string, opt Options, bad func(string, ...any) error) (string, error) {
	var ids, subjects, targets []string
	for _, l := range labels {
		switch {
		case strings.HasPrefix(l, LabelID):
			ids = appendUnique(ids, strings.TrimPrefix(l, LabelID))
		case strings.HasPrefix(l, LabelCovers):
			row.Covers = appendUnique(row.Covers, strings.TrimPrefix(l, LabelCovers))
		case strings.HasPrefix(l, LabelSubject):
			subjects = appendUnique(subjects, strings.TrimPrefix(l, LabelSubject))
		case strings.HasPrefix(l, LabelTarget):
			targets = appendUnique(targets, strings.TrimPrefix(l, LabelTarget))
		}
	}
	for _, set := range []struct {
		prefix string
		vals   []string
	}{{LabelID, ids}, {LabelCovers, row.Covers}, {LabelSubject, subjects}, {LabelTarget, targets}} {
		for _, val := range set.vals {
			if strings.TrimSpace(val) == "" {
				return "", bad("empty %s label", set.prefix)
			}
		}
	}
	if len(subjects) > 1 {
		return "", bad("more than one subject: label (%s)", strings.Join(subjects, ", "))
	}
	if len(targets) > 1 {
		return "", bad("more than one target: label (%s)", strings.Join(targets, ", "))
	}
	if len(subjects) == 1 {
		row.Subject = subjects[0]
	}
	if len(targets) == 1 {
		row.Target = targets[0]
	}
	var warn string
	switch len(ids) {
	case 1:
		row.ID = ids[0]
	case 0:
		if !opt.Lenient {
			return "", bad("no %s label (every spec needs exactly one)", LabelID)
		}
		row.ID = "text:" + slug(row.Text)
		row.DerivedID = true
		warn = fmt.Sprintf("%sspec %q at %s has no %s label; using derived id %q", prefix(opt.Source), row.Text, row.SpecLocation, LabelID, row.ID)
	default:
		return "", bad("more than one %s label (%s)", LabelID, strings.Join(ids, ", "))
	}
	return warn, nil
}

// addEntries reads the spec's report entries: the structured ones
// (series, signals, failed and liveness keys, harness errors, evidence
// floors), figures and plain-text entries.
func (row *Row) addEntries(entries []jsonreport.ReportEntry) error {
	for _, e := range entries {
		if isStructured(e.Name) {
			var err error
			switch e.Name {
			case EntrySeries:
				row.Series, err = decodeSeries(e.Value.AsJSON)
			case EntrySignals:
				row.Signals, err = decodeStrings(e.Name, e.Value.AsJSON)
			case EntryFailedKeys:
				row.FailedKeys, err = decodeStrings(e.Name, e.Value.AsJSON)
			case EntryLiveness:
				row.Liveness, err = decodeStrings(e.Name, e.Value.AsJSON)
			case EntryHarnessError:
				var errs []string
				errs, err = decodeStrings(e.Name, e.Value.AsJSON)
				row.HarnessErrors = append(row.HarnessErrors, errs...)
			case EntryEvidence:
				row.Floors, err = decodeFloors(e.Value.AsJSON)
			case EntryProvenance:
				err = fmt.Errorf("%s belongs to BeforeSuite (suite.Setup), not to a spec", EntryProvenance)
			}
			if err != nil {
				return err
			}
			continue
		}
		if f, ok := decodeFigure(e.Value.AsJSON); ok {
			row.Figures = append(row.Figures, NamedFigure{Name: e.Name, Figure: f})
			continue
		}
		text := e.Value.Representation
		if text == "" && e.Value.AsJSON != "null" { // AddReportEntry(name) with no value
			text = e.Value.AsJSON
		}
		row.Figures = append(row.Figures, NamedFigure{Name: e.Name, Text: text, IsText: true})
	}
	return nil
}

func prefix(source string) string {
	if source == "" {
		return ""
	}
	return source + ": "
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// relLocation renders file:line relative to the module root when it is known, else relative
// to the suite directory when the file is inside it, else as relPath does (never an absolute
// local path).
func relLocation(root, suitePath string, loc jsonreport.CodeLocation) string {
	if loc.FileName == "" {
		return ""
	}
	name := loc.FileName
	switch {
	case root != "":
		name = relPath(root, name)
	case suitePath != "":
		if rel, err := filepath.Rel(suitePath, name); err == nil && !strings.HasPrefix(rel, "..") {
			name = filepath.ToSlash(rel)
		} else {
			name = relPath("", name)
		}
	default:
		name = relPath("", name)
	}
	return fmt.Sprintf("%s:%d", name, loc.LineNumber)
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

func slug(s string) string {
	return strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
}
