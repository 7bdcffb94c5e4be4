// Package mtt models the NIC's translation and protection unit (TPT): the key
// table (MPT: one entry per memory region and per memory window), the memory
// translation table (MTT: one 8-byte entry per page), both living in host
// memory (ICM), and an on-NIC set-associative cache in front of each, whose
// misses are DMA reads over PCIe.
//
// # Functional state and timing
//
// KeyTable and MTT are the functional images of what ICM holds; they are the
// truth every check and translation reads. Each holds its entries in chunks
// allocated as entries are first used (an entry never used reads as in a
// cleared table), so a table sized for millions of entries costs memory,
// and set-up time, only for those a run uses. Translator adds the time: a
// lookup reads the key-table entry through the MPT cache, runs the checks
// (and takes its pages from the MTT image with them: the registration the
// checks passed), then reads every MTT line the range needs through the MTT
// cache. The
// caches hold tags and replacement state only (Cache is a pure data
// structure, no timing); a hit answers after LatencyCycles, a miss holds the
// request on an MSHR until the DMA read of the line completes, and misses to
// a line that already has an MSHR merge onto it. Each cache starts at most
// PortsPerCycle lookups per NIC clock cycle; a request that finds every MSHR
// busy keeps its place at the head of the cache's queue until a fill frees
// one. DMA reads and writes wait for room in the DMA queue (DMA.CanAccept)
// and the unit sleeps until the DMA wakes it. The tick after the one that
// empties every queue would do nothing: it is reserved, not queued
// (sim.TickDriver.WakeIdle), and a request arriving first makes it a tick.
//
// Because data comes from the functional images, a cached copy can never be
// stale: the cache decides when an access costs a DMA read, not what it
// returns. Registration writes (WriteMPT, WriteMTT) charge the DMA writes to
// ICM (MTT in 64 B units of 8 entries, docs/sources.md §6) and update or drop the
// cached copies, per Spec.CacheWritePolicy, when they are issued.
//
// # Tokens and checks
//
// A token is (index<<8)|key8 (docs/ndk.md §4, §5.3). Check, and the Translator
// after the key-table read, test in order: zero length (reported, nothing
// else looked at: docs/ndk.md §5.4 leaves a zero-length Read/Write unchecked, the
// caller decides), index in range, entry not free, key equal, entry valid, PD
// equal, window bound through this QP, rights, no wrap-around, and the whole
// range inside the entry's [BaseVA, BaseVA+Length). The first failure is the
// Reason; no page address is returned unless every check passed.
//
// # How the NIC layer uses it
//
// RegisterMr / FastRegister: KeyTable.Alloc (at CreateMr), MTT.Alloc and
// MTT.Set, KeyTable.SetRegion, then Translator.WriteMTT and WriteMPT; the
// writes' done handler tells when ICM holds the new entries. Bind:
// KeyTable.BindWindow, WriteMPT. Deregister / Invalidate: KeyTable.Invalidate,
// WriteMPT (and MTT.Free when the pages are released). Data path:
// Translator.Lookup with a caller-owned Request; the answer (Reason, Pages,
// Offset) is in the Request when done runs. ErrNoSpace from KeyTable.Alloc or
// MTT.Alloc means STATUS_INSUFFICIENT_RESOURCES.
//
// Functional changes take effect when the NIC layer makes them; it should
// make them at the simulated time the hardware would (for example, mark a
// registration valid when its writes are done). See docs/mtt.md for every
// parameter, its source, and the model's known gaps.
package mtt
