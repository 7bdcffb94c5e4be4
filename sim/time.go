package sim

import (
	"fmt"
	"math/bits"
)

// Tick is simulated time in picoseconds. All engine time is integer; there is
// no floating-point time anywhere in the kernel.
type Tick uint64

// Cycles counts edges of one clock domain.
type Cycles uint64

// Common durations in ticks.
const (
	PS Tick = 1
	NS Tick = 1000 * PS
	US Tick = 1000 * NS
	MS Tick = 1000 * US
	S  Tick = 1000 * MS
)

// MaxTick is the largest representable time; used as "never".
const MaxTick Tick = ^Tick(0)

// Nanoseconds returns t in nanoseconds as a float, for reports only.
func (t Tick) Nanoseconds() float64 { return float64(t) / float64(NS) }

// Seconds returns t in seconds as a float, for reports only.
func (t Tick) Seconds() float64 { return float64(t) / float64(S) }

// String formats t with the largest unit that keeps it readable.
func (t Tick) String() string {
	switch {
	case t == MaxTick:
		return "never"
	case t >= S:
		return fmt.Sprintf("%.6gs", t.Seconds())
	case t >= MS:
		return fmt.Sprintf("%.6gms", float64(t)/float64(MS))
	case t >= US:
		return fmt.Sprintf("%.6gus", float64(t)/float64(US))
	case t >= NS:
		return fmt.Sprintf("%.6gns", t.Nanoseconds())
	}
	return fmt.Sprintf("%dps", uint64(t))
}

// FromNanoseconds converts a float nanosecond figure (as found in configuration
// files and docs/sources.md tables) into ticks, rounding to the nearest picosecond.
func FromNanoseconds(ns float64) Tick {
	if ns <= 0 {
		return 0
	}
	return Tick(ns*float64(NS) + 0.5)
}

// mulDiv returns a*b/c and the remainder, with a 128-bit intermediate so that
// no product overflows. It panics if the quotient does not fit 64 bits.
func mulDiv(a, b, c uint64) (q, r uint64) {
	hi, lo := bits.Mul64(a, b)
	if hi >= c {
		panic(fmt.Sprintf("sim: %d*%d/%d overflows 64 bits", a, b, c))
	}
	return bits.Div64(hi, lo, c)
}
