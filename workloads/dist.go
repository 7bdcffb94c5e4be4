package workloads

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// Dist is a distribution of whole numbers (sizes in bytes, page counts,
// address offsets). In a file it is a plain number (fixed), or a mapping
// with exactly one of:
//
//	fixed: 64
//	uniform: {min: 64, max: 4096}              every whole value in [min, max] equally likely
//	choice: [{value: 64, weight: 3}, {value: 4096, weight: 1}]
//	zipf: {min: 0, max: 67104768, step: 4096, s: 0.99}
//
// zipf gives value min + (k-1)*step, k in 1..n (the values from min to
// max, step apart), with probability proportional to 1/k^s: value min is
// the most frequent, the skew of cache studies (s near 1: a few hot pages
// or MRs, a long tail). Every value is bounded by the key's rule.
type Dist struct {
	Kind    string   // "fixed", "uniform", "choice" or "zipf"
	Value   uint64   // fixed
	Min     uint64   // uniform, zipf
	Max     uint64   // uniform, zipf
	Choices []Choice // choice
	Step    uint64   // zipf: distance between values (>= 1)
	S       float64  // zipf: exponent (> 0)
	total   uint64
	zipf    *zipfSampler
}

// Choice is one weighted value of a choice distribution.
type Choice struct {
	Value  uint64 `yaml:"value" json:"value"`
	Weight uint64 `yaml:"weight" json:"weight" check:"1..1000000"`
}

// Fixed returns a distribution that always gives v.
func Fixed(v uint64) Dist { return Dist{Kind: "fixed", Value: v} }

type uniformSpec struct {
	Min uint64 `yaml:"min"`
	Max uint64 `yaml:"max"`
}

func (x *Dist) decodeYAML(d *decoder, n *yaml.Node, path, rl string) {
	r := parseRule(rl)
	if n.Kind == yaml.ScalarNode {
		var v uint64
		d.decodeNumber(n, path, reflect.ValueOf(&v).Elem(), &r)
		*x = Fixed(v)
		return
	}
	if n.Kind != yaml.MappingNode || len(n.Content) != 2 {
		d.errAt(n, path, "expected a number or a mapping with exactly one of fixed, uniform, choice; found %s", describe(n))
		return
	}
	k, val := n.Content[0], n.Content[1]
	kp := joinPath(path, k.Value)
	d.nodes[kp] = val
	switch k.Value {
	case "fixed":
		var v uint64
		if val.Kind != yaml.ScalarNode {
			d.errAt(val, kp, "expected a number, found %s", describe(val))
			return
		}
		d.decodeNumber(val, kp, reflect.ValueOf(&v).Elem(), &r)
		*x = Fixed(v)
	case "uniform":
		x.decodeUniform(d, val, kp, &r)
	case "choice":
		x.decodeChoice(d, val, kp, &r)
	case "zipf":
		x.decodeZipf(d, val, kp, &r)
	default:
		d.errAt(k, kp, "unknown distribution; allowed: fixed, uniform, choice, zipf")
	}
}

// decodeUniform decodes {min, max}, both within the key's rule r.
func (x *Dist) decodeUniform(d *decoder, val *yaml.Node, kp string, r *rule) {
	var u uniformSpec
	if val.Kind != yaml.MappingNode {
		d.errAt(val, kp, "expected a mapping {min: ..., max: ...}, found %s", describe(val))
		return
	}
	before := len(d.errs)
	d.decodeStruct(val, kp, []reflect.Value{reflect.ValueOf(&u).Elem()}, false)
	if len(d.errs) > before {
		return
	}
	if mapValue(val, "min") == nil || mapValue(val, "max") == nil {
		d.errAt(val, kp, "needs both min and max")
		return
	}
	for _, b := range []struct {
		key string
		v   uint64
	}{{"min", u.Min}, {"max", u.Max}} {
		if msg := r.checkNumber(float64(b.v), strconv.FormatUint(b.v, 10)); msg != "" {
			d.errAt(mapValue(val, b.key), joinPath(kp, b.key), "%s", msg)
		}
	}
	if len(d.errs) > before {
		return
	}
	if u.Min > u.Max {
		d.errAt(val, kp, "min %d is above max %d", u.Min, u.Max)
		return
	}
	*x = Dist{Kind: "uniform", Min: u.Min, Max: u.Max}
}

// decodeChoice decodes a list of {value, weight}, the values within the
// key's rule r.
func (x *Dist) decodeChoice(d *decoder, val *yaml.Node, kp string, r *rule) {
	var cs []Choice
	before := len(d.errs)
	d.decode(val, kp, reflect.ValueOf(&cs).Elem(), "len:1..256")
	if len(d.errs) > before {
		return
	}
	var total uint64
	for i, c := range cs {
		ep := joinPath(kp, strconv.Itoa(i))
		vn := mapValue(val.Content[i], "value")
		if vn == nil || mapValue(val.Content[i], "weight") == nil {
			d.errAt(val.Content[i], ep, "needs value and weight")
			continue
		}
		if msg := r.checkNumber(float64(c.Value), strconv.FormatUint(c.Value, 10)); msg != "" {
			d.errAt(vn, joinPath(ep, "value"), "%s", msg)
		}
		total += c.Weight
	}
	if len(d.errs) > before {
		return
	}
	*x = Dist{Kind: "choice", Choices: cs, total: total}
}

// Sample draws one value.
func (x *Dist) Sample(rng *rand.Rand) uint64 {
	switch x.Kind {
	case "uniform":
		span := x.Max - x.Min
		if span == ^uint64(0) {
			return rng.Uint64()
		}
		return x.Min + rng.Uint64N(span+1)
	case "zipf":
		if x.zipf == nil {
			x.zipf = newZipfSampler(x.count(), x.S)
		}
		return x.Min + (x.zipf.sample(rng)-1)*x.Step
	case "choice":
		if x.total == 0 {
			for _, c := range x.Choices {
				x.total += c.Weight
			}
		}
		p := rng.Uint64N(x.total)
		for _, c := range x.Choices {
			if p < c.Weight {
				return c.Value
			}
			p -= c.Weight
		}
		return x.Choices[len(x.Choices)-1].Value
	}
	return x.Value
}

// Largest is the largest value the distribution can give.
func (x *Dist) Largest() uint64 {
	switch x.Kind {
	case "uniform":
		return x.Max
	case "zipf":
		return x.Min + (x.count()-1)*x.Step
	case "choice":
		var m uint64
		for _, c := range x.Choices {
			m = max(m, c.Value)
		}
		return m
	}
	return x.Value
}

// Mean is the distribution's mean.
func (x *Dist) Mean() float64 {
	switch x.Kind {
	case "uniform":
		return (float64(x.Min) + float64(x.Max)) / 2
	case "zipf":
		return float64(x.Min) + (zipfMeanRank(x.count(), x.S)-1)*float64(x.Step)
	case "choice":
		var s, w float64
		for _, c := range x.Choices {
			s += float64(c.Value) * float64(c.Weight)
			w += float64(c.Weight)
		}
		if w == 0 {
			return 0
		}
		return s / w
	}
	return float64(x.Value)
}

// MarshalJSON writes the distribution the way a file would.
func (x Dist) MarshalJSON() ([]byte, error) {
	switch x.Kind {
	case "uniform":
		return json.Marshal(map[string]uniformSpec{"uniform": {x.Min, x.Max}})
	case "choice":
		return json.Marshal(map[string][]Choice{"choice": x.Choices})
	case "zipf":
		return json.Marshal(map[string]zipfSpec{"zipf": {x.Min, x.Max, x.Step, x.S}})
	}
	return json.Marshal(x.Value)
}

func (u uniformSpec) MarshalJSON() ([]byte, error) {
	return []byte(`{"min":` + strconv.FormatUint(u.Min, 10) + `,"max":` + strconv.FormatUint(u.Max, 10) + `}`), nil
}
