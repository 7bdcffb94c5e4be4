package main

import (
	"github.com/nicsim/nicsim/workloads"
	"github.com/nicsim/nicsim/workloads/scenario"
)

// input is a file named on the command line, read once (at most the size
// limit and one byte: workloads.ReadFile), so a pipe or /dev/stdin works
// and /dev/zero is refused at the limit.
type input struct {
	path     string
	data     []byte
	scenario bool // a scenario file, not a workload file
}

func readInput(path string) (*input, error) {
	data, err := workloads.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &input{path: path, data: data, scenario: scenario.IsScenario(data)}, nil
}

// load loads a workload file.
func (in *input) load(opts workloads.Options) (*workloads.File, error) {
	return workloads.LoadBytes(in.path, in.data, opts)
}

// loadScenario loads a scenario file.
func (in *input) loadScenario() (*scenario.Scenario, error) {
	return scenario.LoadBytes(in.path, in.data)
}
