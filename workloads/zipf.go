package workloads

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// zipfSpec is a zipf distribution as a file writes it.
type zipfSpec struct {
	Min  uint64  `yaml:"min" json:"min"`
	Max  uint64  `yaml:"max" json:"max"`
	Step uint64  `yaml:"step" json:"step"`
	S    float64 `yaml:"s" json:"s"`
}

// count is the number of values of a zipf distribution.
func (x *Dist) count() uint64 { return (x.Max-x.Min)/x.Step + 1 }

// decodeZipf decodes {min, max, step, s}: min and max within the key's
// rule r, step >= 1 (default 1), 0 < s <= 10.
func (x *Dist) decodeZipf(d *decoder, val *yaml.Node, kp string, r *rule) {
	z := zipfSpec{Step: 1}
	if val.Kind != yaml.MappingNode {
		d.errAt(val, kp, "expected a mapping {min: ..., max: ..., step: ..., s: ...}, found %s", describe(val))
		return
	}
	before := len(d.errs)
	d.decodeStruct(val, kp, []reflect.Value{reflect.ValueOf(&z).Elem()}, false)
	if len(d.errs) > before {
		return
	}
	for _, k := range []string{"min", "max", "s"} {
		if mapValue(val, k) == nil {
			d.errAt(val, kp, "needs min, max and s (step is optional, 1 by default)")
			return
		}
	}
	for _, b := range []struct {
		key string
		v   uint64
	}{{"min", z.Min}, {"max", z.Max}} {
		if msg := r.checkNumber(float64(b.v), strconv.FormatUint(b.v, 10)); msg != "" {
			d.errAt(mapValue(val, b.key), joinPath(kp, b.key), "%s", msg)
		}
	}
	switch {
	case len(d.errs) > before:
	case z.Min > z.Max:
		d.errAt(val, kp, "min %d is above max %d", z.Min, z.Max)
	case z.Step == 0:
		d.errAt(mapValue(val, "step"), joinPath(kp, "step"), "step must be at least 1")
	case !(z.S > 0 && z.S <= 10):
		d.errAt(mapValue(val, "s"), joinPath(kp, "s"), "exponent %g is out of range (0, 10]", z.S)
	default:
		*x = Dist{Kind: "zipf", Min: z.Min, Max: z.Max, Step: z.Step, S: z.S}
	}
}

// zipfSampler draws k in 1..n with P(k) proportional to 1/k^s, by
// rejection-inversion (W. Hörmann and G. Derflinger, "Rejection-inversion
// to generate variates from monotone discrete distributions", 1996): O(1)
// memory and expected time for any n and any s > 0, one or a few uniform
// draws per value.
type zipfSampler struct {
	n, s       float64
	hx1, hn, c float64
}

func newZipfSampler(n uint64, s float64) *zipfSampler {
	z := &zipfSampler{n: float64(n), s: s}
	z.hx1 = z.hIntegral(1.5) - 1
	z.hn = z.hIntegral(z.n + 0.5)
	z.c = 2 - z.hIntegralInverse(z.hIntegral(2.5)-z.h(2))
	return z
}

func (z *zipfSampler) sample(rng *rand.Rand) uint64 {
	for {
		u := z.hn + rng.Float64()*(z.hx1-z.hn)
		x := z.hIntegralInverse(u)
		k := math.Min(math.Max(math.Floor(x+0.5), 1), z.n)
		if k-x <= z.c || u >= z.hIntegral(k+0.5)-z.h(k) {
			return uint64(k)
		}
	}
}

// h is 1/x^s; hIntegral its integral from 1, (x^(1-s) - 1)/(1-s) (log x at
// s = 1), and hIntegralInverse the inverse of hIntegral.
func (z *zipfSampler) h(x float64) float64 { return math.Exp(-z.s * math.Log(x)) }

func (z *zipfSampler) hIntegral(x float64) float64 {
	lx := math.Log(x)
	return expm1Over((1-z.s)*lx) * lx
}

func (z *zipfSampler) hIntegralInverse(x float64) float64 {
	t := math.Max(x*(1-z.s), -1)
	return math.Exp(log1pOver(t) * x)
}

// expm1Over is (e^x - 1)/x, and log1pOver log(1+x)/x, both 1 at 0.
func expm1Over(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x/2*(1+x/3*(1+x/4))
}

func log1pOver(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(1.0/3-0.25*x))
}

// zipfMeanRank is the mean of k under P(k) proportional to 1/k^s, k in
// 1..n: summed exactly up to 2^20 values, beyond by the integrals.
func zipfMeanRank(n uint64, s float64) float64 {
	if n <= 1<<20 {
		var num, den float64
		for k := 1.0; k <= float64(n); k++ {
			p := math.Pow(k, -s)
			num += k * p
			den += p
		}
		return num / den
	}
	z := &zipfSampler{s: s}
	z2 := &zipfSampler{s: s - 1}
	return z2.hIntegral(float64(n)+0.5) / z.hIntegral(float64(n)+0.5)
}
