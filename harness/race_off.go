//go:build !race

package harness

// raceEnabled is true when the binary was built with -race.
const raceEnabled = false
