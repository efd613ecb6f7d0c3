package plan

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kreactor/kreactor/internal/jsonreport"
	"github.com/kreactor/kreactor/reports"
)

// Spec is one spec of a suite as the suite's tree lists it for a subject
// and target.
type Spec struct {
	Suite string // package directory relative to the module root
	ID    string // label id:
	Alone bool   // Ginkgo's Serial (suite.Alone)
}

// Inventory lists the specs of suites (package patterns, e.g. ./specs/...)
// for subject on target by a Ginkgo dry run (the suites' trees are built,
// no spec runs): ginkgo is the command that runs Ginkgo ("go tool ginkgo"),
// root the module root every suite path is made relative to, labelFilter a
// Ginkgo label filter the specs must match ("" for all). A spec without an
// id label is an error naming it.
func Inventory(ctx context.Context, ginkgo []string, root string, suites []string, subject, target, labelFilter string) ([]Spec, error) {
	dir, err := os.MkdirTemp("", "kreactor-plan-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	args := append(ginkgo[1:len(ginkgo):len(ginkgo)], "--dry-run", "--no-color", "--succinct", "--json-report=dry.json", "--output-dir="+dir)
	if labelFilter != "" {
		args = append(args, "--label-filter="+labelFilter)
	}
	args = append(args, suites...)
	cmd := exec.CommandContext(ctx, ginkgo[0], args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "KREACTOR_SUBJECT="+subject, "KREACTOR_TARGET="+target)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("dry run of %s for subject %s on %s: %w\n%s", strings.Join(suites, " "), subject, target, err, out.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, "dry.json"))
	if err != nil {
		return nil, fmt.Errorf("dry run of %s: %w", strings.Join(suites, " "), err)
	}
	return decodeInventory(data, root)
}

// decodeInventory reads a dry run's Ginkgo JSON report.
func decodeInventory(data []byte, root string) ([]Spec, error) {
	var reps []jsonreport.Report
	if err := json.Unmarshal(data, &reps); err != nil {
		return nil, fmt.Errorf("dry run report: %w", err)
	}
	var specs []Spec
	for _, rep := range reps {
		suite, err := filepath.Rel(root, rep.SuitePath)
		if err != nil {
			return nil, fmt.Errorf("suite %s outside %s: %w", rep.SuitePath, root, err)
		}
		suite = filepath.ToSlash(suite)
		for _, sr := range rep.SpecReports {
			// A dry run passes the specs it selects and skips the others.
			if sr.LeafNodeType != jsonreport.NodeTypeIt || sr.State != jsonreport.SpecStatePassed {
				continue
			}
			id := ""
			for _, l := range sr.Labels() {
				if v, ok := strings.CutPrefix(l, reports.LabelID); ok {
					id = v
				}
			}
			if id == "" {
				return nil, fmt.Errorf("suite %s: spec %q at %s has no %s label", suite, sr.FullText(), sr.LeafNodeLocation, reports.LabelID)
			}
			specs = append(specs, Spec{Suite: suite, ID: id, Alone: sr.IsSerial})
		}
	}
	return specs, nil
}
