package jsonreport

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Report is one suite's report (Ginkgo's types.Report).
type Report struct {
	SuitePath        string
	SuiteDescription string
	SuiteLabels      []string
	SuiteSucceeded   bool
	// SpecialSuiteFailureReasons say why a suite failed outside its specs
	// (an interrupt, a failing BeforeSuite).
	SpecialSuiteFailureReasons []string
	SuiteConfig                struct{ LabelFilter string }
	StartTime, EndTime         time.Time
	SpecReports                []SpecReport
}

// SpecReport is one node's report: an It, or a suite-level node such as
// BeforeSuite (Ginkgo's types.SpecReport).
type SpecReport struct {
	ContainerHierarchyTexts  []string
	ContainerHierarchyLabels [][]string
	LeafNodeType             NodeType
	LeafNodeLocation         CodeLocation
	LeafNodeText             string
	LeafNodeLabels           []string
	State                    SpecState
	// IsSerial says the spec has Ginkgo's Serial decorator.
	IsSerial      bool
	StartTime     time.Time
	RunTime       time.Duration // nanoseconds in the JSON
	Failure       Failure
	ReportEntries []ReportEntry
}

// FullText is the container texts and the leaf text joined by spaces,
// empty texts left out (Ginkgo's SpecReport.FullText).
func (r SpecReport) FullText() string {
	texts := append(slices.Clone(r.ContainerHierarchyTexts), r.LeafNodeText)
	texts = slices.DeleteFunc(texts, func(t string) bool { return t == "" })
	return strings.Join(texts, " ")
}

// Labels are the containers' labels then the leaf's, each once, in that
// order (Ginkgo's SpecReport.Labels).
func (r SpecReport) Labels() []string {
	out := []string{}
	seen := map[string]bool{}
	for _, ls := range append(slices.Clone(r.ContainerHierarchyLabels), r.LeafNodeLabels) {
		for _, l := range ls {
			if !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
		}
	}
	return out
}

// CodeLocation is a file and line (Ginkgo's types.CodeLocation).
type CodeLocation struct {
	FileName   string
	LineNumber int
}

// String is "file:line".
func (l CodeLocation) String() string { return fmt.Sprintf("%s:%d", l.FileName, l.LineNumber) }

// Failure is why a spec did not pass (Ginkgo's types.Failure); Message is
// also the reason a spec was skipped.
type Failure struct {
	Message        string
	Location       CodeLocation
	ForwardedPanic string
}

// ReportEntry is one AddReportEntry (Ginkgo's types.ReportEntry).
type ReportEntry struct {
	Name  string
	Value EntryValue
}

// EntryValue is an entry's value as the JSON report keeps it: the value
// encoded as JSON, and its string representation when it had one.
type EntryValue struct {
	AsJSON         string
	Representation string
}

// UnmarshalJSON rejects a value whose AsJSON is not JSON, as Ginkgo's
// decoder does.
func (v *EntryValue) UnmarshalJSON(data []byte) error {
	type plain EntryValue
	var in plain
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	if !json.Valid([]byte(in.AsJSON)) {
		return fmt.Errorf("jsonreport: report entry value %q is not JSON", in.AsJSON)
	}
	*v = EntryValue(in)
	return nil
}

// NodeType is a node's kind as the JSON report names it ("It",
// "BeforeSuite", ...).
type NodeType string

// NodeTypeIt is a spec.
const NodeTypeIt NodeType = "It"

// SpecState is a spec's outcome as the JSON report names it.
type SpecState string

// The spec states (Ginkgo's types.SpecState).
const (
	SpecStatePending     SpecState = "pending"
	SpecStateSkipped     SpecState = "skipped"
	SpecStatePassed      SpecState = "passed"
	SpecStateFailed      SpecState = "failed"
	SpecStateAborted     SpecState = "aborted"
	SpecStatePanicked    SpecState = "panicked"
	SpecStateInterrupted SpecState = "interrupted"
	SpecStateTimedout    SpecState = "timedout"
)

// String is the state's name, or "INVALID SPEC STATE" for a name Ginkgo
// does not have (Ginkgo decodes those to its invalid state).
func (s SpecState) String() string {
	switch s {
	case SpecStatePending, SpecStateSkipped, SpecStatePassed, SpecStateFailed, SpecStateAborted, SpecStatePanicked, SpecStateInterrupted, SpecStateTimedout:
		return string(s)
	}
	return "INVALID SPEC STATE"
}

// Failed reports whether s is one of the failure states (Ginkgo's
// SpecStateFailureStates: failed, timedout, aborted, panicked,
// interrupted).
func (s SpecState) Failed() bool {
	switch s {
	case SpecStateFailed, SpecStateTimedout, SpecStateAborted, SpecStatePanicked, SpecStateInterrupted:
		return true
	}
	return false
}
