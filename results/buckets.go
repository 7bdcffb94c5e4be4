package results

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nicsim/nicsim/sim"
)

// LatencyBucketsMax bounds the buckets kept of a latency histogram
// (Latency.BucketsPS): neighbouring buckets are merged in pairs until at
// most this many remain, so a CDF drawn from them has at least 1/128 of
// the range's resolution and a result stays small.
const LatencyBucketsMax = 128

// Bucket is count samples in [LoPS, HiPS) picoseconds.
type Bucket struct {
	LoPS, HiPS, Count uint64
}

// histBuckets are h's non-empty buckets, merged in neighbouring pairs
// until at most LatencyBucketsMax remain.
func histBuckets(h *sim.Histogram) []Bucket {
	var bs []Bucket
	h.Buckets(func(lo, hi, n uint64) { bs = append(bs, Bucket{lo, hi, n}) })
	for len(bs) > LatencyBucketsMax {
		out := bs[:0]
		for i := 0; i < len(bs); i += 2 {
			b := bs[i]
			if i+1 < len(bs) {
				b.HiPS, b.Count = bs[i+1].HiPS, b.Count+bs[i+1].Count
			}
			out = append(out, b)
		}
		bs = out
	}
	return bs
}

// encodeBuckets is Latency.BucketsPS of h: "lo,hi,count" triples.
func encodeBuckets(h *sim.Histogram) string {
	var b strings.Builder
	for i, x := range histBuckets(h) {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d,%d,%d", x.LoPS, x.HiPS, x.Count)
	}
	return b.String()
}

// Buckets decodes BucketsPS.
func (l *Latency) Buckets() ([]Bucket, error) {
	var out []Bucket
	for _, f := range strings.Fields(l.BucketsPS) {
		parts := strings.Split(f, ",")
		if len(parts) != 3 {
			return nil, fmt.Errorf("latency bucket %q: want lo,hi,count", f)
		}
		var v [3]uint64
		for i, p := range parts {
			n, err := strconv.ParseUint(p, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("latency bucket %q: %v", f, err)
			}
			v[i] = n
		}
		if v[1] <= v[0] || (len(out) > 0 && v[0] < out[len(out)-1].HiPS) {
			return nil, fmt.Errorf("latency bucket %q: empty or out of order", f)
		}
		out = append(out, Bucket{v[0], v[1], v[2]})
	}
	return out, nil
}
