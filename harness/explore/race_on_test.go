//go:build race

package explore

// raceEnabled is true when the test binary was built with -race.
const raceEnabled = true
