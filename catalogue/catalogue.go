// Package catalogue is the machine-readable list of every behaviour the kreactor suite checks:
// the KIP-1371 properties (P1..P6), the end-to-end scenarios, each Jira regression, the Java
// consumer contract the reference consumers keep (CONTRACT-*), and the fake broker's fidelity to
// Apache Kafka (FIDELITY*), with one MUST sentence per item. Specs name the items they cover with `covers:<id>` labels; the
// conformance report (package reports) joins spec results to this catalogue.
//
// The catalogue lives in catalogue.json next to this file and is embedded at build time, so the
// report and the CLI always read the catalogue of the code they were built from.
package catalogue

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

//go:embed catalogue.json
var embedded []byte

// Kind says what sort of behaviour an item is.
type Kind string

// The kinds an item may have.
const (
	KindProperty   Kind = "property"   // a KIP-1371 "Desired outcome" property
	KindRegression Kind = "regression" // a Jira issue whose failure shape must not recur
	KindScenario   Kind = "scenario"   // an end-to-end scenario
	// KindFidelity: the harness itself, not a consumer: the fake broker
	// answers as Apache Kafka does (specs/fidelity, run on every target with
	// the real broker as the oracle). An item excluded on a target is a known
	// difference there.
	KindFidelity Kind = "fidelity"
	// KindContract: the Java consumer's documented contract (javadoc,
	// kafka-clients 4.4.0 behaviour) that the reference consumers keep so
	// KIP reviewers compare like with like (CONTRACT-*). Not a regression:
	// it must pass on the reference subject; the control need not fail it.
	KindContract Kind = "contract"
	// KindExternal: a case from an outside report (another client's issue
	// tracker, a Kafka Jira outside the seed list, a mailing-list thread),
	// cited by URL, so a new case need not borrow a seed Jira.
	// Like a contract item it must pass on the reference subject; the
	// control need not fail it.
	KindExternal Kind = "external"
)

// Kinds lists every valid Kind in catalogue order of presentation.
var Kinds = []Kind{KindProperty, KindRegression, KindScenario, KindContract, KindExternal, KindFidelity}

// Shape is the failure shape an item guards against (the four shapes named in KAFKA-20995, plus
// structural properties and end-to-end scenarios).
type Shape string

// The shapes an item may have.
const (
	ShapeBusyLoop             Shape = "busy-loop"
	ShapeAmbiguousEmptyResult Shape = "ambiguous-empty-result"
	ShapePublicationRace      Shape = "publication-race"
	ShapeLifecycle            Shape = "lifecycle"
	ShapeStructural           Shape = "structural"
	ShapeEndToEnd             Shape = "end-to-end"
	// ShapeFidelity: a fake broker answering differently from Apache Kafka
	// (KindFidelity items).
	ShapeFidelity Shape = "fidelity"
	// ShapeContract: a departure from the Java consumer's documented
	// contract that is none of the KIP-1371 shapes (a callback not run, an
	// error not raised, offsets not committed).
	ShapeContract Shape = "contract"
)

// Shapes lists every valid Shape.
var Shapes = []Shape{
	ShapeBusyLoop, ShapeAmbiguousEmptyResult, ShapePublicationRace,
	ShapeLifecycle, ShapeStructural, ShapeEndToEnd, ShapeFidelity, ShapeContract,
}

// Exclusion records that an item is deliberately not checked on a target, and why.
type Exclusion struct {
	Target string `json:"target"`
	Reason string `json:"reason"`
}

// Item is one catalogued behaviour.
type Item struct {
	// ID is unique in the catalogue and is what `covers:<ID>` labels name (e.g. "P2",
	// "KAFKA-20253").
	ID   string `json:"id"`
	Kind Kind   `json:"kind"`
	// Title is one MUST sentence stating the behaviour, in kreactor's own words.
	Title string `json:"title"`
	// Source says where the behaviour comes from ("KIP-1371 Desired outcome", "KAFKA-20253").
	Source string `json:"source"`
	// URL is the public address of the source: required (http or https)
	// for an external item, optional for the others.
	URL   string `json:"url,omitempty"`
	Shape Shape  `json:"shape"`
	// TargetsExcluded lists targets on which the item is deliberately not checked.
	TargetsExcluded []Exclusion `json:"targets_excluded,omitempty"`
	// Baseline, for a regression, says which released behaviour of the Java
	// consumer the baseline (the negative control) models for it, and where
	// kafka-clients releases differ (the release matrix, `make
	// java-matrix`). The report shows it where the baseline and the real
	// client disagree.
	Baseline string `json:"baseline,omitempty"`
	// JavaDiffers, for an item (a contract or share item) whose spec
	// fails on kafka-clients 4.4.0 by design, says where Java differs (the kafka-clients source
	// file and line, read from the 4.4.0 jar's line tables), what it was
	// measured doing, and which behaviour the item follows. A java failure
	// of such an item is that difference, not a harness artifact.
	JavaDiffers string `json:"java_differs,omitempty"`
}

// Excluded reports whether the item is excluded on target, and the reason.
func (it Item) Excluded(target string) (reason string, ok bool) {
	for _, e := range it.TargetsExcluded {
		if e.Target == target {
			return e.Reason, true
		}
	}
	return "", false
}

// Catalogue is the ordered list of items. The zero value is an empty catalogue; use Load or
// Parse to get one whose lookups work.
type Catalogue struct {
	// Items in file order; the report presents items in this order. Read-only after Parse.
	Items []Item
	index map[string]int
}

// Lookup returns the item with the given id.
func (c Catalogue) Lookup(id string) (Item, bool) {
	i, ok := c.index[id]
	if !ok {
		return Item{}, false
	}
	return c.Items[i], true
}

// Position returns the index of the item with the given id in catalogue order, or -1.
func (c Catalogue) Position(id string) int {
	if i, ok := c.index[id]; ok {
		return i
	}
	return -1
}

// Load parses and validates the embedded catalogue.json.
func Load() (Catalogue, error) {
	return Parse(embedded)
}

// file is the on-disk layout of catalogue.json.
type file struct {
	Items []Item `json:"items"`
}

// idPattern is what an item id may look like: it must survive being a Ginkgo label value
// (`covers:<id>`) and a Markdown table cell.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Parse decodes and validates a catalogue in the catalogue.json format. Unknown fields are
// rejected. Every problem found is reported (joined), each naming the item and the field.
func Parse(data []byte) (Catalogue, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f file
	if err := dec.Decode(&f); err != nil {
		return Catalogue{}, fmt.Errorf("catalogue: decode: %w", err)
	}
	if dec.More() {
		return Catalogue{}, errors.New("catalogue: decode: trailing data after the top-level object")
	}
	if len(f.Items) == 0 {
		return Catalogue{}, errors.New("catalogue: no items")
	}
	c := Catalogue{Items: f.Items, index: make(map[string]int, len(f.Items))}
	var errs []error
	bad := func(i int, it Item, field, format string, args ...any) {
		name := fmt.Sprintf("item %d", i+1)
		if it.ID != "" {
			name = fmt.Sprintf("item %d (%s)", i+1, it.ID)
		}
		errs = append(errs, fmt.Errorf("catalogue: %s: field %q: %s", name, field, fmt.Sprintf(format, args...)))
	}
	for i, it := range f.Items {
		switch {
		case it.ID == "":
			bad(i, it, "id", "missing")
		case !idPattern.MatchString(it.ID):
			bad(i, it, "id", "%q must match %s", it.ID, idPattern)
		default:
			if j, dup := c.index[it.ID]; dup {
				bad(i, it, "id", "duplicate of item %d", j+1)
			} else {
				c.index[it.ID] = i
			}
		}
		if it.Kind == "" {
			bad(i, it, "kind", "missing")
		} else if !slices.Contains(Kinds, it.Kind) {
			bad(i, it, "kind", "unknown value %q (want one of %s)", it.Kind, join(Kinds))
		}
		if strings.TrimSpace(it.Title) == "" {
			bad(i, it, "title", "missing")
		} else if !strings.Contains(it.Title, "MUST") {
			bad(i, it, "title", "must be a MUST sentence")
		}
		if strings.TrimSpace(it.Source) == "" {
			bad(i, it, "source", "missing")
		}
		switch {
		case it.Kind == KindExternal && it.URL == "":
			bad(i, it, "url", "an external item cites its source's URL")
		case it.URL != "" && !strings.HasPrefix(it.URL, "https://") && !strings.HasPrefix(it.URL, "http://"):
			bad(i, it, "url", "%q is not an http(s) URL", it.URL)
		}
		if it.Shape == "" {
			bad(i, it, "shape", "missing")
		} else if !slices.Contains(Shapes, it.Shape) {
			bad(i, it, "shape", "unknown value %q (want one of %s)", it.Shape, join(Shapes))
		}
		seen := map[string]bool{}
		for k, e := range it.TargetsExcluded {
			field := fmt.Sprintf("targets_excluded[%d]", k)
			switch {
			case strings.TrimSpace(e.Target) == "":
				bad(i, it, field+".target", "missing")
			case seen[e.Target]:
				bad(i, it, field+".target", "target %q excluded twice", e.Target)
			}
			seen[e.Target] = true
			if strings.TrimSpace(e.Reason) == "" {
				bad(i, it, field+".reason", "missing")
			}
		}
	}
	if len(errs) > 0 {
		return Catalogue{}, errors.Join(errs...)
	}
	return c, nil
}

func join[T ~string](vs []T) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}
