package nic

import "github.com/nicsim/nicsim/mtt"

// GetPrivilegedMemoryRegionToken is NdkGetPrivilegedMemoryRegionToken
// (rules 59, 60): a synchronous token with which the PD's QPs name adapter
// logical (host physical) addresses in their local SGEs without any
// registration; local read and write only, never remote access.
//
// The token owns a key-table entry of the PD that stays invalid, so a peer
// that presents it is refused by the responder like any dead token; the
// initiator side recognises it and translates one to one. The entry is
// allocated at the first call and kept for the PD's life (0 if the key
// table is full).
func (a *Adapter) GetPrivilegedMemoryRegionToken(pd *PD) uint32 {
	if pd == nil || pd.closed {
		return 0
	}
	if !pd.hasPriv {
		tok, err := a.tpt.Keys().Alloc(mtt.KindMR, pd.handle)
		if err != nil {
			return 0
		}
		pd.privTok, pd.hasPriv = uint32(tok), true
	}
	return pd.privTok
}

// translateLocal translates a local SGE of qp for access (untimed; see
// docs/nic.md Deviations): through the key table, or one to one for the
// PD's privileged token.
func (a *Adapter) translateLocal(qp *QP, sge SGE, n uint64, access mtt.Access, buf []uint64) ([]uint64, uint64, bool) {
	if qp.pd.hasPriv && sge.Token == qp.pd.privTok {
		va := sge.VirtualAddress
		if va+n < va {
			return buf[:0], 0, false
		}
		out := buf[:0]
		for p := va &^ (PageSizeBytes - 1); p < va+n; p += PageSizeBytes {
			out = append(out, p)
		}
		return out, va % PageSizeBytes, true
	}
	pages, off, r := mtt.Translate(a.tpt.Keys(), a.tpt.MTT(), mtt.Token(sge.Token), qp.pd.handle, qp.num,
		sge.VirtualAddress, n, access, buf)
	return pages, off, r == mtt.OK
}
