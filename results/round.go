package results

import (
	"math"
	"reflect"
	"strconv"
	"sync"

	"github.com/nicsim/nicsim/sim"
)

// SignificantDigits is the precision of a derived figure (a rate, a
// utilisation, a hit rate): 6 significant digits, finer than any
// comparison threshold, without the noise of float arithmetic
// (307.52768000000003 becomes 307.528).
const SignificantDigits = 6

// Round rounds every float64 reachable from v (a pointer) to its
// precision, in place: a field tagged `round:"N"` to N decimals (latencies
// in nanoseconds to the picosecond: 3), sim.Summary fields (statistics in
// picoseconds or bytes) to 3 decimals, every other float to
// SignificantDigits. New fields are rounded without further code.
//
// The walk reads each struct type's fields once (planOf) and never enters
// a field that cannot hold a float: a result's counters and labels cost
// nothing.
func Round(v any) { roundValue(reflect.ValueOf(v), -1) }

func roundValue(v reflect.Value, decimals int) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			roundValue(v.Elem(), decimals)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			roundValue(v.Index(i), decimals)
		}
	case reflect.Struct:
		p := planOf(v.Type())
		if p.summary {
			decimals = 3
		}
		for _, f := range p.fields {
			d := decimals
			if f.tagged {
				d = f.decimals
			}
			roundValue(v.Field(f.index), d)
		}
	case reflect.Float64:
		if v.CanSet() {
			v.SetFloat(roundFloat(v.Float(), decimals))
		}
	}
}

// roundPlan is what Round reads of a struct type: the exported fields
// that may hold a float, each with its `round` tag if it has one.
type roundPlan struct {
	summary bool // sim.Summary: 3 decimals
	fields  []roundField
}

type roundField struct {
	index    int
	tagged   bool
	decimals int
}

// roundPlans caches planOf by type; a sweep's jobs round at once.
var roundPlans sync.Map // reflect.Type -> *roundPlan

// planOf is the plan of struct type t, built on its first use.
func planOf(t reflect.Type) *roundPlan {
	if p, ok := roundPlans.Load(t); ok {
		return p.(*roundPlan)
	}
	p := &roundPlan{summary: t == reflect.TypeFor[sim.Summary]()}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || !mayHoldFloat(f.Type) {
			continue
		}
		rf := roundField{index: i}
		if tag, ok := f.Tag.Lookup("round"); ok {
			rf.tagged = true
			rf.decimals, _ = strconv.Atoi(tag)
		}
		p.fields = append(p.fields, rf)
	}
	roundPlans.Store(t, p)
	return p
}

// mayHoldFloat reports whether a value of type t can reach a float64
// through exported fields, elements or pointers. An interface may hold
// anything; a type that refers to itself is taken to (the walk stops at
// nil pointers and empty slices).
func mayHoldFloat(t reflect.Type) bool { return holdsFloat(t, map[reflect.Type]bool{}) }

func holdsFloat(t reflect.Type, seen map[reflect.Type]bool) bool {
	switch t.Kind() {
	case reflect.Float64, reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holdsFloat(t.Elem(), seen)
	case reflect.Struct:
		if seen[t] {
			return true
		}
		seen[t] = true
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && holdsFloat(f.Type, seen) {
				return true
			}
		}
	}
	return false
}

// roundFloat rounds x to decimals places, or to SignificantDigits when
// decimals < 0. NaN and infinities stay as they are.
func roundFloat(x float64, decimals int) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	// The decimal form is built in a buffer on the stack: a string from
	// FormatFloat is a heap allocation per value whenever the compiler
	// inlines it differently (the profile-guided build did).
	var buf [64]byte
	var b []byte
	if decimals >= 0 {
		b = strconv.AppendFloat(buf[:0], x, 'f', decimals, 64)
	} else {
		b = strconv.AppendFloat(buf[:0], x, 'g', SignificantDigits, 64)
	}
	r, _ := strconv.ParseFloat(string(b), 64)
	return r
}
