package explore

import (
	"fmt"
	"strings"
)

// Runnable lists the subjects explore runs: ours and kgo in synctest
// bubbles (the baseline on the wall clock), and the java subjects (a JVM
// per member, kafka-clients through the driver) on the wall clock against
// brokers on loopback sockets (sim.Config.Loopback).
var Runnable = []string{"reactor", "baseline", "kgo", "null", "java", "java-classic"}

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
