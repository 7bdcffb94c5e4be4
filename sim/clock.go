package sim

import (
	"fmt"
	"math"
)

// ClockDomain is a clock defined by its period, so that frequencies never
// pass through integer division. Edges are at 0, Period, 2*Period, ...
type ClockDomain struct {
	Name   string
	Period Tick
}

// NewClockDomain returns a clock with the given period in picoseconds.
func NewClockDomain(name string, period Tick) (ClockDomain, error) {
	if period == 0 {
		return ClockDomain{}, fmt.Errorf("sim: clock %q: period must be at least 1 ps", name)
	}
	return ClockDomain{Name: name, Period: period}, nil
}

// ClockFromMHz returns a clock at freqMHz. A frequency whose period is not a
// whole number of picoseconds is an error: the caller should state the period
// instead (for example 156.25 MHz = 6400 ps is fine, 300 MHz = 3333.33 ps is not).
func ClockFromMHz(name string, freqMHz float64) (ClockDomain, error) {
	if !(freqMHz > 0) || math.IsInf(freqMHz, 0) {
		return ClockDomain{}, fmt.Errorf("sim: clock %q: frequency %v MHz must be positive", name, freqMHz)
	}
	ps := 1e6 / freqMHz
	r := math.Round(ps)
	if r < 1 || math.Abs(ps-r) > 1e-9*ps {
		return ClockDomain{}, fmt.Errorf("sim: clock %q: %v MHz has a period of %.4f ps, not a whole number of picoseconds; give the period instead", name, freqMHz, ps)
	}
	return NewClockDomain(name, Tick(r))
}

// FrequencyMHz reports the clock frequency, for display.
func (c ClockDomain) FrequencyMHz() float64 { return 1e6 / float64(c.Period) }

// CyclesToTicks converts a number of cycles to a duration.
func (c ClockDomain) CyclesToTicks(n Cycles) Tick { return Tick(n) * c.Period }

// Cycle returns the index of the last edge at or before t.
func (c ClockDomain) Cycle(t Tick) Cycles { return Cycles(t / c.Period) }

// NextEdge returns the first rising edge at or after t.
func (c ClockDomain) NextEdge(t Tick) Tick {
	rem := t % c.Period
	if rem == 0 {
		return t
	}
	return t + c.Period - rem
}

// EdgeAfter returns the first rising edge strictly after t.
func (c ClockDomain) EdgeAfter(t Tick) Tick { return c.NextEdge(t + 1) }
