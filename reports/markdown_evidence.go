package reports

import (
	"bufio"
	"fmt"
)

// writeEvidenceSections renders the sections about the real clients: the
// agreement of each subject's verdicts on kfake and on Kafka, and the
// release matrix with its findings (each only when there is one).
func writeEvidenceSections(b *bufio.Writer, rep Report) {
	if ts := BuildAgreement(rep); len(ts) > 0 {
		fmt.Fprintf(b, "\n## Agreement: %s vs %s\n\nEach subject that ran on both targets: its verdict per spec on the fake broker next to its verdict on real Kafka. A disagreement is a fidelity gap of the fake broker or a spec that depends on timing the two give differently; what failed on each side is listed.\n\n", FakeTarget, RealTarget)
		b.WriteString(AgreementMarkdown(ts))
	}
	if m := rep.Releases; m != nil {
		b.WriteString("\n## Release matrix\n\n")
		b.WriteString(m.Markdown())
		b.WriteString("\n## Findings\n\n")
		b.WriteString(FindingsMarkdown(m.Findings()))
	}
}
