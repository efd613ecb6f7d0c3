package reports

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Figure is the value specs pass to Ginkgo's AddReportEntry for a measured number:
//
//	AddReportEntry("find_coordinator_rate", reports.Figure{Value: 0.9, Unit: "req/s", Bound: "<= 1 req/s"})
//
// Ginkgo stores the value's JSON (`{"value":0.9,"unit":"req/s","bound":"<= 1 req/s"}`) in the
// entry's AsJSON and String() in its Representation; Parse decodes AsJSON back into a Figure.
// Value must be finite (JSON has no NaN or infinity). Unit may be empty for a pure count;
// Bound is free text stating the limit the spec checks, shown next to the value in reports.
type Figure struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
	Bound string  `json:"bound,omitempty"`
}

// String renders "value unit (bound)", leaving out empty parts, e.g. "0.9 req/s (<= 1 req/s)".
func (f Figure) String() string {
	var b strings.Builder
	b.WriteString(formatValue(f.Value))
	if f.Unit != "" {
		b.WriteString(" ")
		b.WriteString(f.Unit)
	}
	if f.Bound != "" {
		b.WriteString(" (")
		b.WriteString(f.Bound)
		b.WriteString(")")
	}
	return b.String()
}

// formatValue prints v without exponent for ordinary magnitudes and without trailing zeros.
func formatValue(v float64) string {
	if a := math.Abs(v); a != 0 && (a >= 1e15 || a < 1e-4) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// NamedFigure is one report entry of a spec, in the order the spec added it. An entry whose
// value decodes as a Figure (a JSON object with a numeric "value", a string "unit", an optional
// string "bound" and nothing else) has IsText false; any other entry is kept as plain text in
// Text (Ginkgo's representation of the value).
type NamedFigure struct {
	Name   string
	Figure Figure
	Text   string
	IsText bool
}

// String renders "name=value unit (bound)" or, for a text entry, "name=text".
func (n NamedFigure) String() string {
	if n.IsText {
		return n.Name + "=" + n.Text
	}
	return n.Name + "=" + n.Figure.String()
}

// MarshalJSON writes {"name","value","unit","bound"} for a figure and {"name","text"} for a
// text entry.
func (n NamedFigure) MarshalJSON() ([]byte, error) {
	var v any = struct {
		Name string `json:"name"`
		Figure
	}{n.Name, n.Figure}
	if n.IsText {
		v = struct {
			Name string `json:"name"`
			Text string `json:"text"`
		}{n.Name, n.Text}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // keep "<= 1 s" readable in summary.json
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// decodeFigure decodes a Ginkgo entry's AsJSON as a Figure; ok is false if it is not one.
func decodeFigure(asJSON string) (f Figure, ok bool) {
	var probe struct {
		Value *float64 `json:"value"`
		Unit  *string  `json:"unit"`
		Bound *string  `json:"bound"`
	}
	dec := json.NewDecoder(strings.NewReader(asJSON))
	dec.DisallowUnknownFields()
	if !bytes.HasPrefix(bytes.TrimSpace([]byte(asJSON)), []byte("{")) {
		return Figure{}, false
	}
	if err := dec.Decode(&probe); err != nil || dec.More() {
		return Figure{}, false
	}
	if probe.Value == nil || probe.Unit == nil {
		return Figure{}, false
	}
	f = Figure{Value: *probe.Value, Unit: *probe.Unit}
	if probe.Bound != nil {
		f.Bound = *probe.Bound
	}
	return f, true
}
