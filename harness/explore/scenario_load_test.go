package explore

import (
	"fmt"

	"github.com/kreactor/kreactor/harness/scenario"
)

func loadScenario(file string) (*scenario.Scenario, error) { return scenario.Load(file) }

// formatRoundTrip checks that sc, printed by scenario.Format, parses back
// to a file that prints the same.
func formatRoundTrip(sc *scenario.Scenario) error {
	a, err := scenario.Format(sc)
	if err != nil {
		return fmt.Errorf("format: %w", err)
	}
	back, err := scenario.Parse(sc.File, a)
	if err != nil {
		return fmt.Errorf("parse of the formatted file: %w\n%s", err, a)
	}
	b, err := scenario.Format(back)
	if err != nil {
		return fmt.Errorf("format again: %w", err)
	}
	if string(a) != string(b) {
		return fmt.Errorf("format is not a fixpoint:\n%s\n---\n%s", a, b)
	}
	return nil
}
