package mtt

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Each test below is named after the docs/ndk.md rule it enforces and goes through
// the timed Translator (the data path), so the check is the one the NIC uses.

const pd1, qp5 = 1, 5

func access(t *testing.T, tr *Translator, tok Token, pd, qpn uint32, va, length uint64, a Access) *Request {
	t.Helper()
	r := run(t, tr, &Request{Token: tok, PD: pd, QPN: qpn, VA: va, Length: length, Access: a})
	if r.Reason != OK {
		require.Empty(t, r.Pages, "§5.4: a refused access returns no address")
	}
	return r
}

// Rule 25: remote write without NDK_MR_FLAG_ALLOW_REMOTE_WRITE is refused.
func TestRemoteWriteNeedsRemoteWriteRight(t *testing.T) {
	tr, _ := newTestTranslator(t, smallSpec())
	rights, err := RightLocalWrite|RightRemoteRead, error(nil)
	require.NoError(t, err)
	tok := registerMR(t, tr, pd1, 0x1000, 1, PageShift4K, rights)
	require.Equal(t, ReasonNoRemoteWrite, access(t, tr, tok, pd1, qp5, 0x1000, 8, AccessRemoteWrite).Reason)
	rw := registerMR(t, tr, pd1, 0x1000, 1, PageShift4K, RightLocalWrite|RightRemoteWrite)
	require.Equal(t, OK, access(t, tr, rw, pd1, qp5, 0x1000, 8, AccessRemoteWrite).Reason)
}

// Rule 25: remote read needs NDK_MR_FLAG_ALLOW_REMOTE_READ.
func TestRemoteReadNeedsRemoteReadRight(t *testing.T) {
	tr, _ := newTestTranslator(t, smallSpec())
	tok := registerMR(t, tr, pd1, 0x1000, 1, PageShift4K, RightLocalWrite|RightRemoteWrite)
	require.Equal(t, ReasonNoRemoteRead, access(t, tr, tok, pd1, qp5, 0x1000, 8, AccessRemoteRead).Reason)
}

// Rule 41 / §1.1: local write needs ALLOW_LOCAL_WRITE; local read is implicit (§3.2).
func TestLocalWriteNeedsLocalWriteRightLocalReadImplicit(t *testing.T) {
	tr, _ := newTestTranslator(t, smallSpec())
	tok := registerMR(t, tr, pd1, 0x1000, 1, PageShift4K, 0)
	require.Equal(t, ReasonNoLocalWrite, access(t, tr, tok, pd1, qp5, 0x1000, 8, AccessLocalWrite).Reason)
	require.Equal(t, OK, access(t, tr, tok, pd1, qp5, 0x1000, 8, AccessLocalRead).Reason)
	require.Equal(t, ReasonNoRemoteRead, access(t, tr, tok, pd1, qp5, 0x1000, 8, AccessRemoteRead).Reason)
}

// Rule 56: after NdkInvalidate executes, the old token's accesses fail.
func TestAccessAfterInvalidateRefused(t *testing.T) {
	tr, _ := newTestTranslator(t, smallSpec())
	tok := registerMR(t, tr, pd1, 0x1000, 1, PageShift4K, RightRemoteRead)
	require.Equal(t, OK, access(t, tr, tok, pd1, qp5, 0x1000, 8, AccessRemoteRead).Reason)
	require.NoError(t, tr.Keys().Invalidate(tok))
	require.NoError(t, tr.WriteMPT(tok.Index(), nil, 0))
	require.Equal(t, ReasonEntryInvalid, access(t, tr, tok, pd1, qp5, 0x1000, 8, AccessRemoteRead).Reason)
}

// §5.3 / rule 50: a key rotation (every NdkBind; NdkFastRegister with
// rotate_fast_register_key) kills the previous token, all 32 bits must match.
func TestStaleKeyRefusedAfterRotation(t *testing.T) {
	tr, _ := newTestTranslator(t, smallSpec())
	old := registerMR(t, tr, pd1, 0x1000, 1, PageShift4K, RightRemoteRead)
	cur, err := tr.Keys().RotateKey(old)
	require.NoError(t, err)
	require.Equal(t, old.Index(), cur.Index())
	require.Equal(t, ReasonKeyMismatch, access(t, tr, old, pd1, qp5, 0x1000, 8, AccessRemoteRead).Reason)
	require.Equal(t, OK, access(t, tr, cur, pd1, qp5, 0x1000, 8, AccessRemoteRead).Reason)

	// Rebinding a window: invalidate, bind again -> the first binding's token is dead.
	mw, err := tr.Keys().Alloc(KindMW, pd1)
	require.NoError(t, err)
	w1, err := tr.Keys().BindWindow(mw, cur, qp5, 0x1000, 64, RightRemoteRead)
	require.NoError(t, err)
	require.NoError(t, tr.Keys().Invalidate(w1))
	w2, err := tr.Keys().BindWindow(w1, cur, qp5, 0x1000, 64, RightRemoteRead)
	require.NoError(t, err)
	require.Equal(t, ReasonKeyMismatch, access(t, tr, w1, pd1, qp5, 0x1000, 8, AccessRemoteRead).Reason)
	require.Equal(t, OK, access(t, tr, w2, pd1, qp5, 0x1000, 8, AccessRemoteRead).Reason)
}

// §5.5 / rule 52: a window answers only through the QP it was bound on.
func TestWindowAnswersOnlyThroughItsQP(t *testing.T) {
	tr, _ := newTestTranslator(t, smallSpec())
	mr := registerMR(t, tr, pd1, 0x1000, 4, PageShift4K, RightLocalWrite)
	mw, err := tr.Keys().Alloc(KindMW, pd1)
	require.NoError(t, err)
	w, err := tr.Keys().BindWindow(mw, mr, qp5, 0x2000, 0x1000, RightRemoteRead|RightRemoteWrite|RightLocalWrite)
	require.NoError(t, err)
	require.Equal(t, ReasonWindowQPMismatch, access(t, tr, w, pd1, 6, 0x2000, 8, AccessRemoteRead).Reason)
	r := access(t, tr, w, pd1, qp5, 0x2ff8, 8, AccessRemoteWrite)
	require.Equal(t, OK, r.Reason, "rule 49: READ/WRITE windows on a LOCAL_WRITE-only MR")
	require.Equal(t, []uint64{0x10_0000_1000}, r.Pages, "the window translates through its MR's MTT")
	require.Equal(t, uint64(0xff8), r.Offset)
}

// Rule 48 / §5.5: the window's own range, not its MR's, bounds its accesses.
func TestWindowRangeBoundsAccess(t *testing.T) {
	tr, _ := newTestTranslator(t, smallSpec())
	mr := registerMR(t, tr, pd1, 0x1000, 4, PageShift4K, RightLocalWrite|RightRemoteRead)
	mw, err := tr.Keys().Alloc(KindMW, pd1)
	require.NoError(t, err)
	w, err := tr.Keys().BindWindow(mw, mr, qp5, 0x2000, 0x100, RightRemoteRead)
	require.NoError(t, err)
	require.Equal(t, ReasonOutOfBounds, access(t, tr, w, pd1, qp5, 0x1000, 8, AccessRemoteRead).Reason)
	require.Equal(t, ReasonOutOfBounds, access(t, tr, w, pd1, qp5, 0x20f9, 8, AccessRemoteRead).Reason)
	require.Equal(t, ReasonNoRemoteWrite, access(t, tr, w, pd1, qp5, 0x2000, 8, AccessRemoteWrite).Reason)
}

// Rule 21 / §5.4: [va, va+length) must lie wholly within [BaseVA,
// BaseVA+Length); the whole range is checked before any address is returned.
func TestRangeMustLieWithinRegion(t *testing.T) {
	tr, _ := newTestTranslator(t, smallSpec())
	tok := registerMR(t, tr, pd1, 0x1100, 2, PageShift4K, RightRemoteRead) // [0x1100, 0x3000)
	cases := []struct {
		va, n uint64
		want  Reason
	}{
		{0x1100, 0x1f00, OK},
		{0x10ff, 1, ReasonOutOfBounds},      // one byte before
		{0x10ff, 2, ReasonOutOfBounds},      // straddles the start
		{0x2fff, 1, OK},                     // last byte
		{0x2fff, 2, ReasonOutOfBounds},      // straddles the end: nothing moves
		{0x3000, 1, ReasonOutOfBounds},      // just past
		{0x1100, 0x1f01, ReasonOutOfBounds}, // one byte too long
		{0, 0x10000, ReasonOutOfBounds},     // covers it
	}
	for _, c := range cases {
		r := access(t, tr, tok, pd1, qp5, c.va, c.n, AccessRemoteRead)
		require.Equal(t, c.want, r.Reason, "[%#x, +%#x)", c.va, c.n)
	}
	r := access(t, tr, tok, pd1, qp5, 0x1100, 0x1f00, AccessRemoteRead)
	require.Equal(t, []uint64{0x10_0000_0000, 0x10_0000_1000}, r.Pages, "every page of the range")
	require.Equal(t, uint64(0x100), r.Offset, "first byte offset (rule 37)")
}

// §5.4: a range whose end overflows 64 bits is refused as wrap-around.
func TestWrapAroundRefused(t *testing.T) {
	tr, _ := newTestTranslator(t, smallSpec())
	base := uint64(0xFFFF_FFFF_FFFF_E000)
	tok := registerMR(t, tr, pd1, base, 1, PageShift4K, RightRemoteRead) // [base, base+0x1000)
	require.Equal(t, OK, access(t, tr, tok, pd1, qp5, base+0xff0, 0x10, AccessRemoteRead).Reason)
	require.Equal(t, ReasonWrapAround, access(t, tr, tok, pd1, qp5, base+0xff0, 1<<64-1, AccessRemoteRead).Reason)
	require.Equal(t, ReasonWrapAround, access(t, tr, tok, pd1, qp5, 0xFFFF_FFFF_FFFF_FFF0, 0x20, AccessRemoteRead).Reason)
}

// A QP may use only tokens of its own protection domain.
func TestPDMismatchRefused(t *testing.T) {
	tr, _ := newTestTranslator(t, smallSpec())
	tok := registerMR(t, tr, pd1, 0x1000, 1, PageShift4K, RightRemoteRead)
	require.Equal(t, ReasonPDMismatch, access(t, tr, tok, 2, qp5, 0x1000, 8, AccessRemoteRead).Reason)
}

// Rule 29: after NdkDeregisterMr both tokens are dead; §5.3: a fresh
// registration on the reused index never revives the old token.
func TestDeregisteredTokenDead(t *testing.T) {
	tr, _ := newTestTranslator(t, smallSpec())
	tok := registerMR(t, tr, pd1, 0x1000, 1, PageShift4K, RightRemoteRead)
	require.NoError(t, tr.Keys().Invalidate(tok)) // deregister
	require.Equal(t, ReasonEntryInvalid, access(t, tr, tok, pd1, qp5, 0x1000, 8, AccessRemoteRead).Reason)
	require.NoError(t, tr.Keys().Free(tok)) // MR closed
	require.Equal(t, ReasonEntryFree, access(t, tr, tok, pd1, qp5, 0x1000, 8, AccessRemoteRead).Reason)
	again := registerMR(t, tr, pd1, 0x1000, 1, PageShift4K, RightRemoteRead)
	require.Equal(t, tok.Index(), again.Index(), "index reused")
	require.Equal(t, ReasonKeyMismatch, access(t, tr, tok, pd1, qp5, 0x1000, 8, AccessRemoteRead).Reason)
	require.Equal(t, OK, access(t, tr, again, pd1, qp5, 0x1000, 8, AccessRemoteRead).Reason)
}

// Rule 24: a token is usable only once registration has completed.
func TestTokenBeforeRegistrationRefused(t *testing.T) {
	tr, _ := newTestTranslator(t, smallSpec())
	tok, err := tr.Keys().Alloc(KindMR, pd1)
	require.NoError(t, err)
	require.Equal(t, ReasonEntryInvalid, access(t, tr, tok, pd1, qp5, 0, 8, AccessRemoteRead).Reason)
	mw, err := tr.Keys().Alloc(KindMW, pd1)
	require.NoError(t, err)
	require.Equal(t, ReasonEntryInvalid, access(t, tr, mw, pd1, qp5, 0, 8, AccessLocalRead).Reason, "unbound window")
}

// Rules 29/56: a token whose index lies beyond the table is refused without
// reading ICM.
func TestIndexBeyondTableRefused(t *testing.T) {
	tr, dma := newTestTranslator(t, smallSpec())
	r := access(t, tr, MakeToken(tr.Keys().Len(), 0), pd1, qp5, 0, 8, AccessRemoteRead)
	require.Equal(t, ReasonIndexOutOfRange, r.Reason)
	require.Equal(t, uint64(0), dma.Reads)
}

// §5.4: a zero-length Read or Write checks no token. The translator reports
// ReasonZeroLength before looking at anything (even a garbage token) and
// reads nothing; the data path treats it as success.
func TestZeroLengthChecksNoToken(t *testing.T) {
	tr, dma := newTestTranslator(t, smallSpec())
	r := access(t, tr, Token(0xFFFFFFFF), 99, 99, 1<<64-1, 0, AccessRemoteWrite)
	require.Equal(t, ReasonZeroLength, r.Reason)
	require.Equal(t, uint64(0), dma.Reads)
	require.Equal(t, ReasonZeroLength, Check(tr.Keys(), Token(0), 0, 0, 0, 0, AccessRemoteRead))
}

// The untimed Translate agrees with the timed path, with 2 MiB pages too.
func TestUntimedTranslateAgrees(t *testing.T) {
	tr, _ := newTestTranslator(t, smallSpec())
	tok := registerMR(t, tr, pd1, 0x4000_0000+0x1234, 3, PageShift2M, RightRemoteRead)
	va, n := uint64(0x4000_0000+0x1F_FFF0), uint64(0x20)
	pages, off, r := Translate(tr.Keys(), tr.MTT(), tok, pd1, qp5, va, n, AccessRemoteRead, nil)
	require.Equal(t, OK, r)
	timed := access(t, tr, tok, pd1, qp5, va, n, AccessRemoteRead)
	require.Equal(t, pages, timed.Pages)
	require.Equal(t, off, timed.Offset)
	require.Equal(t, []uint64{0x10_0000_0000, 0x10_0020_0000}, pages)
	require.Equal(t, uint64(0x1F_FFF0), off)
}

func TestReasonStrings(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < ReasonCount; i++ {
		s := Reason(i).String()
		require.NotContains(t, s, "Reason(")
		require.False(t, seen[s], s)
		seen[s] = true
	}
}

// TestRegionEndingAtTheTopOfTheAddressSpace: an MR whose last byte is the
// address space's last (it ends at 2^64) admits accesses at its base and
// at its end; one byte more wraps.
func TestRegionEndingAtTheTopOfTheAddressSpace(t *testing.T) {
	tr, _ := newTestTranslator(t, smallSpec())
	base := uint64(1<<64 - 8192)
	tok := registerMR(t, tr, pd1, base, 2, PageShift4K, RightRemoteRead)
	require.Equal(t, OK, Check(tr.Keys(), tok, pd1, qp5, base, 64, AccessRemoteRead))
	require.Equal(t, OK, Check(tr.Keys(), tok, pd1, qp5, 1<<64-64, 64, AccessRemoteRead))
	require.Equal(t, OK, access(t, tr, tok, pd1, qp5, 1<<64-64, 64, AccessRemoteRead).Reason)
	require.Equal(t, ReasonWrapAround, Check(tr.Keys(), tok, pd1, qp5, 1<<64-64, 65, AccessRemoteRead))
	require.Equal(t, ReasonOutOfBounds, Check(tr.Keys(), tok, pd1, qp5, base-1, 64, AccessRemoteRead))
}
