package sim

import "fmt"

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
}

// NewSerializer returns a serializer for r.
func NewSerializer(r Rate) *Serializer { return &Serializer{rate: r} }

// Rate returns the serializer's rate.
func (s *Serializer) Rate() Rate { return s.rate }

// Ticks returns the time n more bytes occupy the link.
func (s *Serializer) Ticks(n uint64) Tick {
	q, r := mulDiv(n, s.rate.PSNum, s.rate.PSDen)
	r += s.rem
	if r >= s.rate.PSDen {
		q++
		r -= s.rate.PSDen
	}
	s.rem = r
	return Tick(q)
}
