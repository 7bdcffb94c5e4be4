package nic

// qpMarks marks QPs by number for one pass over a queue (the QPs whose
// earlier packets or answers still wait), in constant time per QP: a mark
// is the pass's generation, so a new pass clears every mark at once.
type qpMarks struct {
	gen uint32
	at  []uint32
}

// pass starts a pass: no QP is marked.
func (m *qpMarks) pass() { m.gen++ }

// mark marks QP q in this pass.
func (m *qpMarks) mark(q uint32) {
	if int(q) >= len(m.at) {
		m.at = append(m.at, make([]uint32, int(q)+1-len(m.at))...)
	}
	m.at[q] = m.gen
}

// marked reports whether QP q is marked in this pass.
func (m *qpMarks) marked(q uint32) bool { return int(q) < len(m.at) && m.at[q] == m.gen }
