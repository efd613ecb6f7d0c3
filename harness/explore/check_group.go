package explore

// Detectors across the members of one group: what a rebalance may cost
// (a record delivered again by the partition's next owner) and what it may
// not (a new owner starting below what the group had committed, a commit
// going backwards, a member still delivering a partition after it
// acknowledged its revocation, an acknowledgement accepted for a record
// another share member holds).

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Anomaly names of the group detectors.
const (
	AnomalyCrossDuplicate = "duplicate-across-members"
	AnomalyCommitBackward = "commit-backwards"
	AnomalyKeptRevoked    = "kept-after-revocation"
	AnomalyAckForeign     = "share-ack-foreign"
)

// delivery is one record handed to a member by one Poll.
type delivery struct {
	member     string
	start, end time.Duration
	epoch      EpochKey
}

// deliveries returns, per record, the Polls that handed it, in the order
// they returned.
func deliveries(tr *Trace) map[Rec][]delivery {
	out := map[Rec][]delivery{}
	for _, o := range tr.Ops {
		if o.Kind != OpPoll {
			continue
		}
		for _, r := range o.Records {
			out[r] = append(out[r], delivery{o.Member, o.Start, o.End, o.Epoch})
		}
	}
	for r := range out {
		slices.SortStableFunc(out[r], func(a, b delivery) int { return cmp.Compare(a.end, b.end) })
	}
	return out
}

// sortedRecs is the keys of m in topic, partition, offset order.
func sortedRecs[V any](m map[Rec]V) []Rec {
	out := make([]Rec, 0, len(m))
	for r := range m {
		out = append(out, r)
	}
	slices.SortFunc(out, cmpRec)
	return out
}

// requestTimes returns, per client, the read times of its requests of the
// keys, in order (one pass over the history).
func requestTimes(tr *Trace, keys ...kmsg.Key) map[string][]time.Duration {
	out := map[string][]time.Duration{}
	for _, r := range tr.History.Requests {
		if slices.Contains(keys, r.Key) {
			out[r.ClientID] = append(out[r.ClientID], r.At)
		}
	}
	for _, ts := range out {
		slices.Sort(ts)
	}
	return out
}

// committedBefore is the offset of partition k the group had committed at
// the latest commit the brokers accepted strictly before t, or -1.
func committedBefore(tr *Trace, k tp, t time.Duration) (int64, time.Duration) {
	off, at := int64(-1), time.Duration(-1)
	for _, c := range tr.Commits {
		if c.At >= t {
			break
		}
		if c.Topic == k.topic && c.Partition == k.partition {
			off, at = c.Offset, c.At
		}
	}
	return off, at
}

// CheckCrossDuplicates: a record delivered by one member and later by
// another, below the offset the group had committed before the second
// member could have fetched its starting position. A partition's next
// owner starts at the committed offset: it may deliver again what the
// previous owner delivered after its last commit (the window a rebalance
// allows, at-least-once), never what was committed. The second member's
// position comes from an OffsetFetch it sent after the first member last
// delivered the partition (the first member revoked it after that); the
// commit must have been accepted before the earliest such OffsetFetch was
// read, so the check is conservative. Regular groups only.
func CheckCrossDuplicates(tr *Trace) []Anomaly {
	if tr.History == nil || tr.isShare() {
		return nil
	}
	// handed is, per member and partition, the end of every Poll that
	// returned its records, in order.
	type mk struct {
		member string
		k      tp
	}
	handed := map[mk][]time.Duration{}
	for _, o := range tr.Ops {
		if o.Kind != OpPoll {
			continue
		}
		seen := map[tp]bool{}
		for _, r := range o.Records {
			k := tp{r.Topic, r.Partition}
			if !seen[k] {
				seen[k] = true
				handed[mk{o.Member, k}] = append(handed[mk{o.Member, k}], o.End)
			}
		}
	}
	for _, ts := range handed {
		slices.Sort(ts)
	}
	lastOf := func(member string, k tp, before time.Duration) time.Duration {
		ts := handed[mk{member, k}]
		i, _ := slices.BinarySearch(ts, before+1)
		if i == 0 {
			return -1
		}
		return ts[i-1]
	}
	fetches := requestTimes(tr, kmsg.OffsetFetch)
	type pair struct {
		member string
		k      tp
	}
	reported := map[pair]bool{}
	var out []Anomaly
	dels := deliveries(tr)
	for _, r := range sortedRecs(dels) {
		ds := dels[r]
		k := tp{r.Topic, r.Partition}
		for i := 1; i < len(ds); i++ {
			x, y := ds[i-1], ds[i]
			if x.member == y.member || reported[pair{y.member, k}] {
				continue
			}
			xLast := lastOf(x.member, k, y.end)
			var fetch time.Duration = -1
			for _, at := range fetches[y.member] {
				if at > xLast && at <= y.end {
					fetch = at
					break
				}
			}
			if fetch < 0 {
				continue // no position fetched after the handover: nothing to judge
			}
			committed, cAt := committedBefore(tr, k, fetch)
			if r.Offset >= committed {
				continue // within what a rebalance may redeliver
			}
			reported[pair{y.member, k}] = true
			out = append(out, Anomaly{Name: AnomalyCrossDuplicate, Member: y.member, At: y.end, Evidence: fmt.Sprintf(
				"%s@%d delivered by %s (+%s) and again by %s (+%s), but the group had committed %s at %d (+%s), before %s's first OffsetFetch after %s last delivered the partition (+%s, +%s): the new owner started below the committed offset",
				k, r.Offset, x.member, x.end, y.member, y.end, k, committed, cAt, y.member, x.member, xLast, fetch)})
		}
	}
	return out
}

// CheckCommitBackwards: a partition's committed offset, as the brokers
// accepted it, going down. Nothing in a schedule seeks or resets a
// position, so the group's progress on a partition only moves forward:
// a lower commit means an owner committed a position it had not caught up
// to (a previous owner's late commit, or a new owner below the committed
// offset), and the records between are delivered again after the next
// rebalance.
func CheckCommitBackwards(tr *Trace) []Anomaly {
	if tr.History == nil {
		return nil
	}
	who := func(c CommitPoint) string {
		var best *struct {
			member string
			epoch  int32
			at     time.Duration
		}
		for _, q := range tr.History.CommitRequests {
			if q.Group == Group && q.Topic == c.Topic && q.Partition == c.Partition && q.Offset == c.Offset && q.At <= c.At {
				name := tr.MemberIDs[q.MemberID]
				if name == "" {
					name = "member id " + q.MemberID
				}
				best = &struct {
					member string
					epoch  int32
					at     time.Duration
				}{name, q.Epoch, q.At}
			}
		}
		if best == nil {
			return "an unknown member"
		}
		return fmt.Sprintf("%s (epoch %d, read +%s)", best.member, best.epoch, best.at)
	}
	high := map[tp]CommitPoint{}
	reported := map[tp]bool{}
	var out []Anomaly
	for _, c := range tr.Commits {
		k := tp{c.Topic, c.Partition}
		h, ok := high[k]
		if ok && c.Offset < h.Offset && !reported[k] {
			reported[k] = true
			out = append(out, Anomaly{Name: AnomalyCommitBackward, At: c.At, Evidence: fmt.Sprintf(
				"%s committed offset went from %d (+%s, by %s) back to %d (+%s, by %s)",
				k, h.Offset, h.At, who(h), c.Offset, c.At, who(c))})
		}
		if !ok || c.Offset > h.Offset {
			high[k] = c
		}
	}
	return out
}

// CheckKeptAfterRevocation: a member whose Poll, started after the member
// had told the brokers it no longer owned a partition (a KIP-848
// heartbeat whose owned partitions leave it out: its acknowledgement of
// the revocation), returned records of that partition, or whose
// assignment read after that Poll still listed it, while its next report
// after the Poll started still left the partition out (a member given the
// partition back lists it before it reports owning it again). Once a member has
// acknowledged a revocation the coordinator may give the partition to
// another member at once; delivering it after that is delivering a
// partition another member owns. Only what the member itself reported is
// compared (the coordinator's own timing, and the classic protocol, which
// reports no owned partitions, are not judged). Regular groups only.
func CheckKeptAfterRevocation(tr *Trace) []Anomaly {
	if tr.History == nil || tr.isShare() {
		return nil
	}
	// Each member's reports of what it owns, in order.
	reports := map[string][]Heartbeat{}
	for _, h := range tr.Heartbeats {
		if name := tr.MemberIDs[h.MemberID]; name != "" && h.OwnedSent {
			reports[name] = append(reports[name], h)
		}
	}
	for _, hs := range reports {
		slices.SortStableFunc(hs, func(a, b Heartbeat) int { return cmp.Compare(a.At, b.At) })
	}
	owns := func(h Heartbeat, k tp) bool {
		return slices.ContainsFunc(h.Owned, func(r Rec) bool { return r.Topic == k.topic && r.Partition == k.partition })
	}
	type pair struct {
		member string
		k      tp
	}
	reported := map[pair]bool{}
	var out []Anomaly
	for _, o := range tr.Ops {
		hs := reports[o.Member]
		if o.Kind != OpPoll || len(hs) == 0 {
			continue
		}
		// The last report read before the Poll started, and whether any
		// report before it ended claims the partition again.
		i, _ := slices.BinarySearchFunc(hs, o.Start, func(h Heartbeat, t time.Duration) int { return cmp.Compare(h.At, t) })
		if i == 0 {
			continue
		}
		last := hs[i-1]
		// The member's reports during the Poll and the first one after it
		// say whether it had the partition again: a client adds a
		// partition it is given back to its assignment before it
		// acknowledges that (Java reconciles, then heartbeats), so the
		// application may see it before any report claims it. With no
		// report after the Poll nothing is judged.
		claimed := func(k tp) bool {
			for _, h := range hs[i:] {
				if owns(h, k) {
					return true
				}
				if h.At > o.End {
					return false // the first report after the Poll still leaves it out
				}
			}
			return true // no report after the Poll: not judged
		}
		// The partition was owned before: some earlier report holds it.
		ownedBefore := func(k tp) (Heartbeat, bool) {
			for j := i - 2; j >= 0; j-- {
				if owns(hs[j], k) {
					return hs[j], true
				}
			}
			return Heartbeat{}, false
		}
		check := func(k tp, what string) {
			if reported[pair{o.Member, k}] || owns(last, k) || claimed(k) {
				return
			}
			prev, ok := ownedBefore(k)
			if !ok {
				return
			}
			reported[pair{o.Member, k}] = true
			out = append(out, Anomaly{Name: AnomalyKeptRevoked, Member: o.Member, At: o.End, Evidence: fmt.Sprintf(
				"%s told the brokers it owned %s (+%s, epoch %d) and then that it did not (+%s, epoch %d: its revocation acknowledged); its Poll of +%s..+%s %s",
				o.Member, k, prev.At, prev.Epoch, last.At, last.Epoch, o.Start, o.End, what)})
		}
		for _, r := range o.Records {
			check(tp{r.Topic, r.Partition}, "returned records of it")
		}
		for _, a := range o.Assigned {
			check(tp{a.Topic, a.Partition}, "left it in the assignment the application read")
		}
	}
	return out
}

// CheckAckForeign: a share member's acknowledgement callback reported an
// accept as successful, though the record had been handed to another
// member after this member last had it, and a broker read this member's
// accept of it only after that handing: the record was the other member's
// (acquired by it, or already acknowledged by it), so the broker must
// refuse the accept (INVALID_RECORD_STATE) and the callback report it
// failed. Share groups only.
func CheckAckForeign(tr *Trace) []Anomaly {
	if !tr.isShare() {
		return nil
	}
	dels := deliveries(tr)
	type mr struct {
		member string
		r      Rec
	}
	accepts := map[mr][]time.Duration{} // the application's accepts, by member and record
	for _, o := range tr.Ops {
		if o.Kind == OpAck && o.AckType == 1 {
			for _, r := range o.Records {
				accepts[mr{o.Member, r}] = append(accepts[mr{o.Member, r}], o.Start)
			}
		}
	}
	reads := map[Rec][]Ack{} // the accepts brokers read, by record
	for _, a := range tr.Acks {
		if a.Type == 1 {
			reads[a.Rec] = append(reads[a.Rec], a)
		}
	}
	reported := map[Rec]bool{}
	var out []Anomaly
	for _, res := range tr.Ops {
		if res.Kind != OpAckResult || res.Err != "" {
			continue
		}
		for _, r := range res.Records {
			if reported[r] {
				continue
			}
			mine := time.Duration(-1)
			for _, d := range dels[r] {
				if d.member == res.Member && d.end <= res.End {
					mine = d.end
				}
			}
			if mine < 0 {
				continue
			}
			accepted := slices.ContainsFunc(accepts[mr{res.Member, r}], func(at time.Duration) bool { return at >= mine && at <= res.End })
			if !accepted {
				continue // a release, or acknowledged before it was handed again
			}
			for _, d := range dels[r] {
				if d.member == res.Member || d.end <= mine || d.end >= res.End {
					continue
				}
				var read time.Duration = -1
				for _, a := range reads[r] {
					if a.At > d.end && a.At <= res.End && (a.MemberID == "" || tr.MemberIDs[a.MemberID] == "" || tr.MemberIDs[a.MemberID] == res.Member) {
						read = a.At
						break
					}
				}
				if read < 0 {
					continue
				}
				reported[r] = true
				out = append(out, Anomaly{Name: AnomalyAckForeign, Member: res.Member, At: res.End, Evidence: fmt.Sprintf(
					"%s[%d]@%d: %s last had it at +%s and accepted it; %s was handed it at +%s; a broker read the accept at +%s and %s's acknowledgement callback reported it successful at +%s",
					r.Topic, r.Partition, r.Offset, res.Member, mine, d.member, d.end, read, res.Member, res.End)})
				break
			}
		}
	}
	return out
}

// groupDetectors are this file's detectors, for Check.
var groupDetectors = []func(*Trace) []Anomaly{CheckCrossDuplicates, CheckCommitBackwards, CheckKeptAfterRevocation, CheckAckForeign}
