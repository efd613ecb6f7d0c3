package charts

import (
	"bytes"
	"strings"
	"testing"
)

func TestTimeChart(t *testing.T) {
	c := TimeChart{Title: "steps <script>&", YLabel: "steps/s", LogY: true, Floor: 1,
		Lines: []Line{{Label: "reactor", X: []float64{0.05, 0.15}, Y: []float64{20, 0}, Color: Color(0)},
			{Label: "baseline", X: []float64{0.05, 0.15}, Y: []float64{50000, 90000}, Color: Color(1), Dashed: true}},
		Bands: []Band{{From: 0.1, To: 0.2, Color: Color(1)}}}
	a, err := c.SVG()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := c.SVG()
	if !bytes.Equal(a, b) {
		t.Error("same chart, different SVG")
	}
	s := string(a)
	for _, want := range []string{`<svg`, `class="kreactor-plot" data-kind="time"`, "steps &lt;script&gt;&amp;", ">reactor<", ">baseline<", "100000"} {
		if !strings.Contains(s, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if strings.Contains(s, "<?xml") || strings.Contains(s, "<script>") {
		t.Error("SVG has a prolog or unescaped text")
	}
	if _, err := (TimeChart{Lines: []Line{{X: []float64{1}, Y: nil}}}).SVG(); err == nil {
		t.Error("mismatched x and y accepted")
	}
	if _, err := (TimeChart{}).SVG(); err == nil {
		t.Error("no line accepted")
	}
}

func TestBoxChart(t *testing.T) {
	svg, err := BoxChart{Title: "durations", YLabel: "ms", LogY: true, Boxes: []Box{
		{Label: "poll\nreactor", Values: []float64{0.2, 1, 100, 101}, Color: Color(0)},
		{Label: "close\nbaseline", Values: []float64{10000}, Color: Color(1)},
	}}.SVG()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), `data-kind="box"`) || !strings.Contains(string(svg), ">poll<") {
		t.Errorf("box chart SVG: %.300s", svg)
	}
	if _, err := (BoxChart{Boxes: []Box{{Label: "empty"}}}).SVG(); err == nil {
		t.Error("a box chart with no values rendered")
	}
}
