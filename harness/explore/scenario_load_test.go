package explore

import "github.com/kreactor/kreactor/harness/scenario"

func loadScenario(file string) (*scenario.Scenario, error) { return scenario.Load(file) }
