package explore

import (
	"fmt"
	"strings"
)

// Runnable lists the subjects explore runs (harness/subjects less the java
// subjects, which need a JVM and the wall clock outside a bubble).
var Runnable = []string{"reactor", "baseline", "kgo", "null"}

// CheckSubject returns an error naming subject if explore cannot run it.
func CheckSubject(subject string) error {
	for _, s := range Runnable {
		if s == subject {
			return nil
		}
	}
	return fmt.Errorf("subject %q: not runnable by explore (known: %s)", subject, strings.Join(Runnable, ", "))
}

// ParseGroups parses a comma-separated list of group kinds (regular,
// share) into GenOptions; an empty list, an empty item or an unknown kind
// is an error naming it.
func ParseGroups(s string) (GenOptions, error) {
	var o GenOptions
	if strings.TrimSpace(s) == "" {
		return o, fmt.Errorf("groups %q: empty (want regular, share or regular,share)", s)
	}
	for _, k := range strings.Split(s, ",") {
		switch strings.TrimSpace(k) {
		case "regular":
			o.Regular = true
		case "share":
			o.Share = true
		default:
			return GenOptions{}, fmt.Errorf("groups %q: unknown group kind %q (want regular, share)", s, k)
		}
	}
	return o, nil
}
