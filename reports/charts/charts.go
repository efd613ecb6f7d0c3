// Package charts renders the conformance report's plots as SVG with gonum.org/v1/plot
// (v0.17.0): time charts (one line per series, shaded fault windows, linear or log y axis)
// and box charts (duration distributions).
//
// Why gonum/plot: it is the Go ecosystem's long-kept plotting library (BSD licensed, part of
// the Gonum project, released regularly since 2015; v0.17.0 is pinned), it draws SVG in pure
// Go with no browser, no JavaScript and no network (vg/vgsvg), so the report stays one
// offline file and the same code renders in CI; and it has the two chart kinds needed here
// (lines on log axes, box plots). Wrappers of JavaScript libraries (go-echarts, Plotly) would
// put the library's script into every report and draw only inside a browser.
//
// Every chart is deterministic for the same input (no timestamps, no random ids) and its SVG
// carries a class ("kreactor-plot") and data-kind attribute so tests and the browser check
// can count rendered plots. Text in the SVG is escaped by the SVG backend (html.EscapeString).
package charts

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"regexp"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Palette is the colour of each series index (subjects keep one colour across charts).
var Palette = []color.NRGBA{
	{0x1f, 0x5f, 0xbf, 0xff}, // blue
	{0xd6, 0x45, 0x1b, 0xff}, // red-orange
	{0x2c, 0x9c, 0x4a, 0xff}, // green
	{0x8e, 0x44, 0xad, 0xff}, // purple
	{0xb8, 0x86, 0x0b, 0xff}, // dark yellow
	{0x17, 0x9e, 0xb0, 0xff}, // teal
	{0x7f, 0x7f, 0x7f, 0xff}, // grey
	{0xe3, 0x77, 0xc2, 0xff}, // pink
	{0x5b, 0x3a, 0x29, 0xff}, // brown
	{0x00, 0x00, 0x80, 0xff}, // navy
	{0x80, 0x80, 0x00, 0xff}, // olive
	{0xff, 0x8c, 0x00, 0xff}, // orange
}

// Color returns palette colour i (wrapping).
func Color(i int) color.NRGBA { return Palette[((i%len(Palette))+len(Palette))%len(Palette)] }

// Line is one series on a time chart: Y[i] at X[i] seconds.
type Line struct {
	Label string
	X, Y  []float64
	Color color.NRGBA
	// Dashed draws the line dashed (e.g. a second target of the same subject).
	Dashed bool
}

// Band is a shaded x range (a fault window), From..To seconds.
type Band struct {
	From, To float64
	Color    color.NRGBA
}

// TimeChart is a line chart over seconds.
type TimeChart struct {
	Title, YLabel string
	// LogY draws y on a log10 axis; values at or below Floor are drawn at Floor.
	LogY  bool
	Floor float64
	// XMax is the right end of the x axis in seconds (0: the data's).
	XMax float64
	// YMax is the least top of the y axis (0: the data's), so charts compared side by side
	// share a scale.
	YMax  float64
	Lines []Line
	Bands []Band
	// Width and Height in points (0: 520 x 230).
	Width, Height float64
}

// Kinds of chart, in the SVG's data-kind attribute.
const (
	KindTime = "time"
	KindBox  = "box"
)

func init() {
	plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
}

func newPlot(title string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.X.Label.TextStyle.Font.Size = vg.Points(9)
	p.Y.Label.TextStyle.Font.Size = vg.Points(9)
	p.X.Tick.Label.Font.Size = vg.Points(8)
	p.Y.Tick.Label.Font.Size = vg.Points(8)
	p.BackgroundColor = color.White
	return p
}

// newLegend makes the legend drawn beside the plot (never over the data).
func newLegend() plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font = font.From(plot.DefaultFont, vg.Points(8))
	l.Top = true
	l.Left = true
	l.ThumbnailWidth = vg.Points(14)
	l.Padding = vg.Points(2.5)
	return l
}

// SVG renders the chart. Errors: no line, or lines whose X and Y differ in length.
func (c TimeChart) SVG() ([]byte, error) {
	if len(c.Lines) == 0 {
		return nil, errors.New("charts: time chart with no line")
	}
	p := newPlot(c.Title)
	legend := newLegend()
	var labels []string
	p.X.Label.Text = "seconds since the spec's first cluster"
	p.Y.Label.Text = c.YLabel
	floor := c.Floor
	if c.LogY && floor <= 0 {
		floor = 0.1
	}
	ymax, xmax := c.YMax, c.XMax
	for _, l := range c.Lines {
		if len(l.X) != len(l.Y) {
			return nil, fmt.Errorf("charts: line %q has %d x and %d y values", l.Label, len(l.X), len(l.Y))
		}
		for i := range l.Y {
			ymax = math.Max(ymax, l.Y[i])
			if c.XMax == 0 {
				xmax = math.Max(xmax, l.X[i])
			}
		}
	}
	for _, b := range c.Bands {
		if c.XMax == 0 {
			xmax = math.Max(xmax, b.To)
		}
	}
	ymin := 0.0
	if c.LogY {
		ymin = floor
		ymax = math.Max(ymax, floor*10)
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		// Round the top up to a power of ten so the ticks read cleanly.
		ymax = math.Pow(10, math.Ceil(math.Log10(ymax)))
	} else {
		if ymax <= 0 {
			ymax = 1
		}
		ymax *= 1.08
	}
	p.Y.Min, p.Y.Max = ymin, ymax
	p.X.Min, p.X.Max = 0, math.Max(xmax, 0.1)

	for _, b := range c.Bands {
		to := b.To
		if to < b.From {
			continue
		}
		poly, err := plotter.NewPolygon(plotter.XYs{{X: b.From, Y: ymin}, {X: to, Y: ymin}, {X: to, Y: ymax}, {X: b.From, Y: ymax}})
		if err != nil {
			return nil, err
		}
		fill := b.Color
		fill.A = 0x2e
		poly.Color = fill
		poly.LineStyle.Width = 0
		p.Add(poly)
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color = color.Gray{Y: 0xe4}
	grid.Horizontal.Color = color.Gray{Y: 0xe4}
	p.Add(grid)
	for _, l := range c.Lines {
		xys := make(plotter.XYs, len(l.X))
		for i := range l.X {
			y := l.Y[i]
			if c.LogY && y < floor {
				y = floor
			}
			xys[i] = plotter.XY{X: l.X[i], Y: y}
		}
		if len(xys) == 0 {
			continue
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("charts: line %q: %w", l.Label, err)
		}
		line.Color = l.Color
		line.Width = vg.Points(1.3)
		if l.Dashed {
			line.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		p.Add(line)
		legend.Add(l.Label, line)
		labels = append(labels, l.Label)
	}
	return render(p, &legend, labels, KindTime, c.Width, c.Height)
}

// Box is one distribution on a box chart.
type Box struct {
	Label  string
	Values []float64
	Color  color.NRGBA
}

// BoxChart draws one box per group (median, quartiles, whiskers at 1.5 IQR, outliers).
type BoxChart struct {
	Title, YLabel string
	// LogY draws y on a log10 axis; values at or below Floor are drawn at Floor.
	LogY          bool
	Floor         float64
	Boxes         []Box
	Width, Height float64
}

// SVG renders the chart. Errors: no box with values.
func (c BoxChart) SVG() ([]byte, error) {
	p := newPlot(c.Title)
	p.Y.Label.Text = c.YLabel
	floor := c.Floor
	if c.LogY && floor <= 0 {
		floor = 0.01
	}
	var names []string
	ymin, ymax := math.Inf(1), math.Inf(-1)
	n := 0
	for _, b := range c.Boxes {
		if len(b.Values) == 0 {
			continue
		}
		vals := make(plotter.Values, len(b.Values))
		for i, v := range b.Values {
			if c.LogY && v < floor {
				v = floor
			}
			vals[i] = v
			ymin, ymax = math.Min(ymin, v), math.Max(ymax, v)
		}
		box, err := plotter.NewBoxPlot(vg.Points(22), float64(n), vals)
		if err != nil {
			return nil, fmt.Errorf("charts: box %q: %w", b.Label, err)
		}
		box.FillColor = withAlpha(b.Color, 0x55)
		box.BoxStyle.Color = b.Color
		box.MedianStyle.Color = b.Color
		box.MedianStyle.Width = vg.Points(2)
		box.WhiskerStyle.Color = b.Color
		box.GlyphStyle.Color = b.Color
		p.Add(box)
		names = append(names, b.Label)
		n++
	}
	if n == 0 {
		return nil, errors.New("charts: box chart with no values")
	}
	if c.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		p.Y.Min = math.Pow(10, math.Floor(math.Log10(ymin)))
		p.Y.Max = math.Pow(10, math.Ceil(math.Log10(math.Max(ymax, ymin*10))))
	}
	p.NominalX(names...)
	p.X.Tick.Label.Font.Size = vg.Points(8)
	w := c.Width
	if w == 0 {
		w = math.Max(260, 90+62*float64(n))
	}
	return render(p, nil, nil, KindBox, w, c.Height)
}

func withAlpha(c color.NRGBA, a uint8) color.NRGBA {
	c.A = a
	return c
}

// svgRoot matches the root element's opening tag.
var svgRoot = regexp.MustCompile(`<svg[^>]*>`)

// Default chart size in points: two charts side by side fit the report's width.
const (
	DefaultWidth  = 440
	DefaultHeight = 220
)

// render draws p (and legend, whose entries are labels, in a column on the right) to SVG, drops
// the XML prolog (the SVG is inlined in HTML), and marks the root element with its class
// and kind.
func render(p *plot.Plot, legend *plot.Legend, labels []string, kind string, w, h float64) ([]byte, error) {
	if w == 0 {
		w = DefaultWidth
	}
	if h == 0 {
		h = DefaultHeight
	}
	cv := vgsvg.New(vg.Points(w), vg.Points(h))
	dc := draw.New(cv)
	if legend != nil && len(labels) > 0 {
		lw := vg.Length(0)
		for _, l := range labels {
			lw = max(lw, legend.TextStyle.Width(l))
		}
		lw += legend.ThumbnailWidth + vg.Points(14)
		p.Draw(draw.Crop(dc, 0, -lw, 0, 0))
		legend.YOffs = -vg.Points(18) // below the title
		legend.Draw(draw.Crop(dc, vg.Points(w)-lw+vg.Points(4), 0, 0, 0))
	} else {
		p.Draw(dc)
	}
	var buf bytes.Buffer
	if _, err := cv.WriteTo(&buf); err != nil {
		return nil, err
	}
	out := buf.Bytes()
	if i := bytes.Index(out, []byte("<svg")); i >= 0 {
		out = out[i:]
	}
	loc := svgRoot.FindIndex(out)
	if loc == nil {
		return nil, errors.New("charts: the SVG backend wrote no <svg> element")
	}
	tag := string(out[loc[0] : loc[1]-1])
	tag += fmt.Sprintf(` class="kreactor-plot" data-kind="%s" role="img" style="font-family: 'Liberation Sans', Arial, Helvetica, sans-serif"`, kind)
	res := append([]byte(tag+">"), out[loc[1]:]...)
	return bytes.ReplaceAll(res, []byte("font-family:Liberation Sans;"), []byte("")), nil
}
