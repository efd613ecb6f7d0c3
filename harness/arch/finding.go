package arch

import (
	"fmt"
	"go/token"
	"slices"
	"strings"
)

// Finding is one place in the code a rule is about.
type Finding struct {
	Pos  token.Position
	What string
}

// String is "file:line: what", the file trimmed to its module-relative
// part.
func (f Finding) String() string {
	return fmt.Sprintf("%s:%d: %s", shortFile(f.Pos.Filename), f.Pos.Line, f.What)
}

// shortFile trims a path to the module-relative part for messages.
func shortFile(name string) string {
	for _, dir := range []string{"/reactor/", "/managers/", "/consumer/", "/harness/", "/fakebroker/"} {
		if i := strings.LastIndex(name, dir); i >= 0 {
			return name[i+1:]
		}
	}
	return name
}

func sortFindings(fs []Finding) {
	slices.SortFunc(fs, func(a, b Finding) int { return strings.Compare(a.String(), b.String()) })
}

// Findings renders fs one per line, each line indented, for a failure
// message.
func Findings(fs []Finding) string { return lines(fs) }

// lines renders xs one per line, each line indented, for a failure
// message.
func lines[T fmt.Stringer](xs []T) string {
	var b strings.Builder
	for _, x := range xs {
		b.WriteString("\n  ")
		b.WriteString(x.String())
	}
	return b.String()
}
