package sim

import (
	"fmt"
	"math/bits"
)

// Rate is the time one byte takes on a link, as the exact fraction
// PSNum/PSDen picoseconds per byte. PCIe gen5 x16 moves a byte in
// 1040000/65536 = 15.87 ps, which is not a whole number of picoseconds.
type Rate struct {
	PSNum uint64
	PSDen uint64
}

// NewRate returns the rate and checks that it is well formed.
func NewRate(psNum, psDen uint64) (Rate, error) {
	if psNum == 0 || psDen == 0 {
		return Rate{}, fmt.Errorf("sim: rate %d/%d ps per byte must have a non-zero numerator and denominator", psNum, psDen)
	}
	return Rate{PSNum: psNum, PSDen: psDen}, nil
}

// PSPerByte is the byte time as a float, for reports.
func (r Rate) PSPerByte() float64 { return float64(r.PSNum) / float64(r.PSDen) }

// GbitPerSecond is the rate in 10^9 bits per second, for reports.
func (r Rate) GbitPerSecond() float64 { return 8e3 / r.PSPerByte() }

// Serializer turns byte counts into link occupancy time. It carries the
// fractional picoseconds from one transfer to the next, so that the total time
// of any sequence of transfers is exactly floor(totalBytes*PSNum/PSDen): 10^9
// single bytes take exactly as long as one 10^9-byte transfer.
type Serializer struct {
	rate Rate
	rem  uint64 // carried numerator, < rate.PSDen
	// pow2 is set when PSDen is a power of two (as for every PCIe rate):
	// the quotient is then a shift and the remainder a mask.
	pow2  bool
	shift uint
	mask  uint64 // PSDen-1 when pow2
}

// NewSerializer returns a serializer for r.
func NewSerializer(r Rate) *Serializer {
	s := &Serializer{rate: r}
	if r.PSDen != 0 && r.PSDen&(r.PSDen-1) == 0 {
		s.pow2, s.shift, s.mask = true, uint(bits.TrailingZeros64(r.PSDen)), r.PSDen-1
	}
	return s
}

// Rate returns the serializer's rate.
func (s *Serializer) Rate() Rate { return s.rate }

// Ticks returns the time n more bytes occupy the link.
func (s *Serializer) Ticks(n uint64) Tick {
	hi, lo := bits.Mul64(n, s.rate.PSNum)
	if !s.pow2 || hi != 0 {
		return s.ticksDiv(n)
	}
	r := lo&s.mask + s.rem
	q := lo>>(s.shift&63) + r>>(s.shift&63) // r < 2*PSDen: r>>shift is the carry
	s.rem = r & s.mask
	return Tick(q)
}

// ticksDiv is Ticks by division, for any denominator.
func (s *Serializer) ticksDiv(n uint64) Tick {
	q, r := mulDiv(n, s.rate.PSNum, s.rate.PSDen)
	r += s.rem
	if r >= s.rate.PSDen {
		q++
		r -= s.rate.PSDen
	}
	s.rem = r
	return Tick(q)
}
