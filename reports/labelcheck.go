package reports

import (
	"fmt"
	"regexp"
)

// specID is what a spec id may look like: lower-case words and digits
// joined by '-' or '.', so it is a valid Ginkgo label value and reads well
// in reports ("kafka-20253-coordinator-lost", "result-kinds.commit-await").
var specID = regexp.MustCompile(`^[a-z0-9]+([.-][a-z0-9]+)*$`)

// coverID is what a catalogue item id may look like ("P2", "KAFKA-20253",
// "E2E-1").
var coverID = regexp.MustCompile(`^[A-Za-z0-9]+(-[A-Za-z0-9]+)*$`)

// CheckSpecID returns an error naming the rule when id is not a valid spec
// id (the value of an `id:` label, and of `subject:` and `target:`): the
// suites' label helper (harness/suite.Spec) panics on it, and scenario
// files are checked with it before a spec tree is built.
func CheckSpecID(id string) error {
	if !specID.MatchString(id) {
		return fmt.Errorf("a spec id must be lower-case words and digits joined by '-' or '.' (%s)", specID)
	}
	return nil
}

// CheckCoverID returns an error naming the rule when item is not a valid
// catalogue item id for a `covers:` label.
func CheckCoverID(item string) error {
	if !coverID.MatchString(item) {
		return fmt.Errorf("a covered item id must be words of letters and digits joined by '-' (%s)", coverID)
	}
	return nil
}
