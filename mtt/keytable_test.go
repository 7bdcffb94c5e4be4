package mtt

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestKeyTableExhaustion: allocating past the table's size is ErrNoSpace
// (STATUS_INSUFFICIENT_RESOURCES from CreateMr/CreateMw, docs/ndk.md rules 17,
// 46); freeing one entry makes room again.
func TestKeyTableExhaustion(t *testing.T) {
	kt, err := NewKeyTable(8)
	require.NoError(t, err)
	var toks []Token
	for i := 0; i < 8; i++ {
		tok, err := kt.Alloc(KindMR, 1)
		require.NoError(t, err)
		toks = append(toks, tok)
	}
	_, err = kt.Alloc(KindMW, 1)
	require.ErrorIs(t, err, ErrNoSpace)
	require.NoError(t, kt.Free(toks[3]))
	tok, err := kt.Alloc(KindMW, 1)
	require.NoError(t, err)
	require.Equal(t, uint32(3), tok.Index())
	require.NotEqual(t, toks[3], tok, "a reused index gets a new key")
}

func TestTokenLayout(t *testing.T) {
	tok := MakeToken(0xABCDEF, 0x42)
	require.Equal(t, Token(0xABCDEF42), tok)
	require.Equal(t, uint32(0xABCDEF), tok.Index())
	require.Equal(t, uint8(0x42), tok.Key())
}

func TestBindWindowChecks(t *testing.T) {
	tr, _ := newTestTranslator(t, smallSpec())
	mr := registerMR(t, tr, 1, 0x1000, 4, PageShift4K, RightLocalWrite|RightRemoteRead)
	ro := registerMR(t, tr, 1, 0x9000, 1, PageShift4K, RightRemoteRead)
	kt := tr.Keys()
	mw, err := kt.Alloc(KindMW, 1)
	require.NoError(t, err)
	_, err = kt.BindWindow(mw, mr, 5, 0x800, 0x1000, RightRemoteRead)
	require.ErrorIs(t, err, ErrOutsideMR, "rule 48: starts before the MR")
	_, err = kt.BindWindow(mw, mr, 5, 0x4000, 0x1001, RightRemoteRead)
	require.ErrorIs(t, err, ErrOutsideMR, "rule 48 / §5.5: ends past the MR")
	_, err = kt.BindWindow(mw, ro, 5, 0x9000, 0x100, RightRemoteWrite|RightLocalWrite)
	require.ErrorIs(t, err, ErrAccessDenied, "rule 49: remote write needs the MR's local write")
	w1, err := kt.BindWindow(mw, mr, 5, 0x2000, 0x1000, RightRemoteRead)
	require.NoError(t, err)
	require.NotEqual(t, mw, w1, "§5.3: every bind gives a new key")
	_, err = kt.BindWindow(w1, mr, 5, 0x2000, 0x1000, RightRemoteRead)
	require.ErrorIs(t, err, ErrWrongState, "§5.5: invalidate before rebinding")
	fromOtherPD, err := kt.Alloc(KindMW, 2)
	require.NoError(t, err)
	_, err = kt.BindWindow(fromOtherPD, mr, 5, 0x2000, 0x1000, RightRemoteRead)
	require.ErrorIs(t, err, ErrAccessDenied)
}

// TestKeyTableHandsOutFreedIndexFirstThenLowest: Alloc hands out the index
// freed last, else the lowest never handed out (the order of a stack of
// every index that pops 0 first), across chunks; an index never handed
// out reads as a free entry of key 0 and its token is refused; FreeEntries
// counts both kinds of free entry.
func TestKeyTableHandsOutFreedIndexFirstThenLowest(t *testing.T) {
	n := uint32(keyChunkEntries + 3)
	kt, err := NewKeyTable(n)
	require.NoError(t, err)
	e, ok := kt.Entry(n - 1)
	require.True(t, ok)
	require.Equal(t, Entry{}, e)
	require.ErrorIs(t, kt.Free(MakeToken(n-1, 0)), ErrBadToken)
	var toks []Token
	for i := range keyChunkEntries + 1 {
		tok, err := kt.Alloc(KindMR, 1)
		require.NoError(t, err)
		require.Equal(t, uint32(i), tok.Index())
		toks = append(toks, tok)
	}
	require.Equal(t, 2, kt.FreeEntries())
	require.NoError(t, kt.Free(toks[5]))
	require.NoError(t, kt.Free(toks[keyChunkEntries]))
	require.Equal(t, 4, kt.FreeEntries())
	for _, want := range []uint32{keyChunkEntries, 5, keyChunkEntries + 1, keyChunkEntries + 2} {
		tok, err := kt.Alloc(KindMW, 1)
		require.NoError(t, err)
		require.Equal(t, want, tok.Index())
	}
	_, err = kt.Alloc(KindMW, 1)
	require.ErrorIs(t, err, ErrNoSpace)
}
