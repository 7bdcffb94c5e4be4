package results

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/sim"
)

// TestRoundReachesFloatsThroughPointersSlicesAndInterfaces: a float is
// rounded wherever it sits - behind a pointer, in a slice or array of
// structs, in an interface, in a sim.Summary (3 decimals) - and a field's
// `round` tag overrides the default; unexported fields and other kinds
// are left as they are.
func TestRoundReachesFloatsThroughPointersSlicesAndInterfaces(t *testing.T) {
	type leaf struct {
		X      float64
		Tagged float64 `round:"1"`
		hidden float64
		Name   string
	}
	type tree struct {
		Ptr     *leaf
		Leaves  []leaf
		Arr     [2]float64
		Any     any
		Summary sim.Summary
		Ints    []int
		Nil     *leaf
	}
	const noisy = 307.52768000000003
	v := tree{
		Ptr:     &leaf{X: noisy, Tagged: noisy, hidden: noisy, Name: "n"},
		Leaves:  []leaf{{X: noisy}, {Tagged: noisy}},
		Arr:     [2]float64{noisy, 1.0 / 3},
		Any:     &leaf{X: noisy},
		Summary: sim.Summary{Mean: 13687.1433994, P99: 1.23456789},
		Ints:    []int{1},
	}
	Round(&v)
	require.Equal(t, 307.528, v.Ptr.X)
	require.Equal(t, 307.5, v.Ptr.Tagged)
	require.Equal(t, noisy, v.Ptr.hidden, "unexported: not walked")
	require.Equal(t, 307.528, v.Leaves[0].X)
	require.Equal(t, 307.5, v.Leaves[1].Tagged)
	require.Equal(t, [2]float64{307.528, 0.333333}, v.Arr)
	require.Equal(t, 307.528, v.Any.(*leaf).X)
	require.Equal(t, 13687.143, v.Summary.Mean)
	require.Equal(t, 1.235, v.Summary.P99)
	require.Nil(t, v.Nil)
}

// TestRoundKeepsFieldsThatHoldNoFloat: a struct type whose fields cannot
// reach a float has nothing in its plan, and a type that refers to itself
// is walked without end.
func TestRoundKeepsFieldsThatHoldNoFloat(t *testing.T) {
	type counts struct {
		N    uint64
		Name string
		Set  []int
	}
	require.Empty(t, planOf(reflect.TypeFor[counts]()).fields)
	type node struct {
		V    float64
		Next *node
	}
	n := &node{V: 1.0 / 3, Next: &node{V: 2.0 / 3}}
	Round(n)
	require.Equal(t, 0.333333, n.V)
	require.Equal(t, 0.666667, n.Next.V)
}
