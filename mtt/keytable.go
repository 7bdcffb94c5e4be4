package mtt

import (
	"errors"
	"fmt"
)

// State is a key-table entry's state.
type State uint8

// Entry states. A free entry belongs to no MR or MW. An invalid entry is
// allocated (its MR or MW object exists) but grants no access: not yet
// registered, deregistered, invalidated, or an unbound window.
const (
	StateFree State = iota
	StateInvalid
	StateValid
)

var stateNames = [...]string{"free", "invalid", "valid"}

// String names the state.
func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// Kind tells memory regions from memory windows.
type Kind uint8

// Entry kinds.
const (
	KindMR Kind = iota // memory region (NdkRegisterMr or fast-register MR)
	KindMW             // memory window (NdkCreateMw/NdkBind)
)

// String names the kind.
func (k Kind) String() string {
	if k == KindMW {
		return "MW"
	}
	return "MR"
}

// Region is what a registration (RegisterMr, FastRegister) or a bind writes
// into an entry: the accessible range, the rights and where its translation
// lives.
type Region struct {
	BaseVA    uint64 // first accessible virtual address (a tag, docs/ndk.md rule 21)
	Length    uint64 // accessible bytes: [BaseVA, BaseVA+Length)
	Rights    Rights
	PageShift uint8  // PageShift4K or PageShift2M
	FBO       uint64 // offset of XlateVA in the page of MTT entry MTTOffset (rule 37)
	MTTOffset uint32 // first MTT entry
	MTTCount  uint32 // MTT entries (pages)
	// XlateVA is the virtual address that maps to MTT entry MTTOffset at
	// offset FBO. For an MR it equals BaseVA; a window copies its MR's
	// BaseVA, FBO and MTT range, so one key-table read serves both.
	XlateVA uint64
}

// Entry is one key-table (MPT) entry.
type Entry struct {
	State State
	Kind  Kind
	Key   uint8  // current key; the token is MakeToken(index, Key)
	PD    uint32 // protection domain handle
	QPN   uint32 // windows: the QP the window was bound through (docs/ndk.md §5.5)
	Region
}

// KeyTable is the functional image of the key table: the truth that ICM
// holds. It has no timing; Translator charges for reading it.
//
// Entries are kept in chunks of keyChunkEntries, each allocated when an
// entry of it is first handed out, and indices are handed out lowest
// first: a table sized for tens of thousands of objects of which a run
// creates a few holds one chunk, instead of megabytes that set-up would
// have to clear. An entry never handed out reads as a free entry of key 0,
// as in a cleared table.
type KeyTable struct {
	n      uint32
	chunks []*[keyChunkEntries]Entry
	fresh  uint32   // the indices below fresh have been handed out
	free   []uint32 // stack of the indices freed since
}

// keyChunkEntries is the entries of one chunk of the key table (64 KiB).
const (
	keyChunkShift   = 10
	keyChunkEntries = 1 << keyChunkShift
)

// untouched is what an entry never handed out holds; it is only read.
var untouched Entry

// Errors from key-table operations that the NIC layer maps to statuses.
var (
	ErrBadToken     = errors.New("mtt: token does not name a current entry")
	ErrWrongKind    = errors.New("mtt: wrong entry kind")
	ErrWrongState   = errors.New("mtt: entry in the wrong state")
	ErrOutsideMR    = errors.New("mtt: window not wholly inside its MR")
	ErrAccessDenied = errors.New("mtt: rights not allowed by the MR")
	ErrBadRegion    = errors.New("mtt: malformed region")
)

// NewKeyTable returns a table of n free entries (n <= 2^24).
func NewKeyTable(n uint32) (*KeyTable, error) {
	if n == 0 || n > IndexMax+1 {
		return nil, fmt.Errorf("mtt: key table of %d entries, want 1..2^24", n)
	}
	return &KeyTable{n: n, chunks: make([]*[keyChunkEntries]Entry, (uint64(n)+keyChunkEntries-1)/keyChunkEntries)}, nil
}

// Len is the number of entries.
func (kt *KeyTable) Len() uint32 { return kt.n }

// FreeEntries is the number of free entries.
func (kt *KeyTable) FreeEntries() int { return len(kt.free) + int(kt.n-kt.fresh) }

// at is entry idx (< Len), to read: untouched when its chunk has none yet.
func (kt *KeyTable) at(idx uint32) *Entry {
	if c := kt.chunks[idx>>keyChunkShift]; c != nil {
		return &c[idx&(keyChunkEntries-1)]
	}
	return &untouched
}

// take pops the index Alloc hands out: the one freed last, else the lowest
// never handed out; ok is false when every entry is in use.
func (kt *KeyTable) take() (idx uint32, ok bool) {
	if n := len(kt.free); n > 0 {
		idx, kt.free = kt.free[n-1], kt.free[:n-1]
		return idx, true
	}
	if kt.fresh == kt.n {
		return 0, false
	}
	idx, kt.fresh = kt.fresh, kt.fresh+1
	if kt.chunks[idx>>keyChunkShift] == nil {
		kt.chunks[idx>>keyChunkShift] = new([keyChunkEntries]Entry)
	}
	return idx, true
}

// Alloc takes a free entry for a new MR or MW object of protection domain
// pd. The entry starts invalid (no access until registered or bound). The
// key is not reset: it continues from the entry's previous life, so a token
// of an earlier object on the same index stays dead (docs/ndk.md §5.3). An empty
// table is ErrNoSpace (STATUS_INSUFFICIENT_RESOURCES, rules 17 and 46).
func (kt *KeyTable) Alloc(kind Kind, pd uint32) (Token, error) {
	idx, ok := kt.take()
	if !ok {
		return 0, fmt.Errorf("%w: key table: all %d entries in use", ErrNoSpace, kt.n)
	}
	e := kt.at(idx)
	*e = Entry{State: StateInvalid, Kind: kind, Key: e.Key, PD: pd}
	return MakeToken(idx, e.Key), nil
}

// current returns the entry tok names if tok is its current token and the
// entry is allocated.
func (kt *KeyTable) current(tok Token) (*Entry, error) {
	if idx := tok.Index(); idx < kt.n {
		if e := kt.at(idx); e.State != StateFree && e.Key == tok.Key() {
			return e, nil
		}
	}
	return nil, kt.badToken(tok)
}

// badToken is current's error for tok, out of line: the hot callers keep
// only their common path in their instructions.
//
//go:noinline
func (kt *KeyTable) badToken(tok Token) error {
	idx := tok.Index()
	if idx >= kt.n {
		return fmt.Errorf("%w: %v: index beyond %d entries", ErrBadToken, tok, kt.n)
	}
	e := kt.at(idx)
	return fmt.Errorf("%w: %v (entry %s, key %d)", ErrBadToken, tok, e.State, e.Key)
}

// Free releases the entry of tok (object destroyed). The key advances so
// the old token can never match again (docs/ndk.md §5.3; after 256 lives of one
// index the 8-bit key wraps, as in hardware).
func (kt *KeyTable) Free(tok Token) error {
	e, err := kt.current(tok)
	if err != nil {
		return err
	}
	*e = Entry{State: StateFree, Key: e.Key + 1}
	kt.free = append(kt.free, tok.Index())
	return nil
}

// RotateKey gives the entry a new 8-bit key and returns the new token; the
// old token is dead from now on (NdkBind always, NdkFastRegister when
// rotate_fast_register_key is set: docs/ndk.md §5.3, rules 43 and 50).
func (kt *KeyTable) RotateKey(tok Token) (Token, error) {
	e, err := kt.current(tok)
	if err != nil {
		return 0, err
	}
	e.Key++
	return MakeToken(tok.Index(), e.Key), nil
}

// SetRegion writes a registration into the MR entry of tok and makes it
// valid (RegisterMr or FastRegister). The region must fit its MTT range.
func (kt *KeyTable) SetRegion(tok Token, r Region) error {
	e, err := kt.current(tok)
	if err != nil {
		return err
	}
	if e.Kind != KindMR || !r.fits() {
		return regionErr(e, tok, &r)
	}
	e.Region = r
	e.State = StateValid
	return nil
}

// fits reports whether check finds nothing wrong with r: the common path,
// without the errors' formatting.
func (r *Region) fits() bool {
	return (r.PageShift == PageShift4K || r.PageShift == PageShift2M) &&
		r.FBO < uint64(1)<<(r.PageShift&63) &&
		r.Length != 0 && r.BaseVA+r.Length-1 >= r.BaseVA &&
		r.BaseVA >= r.XlateVA &&
		(r.BaseVA-r.XlateVA+r.FBO+r.Length-1)>>(r.PageShift&63) < uint64(r.MTTCount)
}

// regionErr is SetRegion's error, out of line (see badToken).
//
//go:noinline
func regionErr(e *Entry, tok Token, r *Region) error {
	if e.Kind != KindMR {
		return fmt.Errorf("%w: %v is a window", ErrWrongKind, tok)
	}
	return r.check()
}

func (r Region) check() error {
	if r.PageShift != PageShift4K && r.PageShift != PageShift2M {
		return fmt.Errorf("%w: page shift %d, want %d or %d", ErrBadRegion, r.PageShift, PageShift4K, PageShift2M)
	}
	page := uint64(1) << r.PageShift
	if r.FBO >= page {
		return fmt.Errorf("%w: first byte offset %d >= page size %d", ErrBadRegion, r.FBO, page)
	}
	if r.Length == 0 || r.BaseVA+r.Length-1 < r.BaseVA {
		return fmt.Errorf("%w: [%#x, +%d) is empty or wraps", ErrBadRegion, r.BaseVA, r.Length)
	}
	if r.BaseVA < r.XlateVA {
		return fmt.Errorf("%w: base VA %#x below translation VA %#x", ErrBadRegion, r.BaseVA, r.XlateVA)
	}
	last := (r.BaseVA - r.XlateVA + r.FBO + r.Length - 1) >> r.PageShift
	if last >= uint64(r.MTTCount) {
		return fmt.Errorf("%w: range needs %d pages, MTT range has %d", ErrBadRegion, last+1, r.MTTCount)
	}
	return nil
}

// Invalidate makes the entry of tok invalid: deregistration, NdkInvalidate,
// remote invalidation (docs/ndk.md rules 29, 56, 57). Invalidating an entry that
// is not valid is ErrWrongState (the NIC layer decides the status).
func (kt *KeyTable) Invalidate(tok Token) error {
	e, err := kt.current(tok)
	if err != nil {
		return err
	}
	if e.State != StateValid {
		return notValid(tok, e.State)
	}
	e.State = StateInvalid
	return nil
}

// notValid is Invalidate's error, out of line (see badToken).
//
//go:noinline
func notValid(tok Token, st State) error {
	return fmt.Errorf("%w: %v is %s", ErrWrongState, tok, st)
}

// BindWindow binds the window mw to [va, va+length) of the valid MR mr with
// the given rights, through QP qpn. The window gets a new key (docs/ndk.md §5.3)
// and the new token is returned. It checks what the key table knows
// (docs/ndk.md rules 48, 49 and §5.5): the MR is a valid MR of the same PD, the
// window lies wholly inside it, the window is not bound (ErrWrongState:
// invalidate before rebinding), and remote write needs the MR's local write.
func (kt *KeyTable) BindWindow(mw, mr Token, qpn uint32, va, length uint64, rights Rights) (Token, error) {
	w, err := kt.current(mw)
	if err != nil {
		return 0, err
	}
	m, err := kt.current(mr)
	if err != nil {
		return 0, err
	}
	switch {
	case w.Kind != KindMW || m.Kind != KindMR:
		return 0, fmt.Errorf("%w: bind %v (%s) to %v (%s)", ErrWrongKind, mw, w.Kind, mr, m.Kind)
	case w.State != StateInvalid:
		return 0, fmt.Errorf("%w: window %v is %s", ErrWrongState, mw, w.State)
	case m.State != StateValid:
		return 0, fmt.Errorf("%w: MR %v is %s", ErrWrongState, mr, m.State)
	case w.PD != m.PD:
		return 0, fmt.Errorf("%w: window PD %d, MR PD %d", ErrAccessDenied, w.PD, m.PD)
	case length == 0 || va < m.BaseVA || va+length-1 < va || va+length-1 > m.BaseVA+m.Length-1: // inclusive last bytes: an end at 2^64 does not wrap
		return 0, fmt.Errorf("%w: [%#x, +%d) vs MR [%#x, +%d)", ErrOutsideMR, va, length, m.BaseVA, m.Length)
	case rights&RightRemoteWrite != 0 && m.Rights&RightLocalWrite == 0:
		return 0, fmt.Errorf("%w: remote-write window on an MR without local write (rule 49)", ErrAccessDenied)
	}
	w.Key++
	w.Region = m.Region
	w.BaseVA, w.Length, w.Rights = va, length, rights
	w.QPN = qpn
	w.State = StateValid
	return MakeToken(mw.Index(), w.Key), nil
}

// Entry returns a copy of entry index (for the NIC layer and tests).
func (kt *KeyTable) Entry(index uint32) (Entry, bool) {
	if index >= kt.n {
		return Entry{}, false
	}
	return *kt.at(index), true
}

// Valid reports whether entry index exists and is valid, without copying
// the entry (the NIC's hot paths).
func (kt *KeyTable) Valid(index uint32) bool {
	return index < kt.n && kt.at(index).State == StateValid
}

// entry returns the entry at index or nil; for the data path.
func (kt *KeyTable) entry(index uint32) *Entry {
	if index >= kt.n {
		return nil
	}
	return kt.at(index)
}
