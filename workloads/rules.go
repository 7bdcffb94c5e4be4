package workloads

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A rule is the allowed range of one key, written in a `check` struct tag
// (or in the model tables of presets.go for pcie.Spec and mtt.Spec fields)
// as space-separated clauses:
//
//	1..4096          inclusive numeric range; bounds may be written 2^24 or 1e7
//	1|2|4|8|16       one of these values (numbers or strings)
//	pow2             a power of two (with the range: "a power of two in lo..hi")
//	mult:64          a multiple of 64
//	len:1..64        string length or list items
//
// Every number and list a file can set has a rule, so nothing a file asks
// for is unbounded.
type rule struct {
	src      string
	hasRange bool
	lo, hi   float64
	loS, hiS string
	oneOf    []string
	pow2     bool
	mult     uint64
	hasLen   bool
	lenLo    int
	lenHi    int
}

func parseRule(s string) rule {
	r := rule{src: s}
	for _, c := range strings.Fields(s) {
		switch {
		case c == "pow2":
			r.pow2 = true
		case strings.HasPrefix(c, "mult:"):
			v, err := strconv.ParseUint(c[5:], 10, 64)
			if err != nil || v == 0 {
				panic("workloads: bad rule " + s)
			}
			r.mult = v
		case strings.HasPrefix(c, "len:"):
			lo, hi, ok := strings.Cut(c[4:], "..")
			a, err1 := strconv.Atoi(lo)
			b, err2 := strconv.Atoi(hi)
			if !ok || err1 != nil || err2 != nil {
				panic("workloads: bad rule " + s)
			}
			r.hasLen, r.lenLo, r.lenHi = true, a, b
		case strings.Contains(c, ".."):
			lo, hi, _ := strings.Cut(c, "..")
			r.hasRange, r.loS, r.hiS = true, lo, hi
			r.lo, r.hi = ruleNumber(lo, s), ruleNumber(hi, s)
		case strings.Contains(c, "|"):
			r.oneOf = strings.Split(c, "|")
		default:
			panic("workloads: bad rule clause " + c + " in " + s)
		}
	}
	return r
}

func ruleNumber(t, src string) float64 {
	if b, e, ok := strings.Cut(t, "^"); ok {
		bv, err1 := strconv.ParseFloat(b, 64)
		ev, err2 := strconv.ParseFloat(e, 64)
		if err1 != nil || err2 != nil {
			panic("workloads: bad rule " + src)
		}
		return math.Pow(bv, ev)
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		if u, err2 := strconv.ParseUint(t, 0, 64); err2 == nil {
			return float64(u)
		}
		panic("workloads: bad rule " + src)
	}
	return v
}

func (r *rule) rangeText() string { return r.loS + ".." + r.hiS }

// checkNumber returns what is wrong with v (shown as text), or "".
func (r *rule) checkNumber(v float64, text string) string {
	if len(r.oneOf) > 0 {
		for _, o := range r.oneOf {
			if f, err := strconv.ParseFloat(o, 64); err == nil && f == v {
				return ""
			}
		}
		return fmt.Sprintf("%s is not one of %s", text, strings.Join(r.oneOf, ", "))
	}
	inRange := !r.hasRange || (v >= r.lo && v <= r.hi)
	switch {
	case r.pow2:
		u := uint64(v)
		if !inRange || v < 1 || float64(u) != v || u&(u-1) != 0 {
			if r.hasRange {
				return fmt.Sprintf("%s must be a power of two in %s", text, r.rangeText())
			}
			return fmt.Sprintf("%s must be a power of two", text)
		}
	case r.mult > 0:
		u := uint64(v)
		if !inRange || v < 0 || float64(u) != v || u%r.mult != 0 {
			if r.hasRange {
				return fmt.Sprintf("%s must be a multiple of %d in %s", text, r.mult, r.rangeText())
			}
			return fmt.Sprintf("%s must be a multiple of %d", text, r.mult)
		}
	case !inRange:
		return fmt.Sprintf("%s is out of range %s", text, r.rangeText())
	}
	return ""
}

// checkString returns what is wrong with s, or "".
func (r *rule) checkString(s string) string {
	if len(r.oneOf) > 0 {
		for _, o := range r.oneOf {
			if o == s {
				return ""
			}
		}
		q := make([]string, len(r.oneOf))
		for i, o := range r.oneOf {
			q[i] = strconv.Quote(o)
		}
		return fmt.Sprintf("%q is not one of %s", s, strings.Join(q, ", "))
	}
	if r.hasLen && (len(s) < r.lenLo || len(s) > r.lenHi) {
		return fmt.Sprintf("%d characters, allowed %d..%d", len(s), r.lenLo, r.lenHi)
	}
	return ""
}

// checkItems returns what is wrong with a list of n items, or "".
func (r *rule) checkItems(n int) string {
	if r.hasLen && (n < r.lenLo || n > r.lenHi) {
		return fmt.Sprintf("%d items, allowed %d..%d", n, r.lenLo, r.lenHi)
	}
	return ""
}
