package scenario

import "fmt"

// pattern is the seeded pattern (splitmix64 stream) of n bytes.
func pattern(seed uint64, n int) []byte {
	b := make([]byte, n)
	var x uint64
	for i := range b {
		if i%8 == 0 {
			z := seed + uint64(i/8+1)*0x9E3779B97F4A7C15
			z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
			z = (z ^ z>>27) * 0x94D049BB133111EB
			x = z ^ z>>31
		}
		b[i] = byte(x >> (8 * (i % 8)))
	}
	return b
}

// want is the content a fill writes or a check expects: one byte repeated,
// a seeded pattern, or (check) a copy of another range.
func (r *runner) want(a args, n int) []byte {
	switch {
	case a["byte"] != nil:
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(a["byte"].u)
		}
		return b
	case a["pattern_seed"] != nil:
		return pattern(a["pattern_seed"].u, n)
	}
	e := a["equals"].sub
	b := make([]byte, n)
	r.ads[r.hostIdx[e["host"].s]].Mem().Read(e["va"].u, b)
	return b
}

// memory is a fill (write host memory) or a check (compare it, naming the
// first byte that differs).
func (r *runner) memory(st *Step, a args, _ uint64) (call, bool) {
	mem := r.ads[r.hostIdx[a["host"].s]].Mem()
	va, n := a["va"].u, int(a["length"].u)
	object := fmt.Sprintf("%s:0x%X+%d", a["host"].s, va, n)
	if va+uint64(n) < va {
		r.fail(st, "%s %s: the range wraps past 2^64", st.Op, object)
		return call{}, false
	}
	if st.Op == "fill" && !mem.Fits(va, uint64(n)) {
		r.fail(st, "fill %s: needs %d more pages of host memory; host %s has written %d of its host_memory_pages_max = %d",
			object, mem.NewPages(va, uint64(n)), a["host"].s, mem.Pages(), mem.PagesMax)
		return call{}, false
	}
	want := r.want(a, n)
	if st.Op == "fill" {
		mem.Write(va, want)
		r.emit(Line{Step: st.Index, Name: st.Name, Op: "fill", Object: object})
		return call{}, false
	}
	got := make([]byte, n)
	mem.Read(va, got)
	for i := range got {
		if got[i] != want[i] {
			r.emit(Line{Step: st.Index, Name: st.Name, Op: "check", Object: object, Detail: "mismatch"})
			r.fail(st, "check %s: byte at 0x%X (offset %d) is 0x%02X, expected 0x%02X", object, va+uint64(i), i, got[i], want[i])
			return call{}, false
		}
	}
	r.emit(Line{Step: st.Index, Name: st.Name, Op: "check", Object: object, Detail: "ok"})
	return call{}, false
}
