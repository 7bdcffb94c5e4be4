package pcie

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMRRSSplit: a read is cut into MRd TLPs of at most MRRS on MRRS-aligned
// boundaries (docs/sources.md 11); a write into MWr of at most MPS.
func TestMRRSSplit(t *testing.T) {
	spec := DefaultSpec() // MRRS 512, MPS 256
	l, env, up, _ := newTestLink(t, spec)
	var log doneLog
	require.NoError(t, l.DMA().Read(0x10000, 2048, &log, 1))
	require.NoError(t, l.DMA().Read(0x20100, 1024, &log, 2)) // 0x100 into a 512 B block
	require.NoError(t, l.DMA().Write(0x30000, 1000, &log, 3))
	env.Engine.Run()
	var mrd, mwr []uint64
	for _, p := range up.got {
		switch p.kind {
		case KindMRd:
			mrd = append(mrd, p.reqBytes)
		case KindMWr:
			mwr = append(mwr, p.payload)
		}
	}
	require.Equal(t, []uint64{512, 512, 512, 512, 256, 512, 256}, mrd)
	require.Equal(t, []uint64{256, 256, 256, 232}, mwr)
	require.ElementsMatch(t, []uint64{1, 2, 3}, log.args)
}

// TestCompletionsSplitAtRCB: in RCB mode the host completes each RCB block
// separately; in MPS mode completions are up to MPS and end on RCB
// boundaries (PCIe Base Spec 2.3.1.1).
func TestCompletionsSplitAtRCB(t *testing.T) {
	for _, c := range []struct {
		split string
		rcb   int
		addr  uint64
		bytes uint64
		want  []uint64
	}{
		{SplitRCB, 64, 0x1000, 512, []uint64{64, 64, 64, 64, 64, 64, 64, 64}},
		{SplitRCB, 128, 0x1000, 512, []uint64{128, 128, 128, 128}},
		{SplitRCB, 64, 0x1020, 160, []uint64{32, 64, 64}},
		{SplitMPS, 64, 0x1000, 512, []uint64{256, 256}},
		{SplitMPS, 64, 0x1020, 512, []uint64{224, 256, 32}},
		{SplitMPS, 128, 0x1020, 512, []uint64{224, 256, 32}},
	} {
		spec := DefaultSpec()
		spec.CompletionSplit, spec.RCBBytes = c.split, c.rcb
		l, env, up, down := newTestLink(t, spec)
		require.NoError(t, l.DMA().Read(c.addr, c.bytes, nil, 0))
		env.Engine.Run()
		// Each MRd's completions in arrival order, MRds in address order
		// (the MRds of one read are answered independently).
		byTag := map[uint32][]uint64{}
		for _, p := range down.got {
			byTag[p.tag] = append(byTag[p.tag], p.payload)
		}
		var got []uint64
		for _, p := range up.got {
			got = append(got, byTag[p.tag]...)
		}
		require.Equal(t, c.want, got, "%s rcb %d addr %#x", c.split, c.rcb, c.addr)
		require.Equal(t, uint64(1), l.Stats().Reads)
	}
}

// TestCompletionsInAddressOrder: on random streams of reads, every
// request's completions arrive in address order, cover the request exactly
// and every read completes once.
func TestCompletionsInAddressOrder(t *testing.T) {
	seed := testSeed(t)
	rng := rand.New(rand.NewPCG(seed, 7))
	for trial := 0; trial < 20; trial++ {
		spec := DefaultSpec()
		spec.CompletionSplit = []string{SplitMPS, SplitRCB}[rng.IntN(2)]
		spec.TagsMax = 1 + rng.IntN(32)
		spec.HostReadLatencyPerByteNS = rng.Float64()
		l, env, _, down := newTestLink(t, spec)
		var log doneLog
		want := map[uint64]uint64{}
		for i := 0; i < 50; i++ {
			addr := rng.Uint64N(1 << 30)
			n := 1 + rng.Uint64N(5000)
			want[uint64(i)] = n
			require.NoError(t, l.DMA().Read(addr, n, &log, uint64(i)))
		}
		env.Engine.Run()
		require.Len(t, log.args, 50)
		require.Zero(t, l.Stats().CplOutOfOrder)
		next := map[uint32]uint64{}
		for _, p := range down.got {
			if a, ok := next[p.tag]; ok && a != 0 {
				require.Equal(t, a, p.addr, "tag %d", p.tag)
			}
			next[p.tag] = p.addr + p.payload
			if p.last {
				next[p.tag] = 0
			}
		}
		var sum uint64
		for _, n := range want {
			sum += n
		}
		require.Equal(t, sum, l.Stats().ReadBytes)
	}
}

// TestPostedWritesStayInOrder: DMA writes and MSI-X arrive at the host in
// the order they were issued, also when posted credits run out; an MRd
// never passes an older posted write at the transmitter. The engine's two
// paths are timed alike here (one channel each, 8 cycles per request of
// either kind), so each read is cut no earlier than the write requested
// before it and the transmitter's ordering rule is what is checked.
func TestPostedWritesStayInOrder(t *testing.T) {
	spec := DefaultSpec()
	spec.HostPHCredits, spec.HostPDCredits = 2, 16
	spec.DMAWriteQueueDepth, spec.DMAReadQueueDepth = 256, 256
	spec.DMAReadChannels, spec.DMAWriteChannels, spec.WriteTLPsPerCycle = 1, 1, 2
	l, env, up, _ := newTestLink(t, spec)
	var log doneLog
	var wantAddr []uint64
	for i := uint64(0); i < 40; i++ {
		a := 0x100000 + i*4096
		require.NoError(t, l.DMA().Write(a, 300, &log, i))
		wantAddr = append(wantAddr, a, a+256)
		if i%10 == 9 {
			require.NoError(t, l.MSIX(&log, 1000+i))
			wantAddr = append(wantAddr, 0xFEE00000)
		}
		// Reads in between must not pass the writes before them.
		require.NoError(t, l.DMA().Read(0x900000+i*64, 64, nil, 0))
	}
	env.Engine.Run()
	var got []uint64
	for _, p := range up.got {
		if p.kind == KindMWr {
			got = append(got, p.addr)
		}
	}
	require.Equal(t, wantAddr, got)
	require.Positive(t, l.Stats().Up.CreditStalls)
	require.Equal(t, uint64(4), l.Stats().MSIXs)
	// Ordering: each MRd follows all MWr issued before it.
	lastW := -1
	wCount := 0
	for i, p := range up.got {
		if p.kind == KindMWr {
			wCount++
			lastW = i
		}
		if p.kind == KindMRd {
			k := int(p.addr-0x900000) / 64 // read k was issued after write k
			require.GreaterOrEqual(t, wCount, 2*(k+1)+k/10, "MRd %d passed a posted write (last MWr at %d)", k, lastW)
		}
	}
}

// TestCreditExhaustionStallsWithoutDropOrReorder: with tiny credits in
// both directions, TLPs wait for UpdateFC and none is lost or reordered.
func TestCreditExhaustionStallsWithoutDropOrReorder(t *testing.T) {
	spec := DefaultSpec()
	spec.HostPHCredits, spec.HostPDCredits = 1, 16
	spec.HostNPHCredits = 1
	spec.NICCplHCredits, spec.NICCplDCredits = 1, 16
	spec.NICPHCredits, spec.NICPDCredits = 1, 4
	l, env, up, down := newTestLink(t, spec)
	var wlog, rlog, mlog doneLog
	const n = 200
	for i := uint64(0); i < n; i++ {
		if l.DMA().CanAccept() {
			require.NoError(t, l.DMA().Write(i*256, 256, &wlog, i))
		}
		if l.DMA().CanAccept() {
			require.NoError(t, l.DMA().Read(1<<32+i*256, 256, &rlog, i))
		}
		if i < 50 {
			require.NoError(t, l.MMIOWrite(i*64, 64, 0, &mlog, i))
		}
	}
	env.Engine.Run()
	st := l.Stats()
	require.Positive(t, st.Up.CreditStallsByClass[classP])
	require.Positive(t, st.Up.CreditStallsByClass[classNP])
	require.Positive(t, st.Down.CreditStallsByClass[classCpl])
	require.Positive(t, st.Down.CreditStallsByClass[classP])
	require.Equal(t, st.Writes, uint64(len(wlog.args)))
	require.Equal(t, st.Reads, uint64(len(rlog.args)))
	require.Len(t, mlog.args, 50)
	for i, a := range wlog.args {
		require.Equal(t, uint64(i), a, "write completions in order")
	}
	for i, a := range mlog.args {
		require.Equal(t, uint64(i), a, "MMIO arrivals in order")
	}
	var prev uint64
	for _, p := range up.got {
		if p.kind == KindMWr {
			require.GreaterOrEqual(t, p.addr, prev)
			prev = p.addr
		}
	}
	require.Zero(t, st.CplOutOfOrder)
	require.Len(t, down.got, len(rlog.args)+50)
	// Every credit came back.
	for cl := range l.up.cred.used {
		require.Equal(t, [2]uint64{}, l.up.cred.used[cl])
		require.Equal(t, [2]uint64{}, l.down.cred.used[cl])
	}
}

// TestTagExhaustionStallsWithoutDropOrReorder: more reads than tags wait
// for a tag; MRds go out in issue order and every read completes.
func TestTagExhaustionStallsWithoutDropOrReorder(t *testing.T) {
	spec := DefaultSpec()
	spec.TagsMax = 2
	l, env, up, _ := newTestLink(t, spec)
	var log doneLog
	for i := uint64(0); i < 60; i++ {
		require.NoError(t, l.DMA().Read(i*1024, 1024, &log, i))
	}
	env.Engine.Run()
	st := l.Stats()
	require.Positive(t, st.TagStalls)
	require.Positive(t, st.TagStallPS)
	require.Equal(t, uint64(2), st.TagsInUseMax)
	require.Len(t, log.args, 60)
	for i, a := range log.args {
		require.Equal(t, uint64(i), a)
	}
	var prev uint64
	for i, p := range up.got {
		if i > 0 {
			require.Greater(t, p.addr, prev)
		}
		prev = p.addr
	}
	require.Len(t, up.got, 120)
}

// TestQueueBoundAndWaker: a full request queue refuses with ErrFull, queues
// nothing, and wakes its wakers when room frees.
func TestQueueBoundAndWaker(t *testing.T) {
	spec := DefaultSpec()
	spec.DMAWriteQueueDepth = 4
	l, env, _, _ := newTestLink(t, spec)
	w := &countWaker{}
	l.DMA().AddWaker(w)
	for i := 0; i < 4; i++ {
		require.NoError(t, l.DMA().Write(uint64(i)*4096, 4096, nil, 0))
	}
	require.False(t, l.DMA().CanAccept())
	require.ErrorIs(t, l.DMA().Write(0, 64, nil, 0), ErrFull)
	require.Error(t, l.DMA().Read(0, 0, nil, 0))
	require.Error(t, l.DMA().Read(0, TransferBytesMax+1, nil, 0))
	require.Error(t, l.DMA().Read(^uint64(0)-10, 100, nil, 0))
	env.Engine.Run()
	require.Positive(t, w.n)
	require.Equal(t, uint64(4), l.Stats().Writes)
}

// TestAddWakerIsIdempotent: a client that registers on every refusal must
// not grow the waker list, and is still woken once per freeing.
func TestAddWakerIsIdempotent(t *testing.T) {
	spec := DefaultSpec()
	spec.DMAWriteQueueDepth = 2
	l, env, _, _ := newTestLink(t, spec)
	w := &countWaker{}
	for round := 0; round < 100; round++ {
		for l.DMA().CanAccept() {
			require.NoError(t, l.DMA().Write(0, 4096, nil, 0))
		}
		l.DMA().AddWaker(w)
		env.Engine.Run()
	}
	require.Equal(t, 1, l.DMA().Wakers())
	require.Equal(t, 100, w.n, "one wake per freeing after a refusal")
}

type countWaker struct{ n int }

func (c *countWaker) Wake() { c.n++ }

// TestMMIODoorbellsAndWCStores: an 8 B doorbell is one MWr; a 256 B
// write-combined store is four 64 B MWr; uncached stores leave no faster
// than MMIOIssueGapNS apart.
func TestMMIODoorbellsAndWCStores(t *testing.T) {
	spec := DefaultSpec()
	l, env, _, down := newTestLink(t, spec)
	var log doneLog
	for i := uint64(0); i < 3; i++ {
		require.NoError(t, l.MMIOWrite(0x800+i*8, 8, 0, &log, i))
	}
	require.NoError(t, l.MMIOWrite(0x1000, 256, 0, &log, 9))
	require.Error(t, l.MMIOWrite(0x1004, 8, 0, nil, 0))
	require.Error(t, l.MMIOWrite(0, 0, 0, nil, 0))
	env.Engine.Run()
	var sizes []uint64
	for _, p := range down.got {
		sizes = append(sizes, p.payload)
	}
	require.Equal(t, []uint64{8, 8, 8, 64, 64, 64, 64}, sizes)
	require.Equal(t, []uint64{0, 1, 2, 9}, log.args)
	gap := log.times[1] - log.times[0]
	require.InDelta(t, spec.MMIOIssueGapNS*1000, float64(gap), 1)
	require.Equal(t, uint64(4), l.Stats().MMIOWrites)
}

// TestMMIOIssueGapIsPerSource: the gap between uncached stores is a
// core's, between its own (docs/sources.md 2). Two doorbells from one
// source leave MMIOIssueGapNS apart; from two sources the second leaves
// as soon as the link has carried the first, and a source's writes keep
// their order. A write from a source never added is refused.
func TestMMIOIssueGapIsPerSource(t *testing.T) {
	spec := DefaultSpec()
	l, env, _, _ := newTestLink(t, spec)
	second, err := l.AddMMIOSource("Host.Core[1]")
	require.NoError(t, err)
	var log doneLog
	require.NoError(t, l.MMIOWrite(0x800, 8, 0, &log, 0))
	require.NoError(t, l.MMIOWrite(0x808, 8, 0, &log, 1))
	require.NoError(t, l.MMIOWrite(0x810, 8, second, &log, 2))
	require.ErrorContains(t, l.MMIOWrite(0x818, 8, second+1, &log, 3), "source 2, but 2 sources were added")
	env.Engine.Run()
	require.Equal(t, []uint64{0, 2, 1}, log.args, "core 1's doorbell passes core 0's second, which waits its gap")
	gap := spec.MMIOIssueGapNS * 1000 // ps
	require.InDelta(t, gap, float64(log.times[2]-log.times[0]), 1, "one source's doorbells a gap apart")
	require.Less(t, float64(log.times[1]-log.times[0]), gap/2, "another source's doorbell does not wait the gap")
}

// TestDLLPsRideOnTheOppositeDirection: a write-only stream puts the ACKs
// and UpdateFCs that acknowledge it on the downstream direction, and the
// busy upstream direction spends the section-11 share on DLLPs and SKP.
func TestDLLPsRideOnTheOppositeDirection(t *testing.T) {
	spec := DefaultSpec()
	r, err := RunStream(spec, rnicClock, StreamConfig{Dir: DirWrite, SizeBytes: 4096, Outstanding: 64, WarmupTransfers: 20, MeasureTransfers: 200})
	require.NoError(t, err)
	st := r.Stats
	require.Zero(t, st.Down.TLPCount())
	require.Positive(t, st.Down.ACKs)
	require.Positive(t, st.Down.UpdateFCs)
	share := float64(st.Up.DLLPBytes+st.Up.SKPBytes) / float64(st.Up.WireBytes)
	require.InDelta(t, 16.0/203+4.0/1538, share, 0.002)
}

// TestDMARefusesEachBadRequestForItsOwnFault: a request of 0 bytes, of more
// than TransferBytesMax or wrapping the address space is refused for that
// fault, even on a full queue, and counted; 1 byte and TransferBytesMax
// bytes are taken; a full queue refuses a good request with ErrFull.
func TestDMARefusesEachBadRequestForItsOwnFault(t *testing.T) {
	spec := DefaultSpec()
	spec.DMAReadQueueDepth = 2
	l, _, _, _ := newTestLink(t, spec)
	d := l.DMA()
	require.NoError(t, d.Read(0, 1, nil, 0))
	require.NoError(t, d.Read(0, TransferBytesMax, nil, 0))
	for _, c := range []struct {
		addr, bytes uint64
		want        string
	}{
		{0, 0, "of 0 bytes"},
		{0, TransferBytesMax + 1, "exceeds the limit"},
		{^uint64(0) - 10, 100, "wraps the address space"},
		{0, 64, "queue full"},
	} {
		err := d.Read(c.addr, c.bytes, nil, 0)
		require.ErrorContains(t, err, c.want, "Read(%#x, %d)", c.addr, c.bytes)
		require.Equal(t, c.want == "queue full", errors.Is(err, ErrFull))
	}
	require.Equal(t, uint64(4), l.Stats().Refused)
	require.Equal(t, 2, d.Outstanding())
}

// TestMMIOWriteRefusesBadStoresAndQueuesNothing: MMIOWrite takes 1..4096
// bytes that do not wrap the address space, an uncached store (8 B or
// less) within one 8 B word, while the CPU's queue has room; otherwise it
// says which rule the write broke and queues nothing. Each rule is tried
// on both sides of its boundary.
func TestMMIOWriteRefusesBadStoresAndQueuesNothing(t *testing.T) {
	spec := DefaultSpec()
	spec.MMIOQueueMax = 3
	l, env, _, down := newTestLink(t, spec)
	var log doneLog
	for _, c := range []struct {
		addr, bytes uint64
		err         string
	}{
		{0x100, 0, "out of range"},
		{0x100, MMIOBytesMax + 1, "out of range"},
		{^uint64(0) - 63, 64, "wraps"},
		{0x104, 8, "crosses an 8 B boundary"},
		{0x107, 2, "crosses an 8 B boundary"},
	} {
		err := l.MMIOWrite(c.addr, c.bytes, 0, &log, 99)
		require.ErrorContains(t, err, c.err, "addr %#x bytes %d", c.addr, c.bytes)
	}
	require.NoError(t, l.MMIOWrite(0x106, 2, 0, &log, 0))             // within one word
	require.NoError(t, l.MMIOWrite(^uint64(0)-64, 64, 0, &log, 1))    // ends at the last byte
	require.NoError(t, l.MMIOWrite(0x2000, MMIOBytesMax, 0, &log, 2)) // the largest
	err := l.MMIOWrite(0x200, 8, 0, &log, 99)
	require.ErrorIs(t, err, ErrFull)
	require.ErrorContains(t, err, "3 pending")
	env.Engine.Run()
	require.Equal(t, []uint64{0, 1, 2}, log.args, "only the accepted writes arrive")
	var bytes uint64
	for _, p := range down.got {
		bytes += p.payload
	}
	require.Equal(t, 2+64+MMIOBytesMax, int(bytes))
}

// TestDMAHeaderFormFollowsTheAddress: a memory request to an address below
// 4 GiB must use the 3DW header (PCIe Base Spec 2.2.4.1); at or above it
// the device uses the 4DW one (Addr64). A 64 B write and a 64 B read below
// 4 GiB take 4 B less on the link each than the same at 4 GiB; a link
// without Addr64 sends 3DW everywhere.
func TestDMAHeaderFormFollowsTheAddress(t *testing.T) {
	bytesAt := func(spec Spec, addr uint64) uint64 {
		l, env, _, _ := newTestLink(t, spec)
		require.NoError(t, l.DMA().Write(addr, 64, nil, 0))
		require.NoError(t, l.DMA().Read(addr+4096, 64, nil, 0))
		env.Engine.Run()
		return l.Stats().Up.TLPBytes
	}
	spec := DefaultSpec()
	low, high := bytesAt(spec, 1<<32-8192), bytesAt(spec, 1<<32)
	require.Equal(t, 2*OverheadBytes(KindMWr, true, false)+64, high, "a 4DW MWr and a 4DW MRd")
	require.Equal(t, high-8, low, "3DW headers below 4 GiB")
	spec.Addr64 = false
	require.Equal(t, low, bytesAt(spec, 1<<32))
}
