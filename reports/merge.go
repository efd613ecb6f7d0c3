package reports

// Shards (kreactor plan -shard i/N) split one run of the suites over
// several processes or machines: each shard's run file holds every spec of
// the suites it ran, the specs of the other shards as skipped by its label
// filter. Merging their files is then dropping those placeholders wherever
// another file ran the spec, after which the rows are those of the
// unsharded run.

import (
	"fmt"
	"regexp"
	"strings"
)

// filteredOut reports whether r is a spec its run's filter left out: skipped
// with no reason (a spec that skips itself, e.g. not applicable to the
// subject, says why).
func (r Row) filteredOut() bool { return r.Verdict == VerdictSkipped && r.Message == "" }

// mergeShards removes from rows every filtered-out row whose (id, subject,
// variant, target, run) another row ran, keeping the order of the rest. A
// spec filtered out of every input keeps one such row (as an unsharded run
// with the same filter would).
func mergeShards(rows []Row) []Row {
	type key struct {
		id, subject, variant, target string
		run                          int
	}
	keyOf := func(r Row) key { return key{r.ID, r.Subject, r.Variant, r.Target, r.Run} }
	ran := map[key]bool{}
	for _, r := range rows {
		if !r.filteredOut() {
			ran[keyOf(r)] = true
		}
	}
	placeholder := map[key]bool{}
	out := rows[:0:0]
	for _, r := range rows {
		k := keyOf(r)
		if r.filteredOut() {
			if ran[k] || placeholder[k] {
				continue
			}
			placeholder[k] = true
		}
		out = append(out, r)
	}
	return out
}

// A shard's label filter is the user's filter (or none) and the shard's
// spec ids, tagged so that a report can tell the two apart: the check
// relaxes itself for a user's filter (specs it did not select are not
// checked), never for the plan's split.
//
//	((USER) && (/^id:(a|b)$/)) || kreactor-shard-2-of-4
//
// The trailing alternative names a label no spec has, so it selects
// nothing; it only marks the filter.
var shardFilterRE = regexp.MustCompile(`^\(\((.*)\) && \(/\^id:\(.*\)\$/\)\) \|\| kreactor-shard-[0-9]+-of-[0-9]+$`)

// ShardFilter returns the Ginkgo --label-filter that runs the specs ids
// (spec ids, label id:) of shard i of n (1-based) within user, a user's
// label filter ("" for none).
func ShardFilter(user string, ids []string, i, n int) string {
	quoted := make([]string, len(ids))
	for k, id := range ids {
		quoted[k] = regexp.QuoteMeta(id)
	}
	if user == "" {
		user = "!kreactor-no-filter"
	}
	return fmt.Sprintf("((%s) && (/^id:(%s)$/)) || kreactor-shard-%d-of-%d", user, strings.Join(quoted, "|"), i, n)
}

// UserFilter returns the user's part of a run's label filter: f itself, or
// for a shard's filter (ShardFilter) what the user gave ("" for none).
func UserFilter(f string) string {
	m := shardFilterRE.FindStringSubmatch(f)
	if m == nil {
		return f
	}
	if m[1] == "!kreactor-no-filter" {
		return ""
	}
	return m[1]
}
