package main

// kreactor report -findings: the release matrix's findings (regressed in /
// fixed in a release) as Markdown and Jira markup.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kreactor/kreactor/reports"
)

// writeFindings loads the release matrix at path and prints its findings
// (Markdown, then the Jira block) to stdout; unless out is "-" it also
// writes findings.md and findings.jira.txt into out. Errors: the matrix
// cannot be read (named by the flag), a file cannot be written.
func writeFindings(path, out string, stdout io.Writer) error {
	m, err := reports.LoadReleaseMatrix(path)
	if err != nil {
		return fmt.Errorf("-releases %s: %w", path, err)
	}
	fs := m.Findings()
	md := fmt.Sprintf("# Findings: %s on %s\n\n%s", m.Subject, m.Target, reports.FindingsMarkdown(fs))
	jira := reports.FindingsJira(fs)
	fmt.Fprint(stdout, md)
	if jira != "" {
		fmt.Fprintf(stdout, "\n## Jira markup\n\n%s", jira)
	}
	if out == "-" {
		return nil
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	mdPath, jiraPath := filepath.Join(out, "findings.md"), filepath.Join(out, "findings.jira.txt")
	if err := os.WriteFile(mdPath, []byte(md), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(jiraPath, []byte(jira), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s, %s (%d finding(s))\n", mdPath, jiraPath, len(fs))
	return nil
}

// writeExploreFindings prints the simulation findings in dir (the
// explore findings page) and, unless out is "-", writes it to
// out/explore-findings.md. Errors: a finding file that cannot be read or
// parsed (named), a file that cannot be written.
func writeExploreFindings(dir, out string, stdout io.Writer) error {
	fs, err := reports.LoadExploreFindings(dir)
	if err != nil {
		return fmt.Errorf("-explore %s: %w", dir, err)
	}
	md := reports.ExploreFindingsMarkdown(fs)
	fmt.Fprint(stdout, md)
	if out == "-" {
		return nil
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	path := filepath.Join(out, "explore-findings.md")
	if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d finding(s))\n", path, len(fs))
	return nil
}
