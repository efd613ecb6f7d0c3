package sim

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// History is everything one run recorded, in the order it happened: what
// the brokers read (every request's header, every OffsetCommit's offsets),
// what they kept (the committed offsets at the end), and what the run
// function reported of the application side (records delivered, events).
// Every time is a duration since the run's start: virtual time in Run, wall
// time in RunWall.
type History struct {
	Seed    uint64
	Bubble  bool          // recorded inside a synctest bubble (Run), not on the wall clock (RunWall)
	Virtual time.Duration // time from the start to the run function's return (virtual in Run)
	Wall    time.Duration // wall time of the whole run, cluster start to close

	// Requests is every request any client sent, as the brokers read it
	// (fakebroker's recorder, kfake's sockets): a request queued behind a
	// held one on its connection is read when the hold ends.
	Requests []Request
	// DroppedRequests counts requests the recorder evicted
	// (fakebroker.Config.MaxRecords); non-zero means Requests is partial.
	DroppedRequests uint64
	// CommitRequests is every partition offset of every OffsetCommit the
	// brokers read, answered or faulted (OffsetCommit v2+ fields).
	CommitRequests []CommitRequest
	// Committed is each group's committed offsets when the run function
	// returned (kfake's GroupInfo), for every group an OffsetCommit named,
	// sorted by group, topic, partition.
	Committed []Committed
	// Deliveries is every record the run function reported delivered
	// (Env.Delivered), in report order.
	Deliveries []Delivery
	// Events is every application-side event the run function reported
	// (Env.Note), in report order.
	Events []Event
}

// Request is one request a broker read (wire.Request, timed from the run's
// start).
type Request struct {
	At            time.Duration // since the start
	Key           kmsg.Key
	Version       int16
	ClientID      string
	Node          int32  // broker that read it
	Conn          uint64 // connection number, in accept order from 1
	CorrelationID int32
	Size          int32 // frame bytes after the size prefix
}

// CommitRequest is one partition of an OffsetCommit as a broker read it.
type CommitRequest struct {
	At        time.Duration
	Group     string
	MemberID  string
	Epoch     int32 // generation / member epoch the request carried
	Topic     string
	Partition int32
	Offset    int64 // the next offset to consume
}

// Committed is a group's committed offset for one partition at the end.
type Committed struct {
	Group     string
	Topic     string
	Partition int32
	Offset    int64
	At        time.Duration // when the broker accepted it, since the start
}

// Delivery is one record handed to the application.
type Delivery struct {
	At        time.Duration
	Member    string // the run function's name for the consumer (its client id, usually)
	Topic     string
	Partition int32
	Offset    int64
}

// Event is an application-side event: a call and its outcome.
type Event struct {
	At     time.Duration
	Member string
	What   string
}

// Sections of a History, in Lines order.
const (
	SectionRequests       = "requests"
	SectionCommitRequests = "commit-requests"
	SectionCommitted      = "committed"
	SectionDeliveries     = "deliveries"
	SectionEvents         = "events"
)

// sectionNames is every section, in order.
var sectionNames = []string{SectionRequests, SectionCommitRequests, SectionCommitted, SectionDeliveries, SectionEvents}

// line is one rendered history item: its time and the rest.
type line struct {
	at   time.Duration
	body string
}

func (l line) String() string { return fmt.Sprintf("+%s %s", l.at, l.body) }

// sections renders h, one slice of lines per section.
func (h *History) sections() map[string][]line {
	s := make(map[string][]line, len(sectionNames))
	for _, r := range h.Requests {
		s[SectionRequests] = append(s[SectionRequests], line{r.At, fmt.Sprintf("node=%d conn=%d %s v%d client=%s corr=%d size=%d",
			r.Node, r.Conn, kmsg.NameForKey(int16(r.Key)), r.Version, r.ClientID, r.CorrelationID, r.Size)})
	}
	for _, c := range h.CommitRequests {
		s[SectionCommitRequests] = append(s[SectionCommitRequests], line{c.At, fmt.Sprintf("group=%s member=%s epoch=%d %s[%d]=%d",
			c.Group, c.MemberID, c.Epoch, c.Topic, c.Partition, c.Offset)})
	}
	for _, c := range h.Committed {
		s[SectionCommitted] = append(s[SectionCommitted], line{c.At, fmt.Sprintf("group=%s %s[%d]=%d", c.Group, c.Topic, c.Partition, c.Offset)})
	}
	for _, d := range h.Deliveries {
		s[SectionDeliveries] = append(s[SectionDeliveries], line{d.At, fmt.Sprintf("%s %s[%d]@%d", d.Member, d.Topic, d.Partition, d.Offset)})
	}
	for _, e := range h.Events {
		s[SectionEvents] = append(s[SectionEvents], line{e.At, e.Member + " " + e.What})
	}
	return s
}

// Lines renders h as text, one item per line, each section opened by a
// "# section (n)" line: the form to diff, log, or attach to a scenario
// file.
func (h *History) Lines() []string {
	s := h.sections()
	var out []string
	for _, name := range sectionNames {
		out = append(out, fmt.Sprintf("# %s (%d)", name, len(s[name])))
		for _, l := range s[name] {
			out = append(out, l.String())
		}
	}
	return out
}

// Equal reports whether h and o recorded the same thing: every section
// item for item, times included (Seed, Wall and Virtual aside).
func (h *History) Equal(o *History) bool { return len(Diff(h, o)) == 0 }

// SectionDiff is how one section of two histories differs.
type SectionDiff struct {
	Section string
	LenA    int // items in a
	LenB    int // items in b
	// Differing is how many positions differ (the shorter length's
	// positions compared, plus the extra items).
	Differing int
	// First is the first differing position, with both items there (""
	// past an end).
	First        int
	FirstA       string
	FirstB       string
	FirstTimeGap time.Duration // b's time minus a's at First, when both exist
	// SameIgnoringTimes: the items are the same in the same order once
	// their times are dropped (only timing differs).
	SameIgnoringTimes bool
	// SameItems: the same items with the same times, in another order
	// (only the order among items differs: e.g. of requests read at one
	// virtual instant).
	SameItems bool
	// SameItemsIgnoringTimes: the same items, times dropped, in any order.
	SameItemsIgnoringTimes bool
}

// Nature says in words how the section differs.
func (d SectionDiff) Nature() string {
	switch {
	case d.SameItems:
		return "same items and times, different order"
	case d.SameIgnoringTimes:
		return "same items in the same order, different times"
	case d.SameItemsIgnoringTimes:
		return "same items, different order and times"
	case d.LenA != d.LenB:
		return fmt.Sprintf("different items (%d vs %d)", d.LenA, d.LenB)
	}
	return "different items"
}

func (d SectionDiff) String() string {
	return fmt.Sprintf("%s: %s; %d of %d/%d positions differ, first at %d: %q vs %q",
		d.Section, d.Nature(), d.Differing, d.LenA, d.LenB, d.First, d.FirstA, d.FirstB)
}

// Diff compares two histories section by section and returns one
// SectionDiff per section that differs (none when they are equal).
func Diff(a, b *History) []SectionDiff {
	sa, sb := a.sections(), b.sections()
	var out []SectionDiff
	for _, name := range sectionNames {
		if d, ok := diffSection(name, sa[name], sb[name]); ok {
			out = append(out, d)
		}
	}
	return out
}

func diffSection(name string, a, b []line) (SectionDiff, bool) {
	d := SectionDiff{Section: name, LenA: len(a), LenB: len(b), First: -1}
	for i := range max(len(a), len(b)) {
		if i < len(a) && i < len(b) && a[i] == b[i] {
			continue
		}
		d.Differing++
		if d.First < 0 {
			d.First = i
			if i < len(a) {
				d.FirstA = a[i].String()
			}
			if i < len(b) {
				d.FirstB = b[i].String()
			}
			if i < len(a) && i < len(b) {
				d.FirstTimeGap = b[i].at - a[i].at
			}
		}
	}
	if d.Differing == 0 {
		return d, false
	}
	bodies := func(ls []line) []string {
		out := make([]string, len(ls))
		for i, l := range ls {
			out[i] = l.body
		}
		return out
	}
	full := func(ls []line) []string {
		out := make([]string, len(ls))
		for i, l := range ls {
			out[i] = l.String()
		}
		return out
	}
	d.SameIgnoringTimes = slices.Equal(bodies(a), bodies(b))
	d.SameItems = sameMultiset(full(a), full(b))
	d.SameItemsIgnoringTimes = sameMultiset(bodies(a), bodies(b))
	return d, true
}

func sameMultiset(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func joinStacks(stacks []string) string { return strings.Join(stacks, "\n\n") }

// Canonical returns a copy of h that keeps what a seed can fix and drops
// what goroutine scheduling inside a bubble decides: items of a section
// that happened at the same instant are sorted (by their text), and each
// request's connection number and correlation id (set by the order
// concurrent dials were accepted) are zeroed. Two runs with one seed whose
// canonical histories are equal made the same requests, deliveries and
// commits at the same virtual times; only the order of simultaneous
// events differed. Check anomalies (offset order within a partition) on
// the history itself, never on its canonical form.
func (h *History) Canonical() *History {
	c := *h
	c.Requests = slices.Clone(h.Requests)
	for i := range c.Requests {
		c.Requests[i].Conn, c.Requests[i].CorrelationID = 0, 0
	}
	c.CommitRequests = slices.Clone(h.CommitRequests)
	c.Committed = slices.Clone(h.Committed)
	c.Deliveries = slices.Clone(h.Deliveries)
	c.Events = slices.Clone(h.Events)
	s := c.sections()
	// Sort each section by (time, text) through its rendered lines:
	// every item type renders every field it has.
	sortBy := func(n int, at func(i int) time.Duration, text []line, swap func(perm []int)) {
		perm := make([]int, n)
		for i := range perm {
			perm[i] = i
		}
		slices.SortStableFunc(perm, func(a, b int) int {
			if at(a) != at(b) {
				return cmp.Compare(at(a), at(b))
			}
			return strings.Compare(text[a].body, text[b].body)
		})
		swap(perm)
	}
	sortBy(len(c.Requests), func(i int) time.Duration { return c.Requests[i].At }, s[SectionRequests],
		func(p []int) { c.Requests = permute(c.Requests, p) })
	sortBy(len(c.CommitRequests), func(i int) time.Duration { return c.CommitRequests[i].At }, s[SectionCommitRequests],
		func(p []int) { c.CommitRequests = permute(c.CommitRequests, p) })
	sortBy(len(c.Committed), func(i int) time.Duration { return c.Committed[i].At }, s[SectionCommitted],
		func(p []int) { c.Committed = permute(c.Committed, p) })
	sortBy(len(c.Deliveries), func(i int) time.Duration { return c.Deliveries[i].At }, s[SectionDeliveries],
		func(p []int) { c.Deliveries = permute(c.Deliveries, p) })
	sortBy(len(c.Events), func(i int) time.Duration { return c.Events[i].At }, s[SectionEvents],
		func(p []int) { c.Events = permute(c.Events, p) })
	return &c
}

// permute returns s reordered so that item i is s[perm[i]].
func permute[T any](s []T, perm []int) []T {
	out := make([]T, len(s))
	for i, j := range perm {
		out[i] = s[j]
	}
	return out
}

// Fingerprint is a short hash (16 hex digits of SHA-256) of h.Lines(): equal
// histories have equal fingerprints, in any process. Compare
// h.Canonical().Fingerprint() across runs to ignore what scheduling decides.
func (h *History) Fingerprint() string {
	sum := sha256.Sum256([]byte(strings.Join(h.Lines(), "\n")))
	return hex.EncodeToString(sum[:8])
}
