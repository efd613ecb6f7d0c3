package reports

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"image/color"
	"slices"
	"strings"

	"github.com/kreactor/kreactor/reports/charts"
)

// Plot is one chart of a spec section: what it shows and how to draw it. Report.Plots
// lists them from the model alone, so the number of plots the HTML must contain is known
// without rendering (the browser check compares the two).
type Plot struct {
	// ID is unique in the report ("plot-kafka-20253-coordinator-lost-steps").
	ID string
	// Kind is "steps", "cpu", "requests" or "durations".
	Kind    string
	Title   string
	Caption string
	render  func() ([]byte, error)
}

// SVG renders the plot.
func (p Plot) SVG() ([]byte, error) { return p.render() }

// Plot kinds.
const (
	PlotSteps     = "steps"
	PlotCPU       = "cpu"
	PlotRequests  = "requests"
	PlotDurations = "durations"
)

// seriesCell is one column's series for a spec: the first repeat that recorded one.
type seriesCell struct {
	cell   SpecCell
	series *Series
	runs   int
	color  color.NRGBA
	dashed bool
}

// subjectOrder fixes subject colours: the known subjects first, others after.
var subjectOrder = []string{"reactor", "baseline", "java", "kgo", "null"}

// columnStyle gives a column its subject's colour, dashed for a second target.
func columnStyle(c Column, targets []string) (color.NRGBA, bool) {
	i := slices.Index(subjectOrder, c.Subject)
	if i < 0 {
		h := fnv.New32a()
		h.Write([]byte(c.Subject))
		i = len(subjectOrder) + int(h.Sum32()%4)
	}
	return charts.Color(i), slices.Index(targets, c.Target) > 0
}

func (r Report) targets() []string {
	var ts []string
	for _, c := range r.Columns {
		if !slices.Contains(ts, c.Target) {
			ts = append(ts, c.Target)
		}
	}
	slices.SortFunc(ts, func(a, b string) int {
		// kfake first: the default target is drawn solid.
		rank := func(t string) int {
			if t == "kfake" {
				return 0
			}
			return 1
		}
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a, b))
	})
	return ts
}

// keyOrder fixes API key colours across plots.
var keyOrder = []string{
	"FindCoordinator", "ConsumerGroupHeartbeat", "OffsetCommit", "Fetch", "Metadata",
	"OffsetFetch", "ListOffsets", "ShareGroupHeartbeat", "ShareFetch", "ShareAcknowledge", "ApiVersions",
}

func keyColor(key string) color.NRGBA {
	if i := slices.Index(keyOrder, key); i >= 0 {
		return charts.Color(i)
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	return charts.Color(int(h.Sum32() % uint32(len(charts.Palette))))
}

// maxKeyLines is how many API keys get their own line; the rest are summed as "other".
const maxKeyLines = 7

// Plots returns the plots of a spec section, in display order: loop steps per second (all
// columns on one axis, or CPU when a column has no loop probe), requests per second by API
// key (one per column, shared y scale), call durations (all columns).
func (r Report) Plots(s SpecResult) []Plot {
	targets := r.targets()
	var cells []seriesCell
	for _, c := range s.Cells {
		for _, row := range c.Runs {
			if row.Series != nil && row.Series.Buckets > 0 {
				col, dashed := columnStyle(c.Column, targets)
				cells = append(cells, seriesCell{cell: c, series: row.Series, runs: len(c.Runs), color: col, dashed: dashed})
				break
			}
		}
	}
	if len(cells) == 0 {
		return nil
	}
	base := "plot-" + s.ID
	var out []Plot
	repeats := ""
	if slices.ContainsFunc(cells, func(c seriesCell) bool { return c.runs > 1 }) {
		repeats = " Repeated runs: the first run's series is drawn."
	}

	out = append(out, loopPlots(base, cells, repeats)...)
	out = append(out, requestPlots(base, cells, repeats)...)
	if p, ok := durationPlot(base, cells, targets, repeats); ok {
		out = append(out, p)
	}
	return out
}

// faultBands are the fault windows of sc's series, in its colour.
func faultBands(sc seriesCell) []charts.Band {
	var out []charts.Band
	for _, f := range sc.series.Faults {
		if !f.IsFault() {
			continue
		}
		to := f.ToMS
		if to < 0 {
			to = int64(sc.series.Buckets) * sc.series.BucketMS
		}
		out = append(out, charts.Band{From: float64(f.FromMS) / 1000, To: float64(to) / 1000, Color: sc.color})
	}
	return out
}

// loopPlots are the loop steps per second of every column on one axis, and
// CPU per second when a column has no loop probe (or none has).
func loopPlots(base string, cells []seriesCell, repeats string) []Plot {
	var steps, cpu []charts.Line
	var bands []charts.Band
	blackBox := false
	for _, sc := range cells {
		sec := float64(sc.series.BucketMS) / 1000
		bands = append(bands, faultBands(sc)...)
		for _, cs := range sc.series.Consumers {
			label := sc.cell.Column.Name()
			if len(sc.series.Consumers) > 1 {
				label += " · " + cs.Kind
			}
			if cs.Steps != nil {
				steps = append(steps, rateLine(label, cs.Steps, sec, sc.color, sc.dashed))
			} else {
				blackBox = true
			}
			if cs.CPUMS != nil {
				cpu = append(cpu, rateLineF(label+" ("+cs.CPUScope+")", cs.CPUMS, sec, sc.color, sc.dashed))
			}
		}
	}
	var out []Plot
	if len(steps) > 0 {
		ch := charts.TimeChart{Title: "Loop steps per second", YLabel: "steps/s (log)", LogY: true, Floor: 1, Lines: steps, Bands: bands}
		out = append(out, Plot{ID: base + "-steps", Kind: PlotSteps, Title: ch.Title,
			Caption: fmt.Sprintf("Loop steps per second of each subject on one log axis; buckets of %s; a bucket with no step is drawn at 1. Shaded: fault windows, in the colour of the subject whose run had them.%s", bucketText(cells), repeats),
			render:  ch.SVG})
	}
	if (blackBox || len(steps) == 0) && len(cpu) > 0 {
		ch := charts.TimeChart{Title: "CPU per second", YLabel: "CPU ms per s (log)", LogY: true, Floor: 0.1, Lines: cpu, Bands: bands}
		out = append(out, Plot{ID: base + "-cpu", Kind: PlotCPU, Title: ch.Title,
			Caption: "CPU time per second of wall time (subject: the subject's own process; process: the whole test process, harness and in-process broker included). Shaded: fault windows." + repeats,
			render:  ch.SVG})
	}
	return out
}

// requestLines are sc's requests per second by API key: the maxKeyLines
// busiest keys, the rest summed as "other keys".
func requestLines(sc seriesCell) []charts.Line {
	sec := float64(sc.series.BucketMS) / 1000
	keys := slices.Clone(sc.series.Requests)
	total := func(k KeyCounts) (n int64) {
		for _, c := range k.Counts {
			n += c
		}
		return n
	}
	slices.SortStableFunc(keys, func(a, b KeyCounts) int { return cmp.Compare(total(b), total(a)) })
	var lines []charts.Line
	other := make([]int64, sc.series.Buckets)
	hasOther := false
	for i, k := range keys {
		if i >= maxKeyLines {
			hasOther = true
			for j, c := range k.Counts {
				other[j] += c
			}
			continue
		}
		lines = append(lines, rateLine(k.Key, k.Counts, sec, keyColor(k.Key), false))
	}
	if hasOther {
		lines = append(lines, rateLine("other keys", other, sec, charts.Color(6), true))
	}
	return lines
}

// requestPlots are the requests by API key, one chart per column on a
// shared y scale.
func requestPlots(base string, cells []seriesCell, repeats string) []Plot {
	type reqChart struct {
		sc    seriesCell
		lines []charts.Line
	}
	var reqs []reqChart
	ymax, xmax := 0.0, 0.0
	for _, sc := range cells {
		xmax = max(xmax, float64(int64(sc.series.Buckets)*sc.series.BucketMS)/1000)
	}
	for _, sc := range cells {
		if len(sc.series.Requests) == 0 {
			continue
		}
		lines := requestLines(sc)
		for _, l := range lines {
			ymax = max(ymax, slices.Max(l.Y))
		}
		reqs = append(reqs, reqChart{sc, lines})
	}
	var out []Plot
	for _, rc := range reqs {
		ch := charts.TimeChart{Title: "Requests per second by API key: " + rc.sc.cell.Column.Name(), YLabel: "req/s", Lines: rc.lines, Bands: faultBands(rc.sc), YMax: ymax, XMax: xmax}
		out = append(out, Plot{ID: fmt.Sprintf("%s-requests-%s", base, slug(rc.sc.cell.Column.Name())), Kind: PlotRequests, Title: ch.Title,
			Caption: "Requests the brokers received from this column's consumer(s), per API key, per second (the " + fmt.Sprint(maxKeyLines) + " busiest keys; the rest summed). Same axes for every column of this spec. Shaded: fault windows." + repeats,
			render:  ch.SVG})
	}
	return out
}

// durationPlot is the application call durations of every column.
func durationPlot(base string, cells []seriesCell, targets []string, repeats string) (Plot, bool) {
	var boxes []charts.Box
	for _, call := range []string{"poll", "commit_sync", "close"} {
		for _, sc := range cells {
			var vals []float64
			for _, cs := range sc.series.Consumers {
				for _, d := range cs.Calls {
					if d.Call == call {
						vals = append(vals, d.SamplesMS...)
					}
				}
			}
			if len(vals) > 0 {
				boxes = append(boxes, charts.Box{Label: call + "\n" + sc.cell.Subject + shortTarget(sc.cell.Target, targets), Values: vals, Color: sc.color})
			}
		}
	}
	if len(boxes) == 0 {
		return Plot{}, false
	}
	ch := charts.BoxChart{Title: "Application call durations", YLabel: "ms (log)", LogY: true, Floor: 0.01, Boxes: boxes}
	return Plot{ID: base + "-durations", Kind: PlotDurations, Title: ch.Title,
		Caption: fmt.Sprintf("Durations of Poll, CommitSync and Close per subject: box from first to third quartile, line at the median, whiskers to 1.5 IQR, dots beyond (a uniform sample of at most %d calls per kind).%s", MaxDurationSamples, repeats),
		render:  ch.SVG}, true
}

// PlotCount is the number of plots the HTML report draws.
func (r Report) PlotCount() int {
	n := 0
	for _, s := range r.Specs {
		n += len(r.Plots(s))
	}
	return n
}

func shortTarget(t string, targets []string) string {
	if len(targets) > 1 {
		return "/" + t
	}
	return ""
}

func bucketText(cells []seriesCell) string {
	var ws []string
	for _, c := range cells {
		w := fmt.Sprintf("%d ms", c.series.BucketMS)
		if !slices.Contains(ws, w) {
			ws = append(ws, w)
		}
	}
	return strings.Join(ws, " / ")
}

// rateLine turns per-bucket counts into a per-second line at bucket midpoints.
func rateLine(label string, counts []int64, sec float64, c color.NRGBA, dashed bool) charts.Line {
	l := charts.Line{Label: label, Color: c, Dashed: dashed}
	for i, n := range counts {
		l.X = append(l.X, (float64(i)+0.5)*sec)
		l.Y = append(l.Y, float64(n)/sec)
	}
	return l
}

func rateLineF(label string, vals []float64, sec float64, c color.NRGBA, dashed bool) charts.Line {
	l := charts.Line{Label: label, Color: c, Dashed: dashed}
	for i, v := range vals {
		l.X = append(l.X, (float64(i)+0.5)*sec)
		l.Y = append(l.Y, v/sec)
	}
	return l
}
