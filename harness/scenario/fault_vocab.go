package scenario

import (
	"fmt"
	"slices"

	"github.com/kreactor/kreactor/fakebroker/vocab"
)

// scenarioTriggers are the vocab.TriggerArgs a file may write (first: N).
var scenarioTriggers = []string{"first"}

// withVocab fills each installer's arguments and documentation from the
// vocab.Defs entry of its kind, which the control API decodes too: a file
// and an HTTP request speak one vocabulary. A file names a consumer where
// the API names a group, and may write when: leave-heartbeat, the older
// spelling of one where selector. It panics (at package init, so every
// test fails) when the two lists do not name the same kinds.
func withVocab(defs []faultDef) []faultDef {
	if got, want := kindsOf(defs), vocab.Names(); !slices.Equal(got, want) {
		panic(fmt.Sprintf("scenario: fault installers %v do not match vocab.Defs %v", got, want))
	}
	for i := range defs {
		v, _ := vocab.DefOf(defs[i].kind)
		takes := slices.Clone(v.Args)
		if v.Group {
			takes = append(takes, "consumer")
		}
		if v.Selects {
			if v.Name == "error" {
				takes = append(takes, "when")
			}
			takes = append(takes, "where")
			takes = append(takes, scenarioTriggers...)
			takes = append(takes, "node")
		}
		defs[i].takes, defs[i].requires = takes, v.Requires
		defs[i].doc, defs[i].example = v.Doc, v.Example
	}
	return defs
}

func kindsOf(defs []faultDef) []string {
	out := make([]string, len(defs))
	for i, d := range defs {
		out[i] = d.kind
	}
	return out
}
