package tracepath

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"
	"time"
)

// Quantiles are the median and 90th percentile of one part of a shape's
// paths (nearest rank: the ceil(q*n)-th smallest, as bench's latency
// quantiles).
type Quantiles struct{ P50, P90 time.Duration }

// HopSummary is one hand-off of a shape.
type HopSummary struct {
	To         string
	Work, Wait Quantiles
}

// Summary is the paths of one shape.
type Summary struct {
	Shape       string
	Paths       int
	Read, Total Quantiles
	Hops        []HopSummary
}

// Summarize groups paths by shape, most paths first (ties by shape).
func Summarize(paths []Path) []Summary {
	by := map[string][]Path{}
	for _, p := range paths {
		by[p.Shape()] = append(by[p.Shape()], p)
	}
	out := make([]Summary, 0, len(by))
	for shape, ps := range by {
		s := Summary{Shape: shape, Paths: len(ps),
			Read:  quantiles(ps, func(p Path) time.Duration { return p.Read }),
			Total: quantiles(ps, func(p Path) time.Duration { return p.Total })}
		for i, h := range ps[0].Hops {
			s.Hops = append(s.Hops, HopSummary{To: h.To,
				Work: quantiles(ps, func(p Path) time.Duration { return p.Hops[i].Work }),
				Wait: quantiles(ps, func(p Path) time.Duration { return p.Hops[i].Wait })})
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Summary) int {
		return cmp.Or(cmp.Compare(b.Paths, a.Paths), cmp.Compare(a.Shape, b.Shape))
	})
	return out
}

func quantiles(ps []Path, part func(Path) time.Duration) Quantiles {
	d := make([]time.Duration, len(ps))
	for i, p := range ps {
		d[i] = part(p)
	}
	slices.Sort(d)
	rank := func(q float64) time.Duration {
		return d[max(0, int(math.Ceil(q*float64(len(d))))-1)]
	}
	return Quantiles{P50: rank(0.5), P90: rank(0.9)}
}

// Write writes s as a table, one row per part in path order, p50 and p90
// in µs: "read" (the network wake-up to the read's return), then for each
// hop "work" (the goroutine's part before readying the next; the first is
// the woken goroutine's) and "wait" (the next one's readying to its
// running), then "total". r gives the counts of the trace s came from.
func Write(w io.Writer, s Summary, r Result) error {
	fmt.Fprintf(w, "shape: %s\npaths: %d of this shape, %d followed in all; %d network wake-ups, %d overtaken, %d parked\n",
		s.Shape, s.Paths, len(r.Paths), r.Wakeups, r.Overtaken, r.Parked)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "part\tp50 µs\tp90 µs\t")
	row := func(name string, q Quantiles) {
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t\n", name, us(q.P50), us(q.P90))
	}
	row("read", s.Read)
	from := "woken"
	for _, h := range s.Hops {
		row(from+" work", h.Work)
		row("wait for "+h.To, h.Wait)
		from = h.To
	}
	row("total", s.Total)
	return tw.Flush()
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
