package results

// WorkRequests counts the work requests the point completed in its
// measured window: each part of a chained operation (a FastRegister and
// its Invalidate, a Bind and its Invalidate, a RegisterMr and its
// DeregisterMr) counts one, an operation without parts counts one. It is
// what the simulator's speed is quoted per (wall nanoseconds per work
// request).
func (p *PointResult) WorkRequests() uint64 {
	var n uint64
	for _, g := range p.Generators {
		if len(g.Parts) == 0 {
			n += g.Completed
			continue
		}
		for _, part := range g.Parts {
			n += part.Completed
		}
	}
	return n
}
