package sim

import (
	"hash/fnv"
	"math/rand/v2"
)

// Stream returns a random stream for one component, derived from the run's
// seed and the component's hierarchical name. Adding or removing a component
// never changes another component's stream, and nothing in nicsim uses a
// global random source.
func Stream(seed uint64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(splitmix64(seed), splitmix64(h.Sum64()^0x9e3779b97f4a7c15)))
}

// Stream returns the named component's random stream for this run.
func (e *Env) Stream(name string) *rand.Rand { return Stream(e.Seed, name) }

// splitmix64 scrambles a 64-bit value (Steele, Lea, Flood 2014).
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
