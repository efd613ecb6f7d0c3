//go:build race

package suite

// raceEnabled is true when the binary was built with -race.
const raceEnabled = true
