package freeport

import "testing"

func TestPortsAreDistinctAndFree(t *testing.T) {
	ports, err := Ports(3)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p <= 0 || seen[p] {
			t.Fatalf("ports %v: want 3 distinct ports above 0", ports)
		}
		seen[p] = true
	}
	if len(ports) != 3 {
		t.Fatalf("ports %v: want 3", ports)
	}
}
