package results

import (
	"math"
	"reflect"
	"strconv"

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
		if v.Type() == reflect.TypeFor[sim.Summary]() {
			decimals = 3
		}
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			d := decimals
			if tag, ok := f.Tag.Lookup("round"); ok {
				d, _ = strconv.Atoi(tag)
			}
			roundValue(v.Field(i), d)
		}
	case reflect.Float64:
		if v.CanSet() {
			v.SetFloat(roundFloat(v.Float(), decimals))
		}
	}
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
