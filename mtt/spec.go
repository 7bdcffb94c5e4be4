package mtt

import (
	"errors"
	"fmt"
	"math/bits"
)

// Page sizes the translation table supports (docs/sources.md §6: 4 KiB ICM and
// host pages; 2 MiB hugepages as used by FaRM/Storm-style deployments, §3).
const (
	PageShift4K = 12
	PageShift2M = 21
)

// MTTEntryBytes is the size of one translation entry: one 64-bit page address
// (mlx5 struct mlx5_mtt, HanGu; docs/sources.md §6).
const MTTEntryBytes = 8

// Replacement policies.
const (
	PolicyLRU    = "lru"    // true LRU (per-way recency stamps)
	PolicyRandom = "random" // uniform victim from a seeded per-cache stream
)

// Cache write policies on registration.
const (
	WriteUpdate     = "update"     // a cached copy of a written line stays valid (written through)
	WriteInvalidate = "invalidate" // a cached copy of a written line is dropped
)

// Allocation policies of the MTT range allocator.
const (
	AllocFirstFit = "first-fit"
	AllocBestFit  = "best-fit"
)

// CacheSpec configures one on-NIC cache (MPT or MTT).
type CacheSpec struct {
	// EntriesMax is the capacity in table entries (MPT entries or MTT
	// entries), not lines. Lines = EntriesMax*entry size/LineBytes.
	EntriesMax uint32 `json:"entries_max"`
	// Ways is the associativity; Ways == lines gives a fully associative cache.
	Ways uint32 `json:"ways"`
	// LineBytes is the unit fetched from ICM on a miss (a power of two,
	// at least one entry).
	LineBytes uint32 `json:"line_bytes"`
	// Policy is the replacement policy: "lru" or "random".
	Policy string `json:"policy"`
	// LatencyCycles is the hit latency: cycles from the port to the answer.
	LatencyCycles uint32 `json:"latency_cycles"`
	// PortsPerCycle is the number of lookups the cache starts per cycle.
	PortsPerCycle uint32 `json:"ports_per_cycle"`
	// MSHRsMax bounds the outstanding line misses (each one DMA read).
	MSHRsMax uint32 `json:"mshrs_max"`
}

// Spec configures the translation and protection unit. Sizes that no public
// source gives for ConnectX (docs/sources.md §3 and §10 [gap]) are "assumed";
// each default says why.
type Spec struct {
	// ClockPeriodPS is the NIC core clock period. Assumed 1000 ps (1 GHz):
	// ConnectX-6 Dx reports hca_core_clock 1000 MHz (docs/sources.md §7); the
	// pipeline clock itself is not published.
	ClockPeriodPS uint64 `json:"clock_period_ps"`
	// KeyTableEntriesMax is the number of key-table (MPT) entries, one per MR
	// and per MW. Assumed 65536: ConnectX-5 allows 2^24 MRs (docs/sources.md §3)
	// but a simulator does not need that many; HanGu caches 40000.
	KeyTableEntriesMax uint32 `json:"key_table_entries_max"`
	// MPTEntryBytes is the size of one key-table entry in ICM. 32 B as in the
	// HanGu model (docs/sources.md §6/§8: flags, key, start VA, length, MTT
	// index), the low end of the 32-64 B range of §9; 32 B holds the fields
	// modelled here (state/key/rights 4 B, PD 4 B, VA 8 B, length 8 B, MTT
	// offset 4 B, QPN/page size 4 B).
	MPTEntryBytes uint32 `json:"mpt_entry_bytes"`
	// MTTEntriesMax is the size of the MTT region in ICM, in 8-byte entries.
	// Assumed 2^20 (8 MiB of ICM, 4 GiB of 4 KiB pages); mlx4 sets it with
	// log_num_mtt (24 in a public report, docs/sources.md §6).
	MTTEntriesMax uint32 `json:"mtt_entries_max"`
	// MTTAllocPolicy is "first-fit" or "best-fit". Assumed first-fit, the
	// simplest allocator; no source says which a NIC's driver uses.
	MTTAllocPolicy string `json:"mtt_alloc_policy"`
	// MPTBaseAddr and MTTBaseAddr are the host (ICM) addresses of the two
	// tables. Assumed; any 64 B-aligned, non-overlapping addresses will do.
	MPTBaseAddr uint64 `json:"mpt_base_addr"`
	MTTBaseAddr uint64 `json:"mtt_base_addr"`
	// MPTCache caches key-table entries by index. Assumed 1024 entries,
	// 4 ways, one 32 B entry per line: HanGu caches 40000 MPT entries
	// fully associatively, a size chosen for a gem5 model rather than SRAM;
	// 1024 x 32 B = 32 KiB is a plausible on-chip budget.
	MPTCache CacheSpec `json:"mpt_cache"`
	// MTTCache caches 64 B lines of 8 MTT entries. Assumed 4096 entries,
	// 4 ways: Coyote's 4 KiB-page TLB has 4096 entries (2^10 sets x 4 ways,
	// docs/sources.md §8), giving a 16 MiB reach with 4 KiB pages.
	MTTCache CacheSpec `json:"mtt_cache"`
	// RequestsMax bounds the translate requests in flight in the unit.
	// Assumed 64 (Coyote allows 16 outstanding translations; a NIC serving
	// several QPs needs more).
	RequestsMax uint32 `json:"requests_max"`
	// WriteOpsMax bounds the registration writes (WriteMPT/WriteMTT calls)
	// in flight; its meter is NIC.TPT.Writes. Assumed 16: no source gives
	// it; Coyote's 16 outstanding translations (docs/sources.md §8) are the
	// same order.
	WriteOpsMax uint32 `json:"write_ops_max"`
	// MTTWriteBytesMax is the size of each DMA write of MTT entries: 64 B
	// (8 entries), the UMR translation-update unit (docs/sources.md §6,
	// MLX5_UMR_MTT_ALIGNMENT). A multiple of 64.
	MTTWriteBytesMax uint32 `json:"mtt_write_bytes_max"`
	// CacheWritePolicy says what a registration write does to a cached
	// copy: "update" (write the new entry into the cached line, no allocate)
	// or "invalidate" (drop it; the next lookup misses). Default "update",
	// assumed: the NIC itself writes the entries (a FastRegister's MPT and
	// MTT writes, the firmware's through the same TPT unit), so it has the
	// new entry at hand; dropping it would make every FastRegister and
	// Invalidate of one MR miss on the next request of that MR.
	CacheWritePolicy string `json:"cache_write_policy"`
}

// DefaultSpec returns the default configuration (see the field comments for
// the source or the reason of every value).
func DefaultSpec() Spec {
	return Spec{
		ClockPeriodPS:      1000,
		KeyTableEntriesMax: 1 << 16,
		MPTEntryBytes:      32,
		MTTEntriesMax:      1 << 20,
		MTTAllocPolicy:     AllocFirstFit,
		MPTBaseAddr:        0x1_0000_0000,
		MTTBaseAddr:        0x2_0000_0000,
		MPTCache: CacheSpec{EntriesMax: 1024, Ways: 4, LineBytes: 32, Policy: PolicyLRU,
			LatencyCycles: 4, PortsPerCycle: 1, MSHRsMax: 16},
		MTTCache: CacheSpec{EntriesMax: 4096, Ways: 4, LineBytes: 64, Policy: PolicyLRU,
			LatencyCycles: 4, PortsPerCycle: 1, MSHRsMax: 16},
		RequestsMax:      64,
		WriteOpsMax:      16,
		MTTWriteBytesMax: 64,
		CacheWritePolicy: WriteUpdate,
	}
}

// Validate checks every field and names the field, its value and the range
// allowed in each complaint.
func (s Spec) Validate() error {
	var errs []error
	bad := func(field string, v any, want string) {
		errs = append(errs, fmt.Errorf("mtt: %s = %v, want %s", field, v, want))
	}
	if s.ClockPeriodPS == 0 {
		bad("clock_period_ps", s.ClockPeriodPS, ">= 1")
	}
	if s.KeyTableEntriesMax == 0 || s.KeyTableEntriesMax > IndexMax+1 {
		bad("key_table_entries_max", s.KeyTableEntriesMax, "1..2^24")
	}
	if s.MPTEntryBytes < 32 || s.MPTEntryBytes > 256 || bits.OnesCount32(s.MPTEntryBytes) != 1 {
		bad("mpt_entry_bytes", s.MPTEntryBytes, "a power of two in 32..256")
	}
	if s.MTTEntriesMax == 0 || s.MTTEntriesMax > 1<<28 {
		bad("mtt_entries_max", s.MTTEntriesMax, "1..2^28")
	}
	if s.MTTAllocPolicy != AllocFirstFit && s.MTTAllocPolicy != AllocBestFit {
		bad("mtt_alloc_policy", fmt.Sprintf("%q", s.MTTAllocPolicy), `"first-fit" or "best-fit"`)
	}
	if s.MPTBaseAddr%64 != 0 {
		bad("mpt_base_addr", fmt.Sprintf("%#x", s.MPTBaseAddr), "a multiple of 64")
	}
	if s.MTTBaseAddr%64 != 0 {
		bad("mtt_base_addr", fmt.Sprintf("%#x", s.MTTBaseAddr), "a multiple of 64")
	}
	mptEnd := s.MPTBaseAddr + uint64(s.KeyTableEntriesMax)*uint64(s.MPTEntryBytes)
	mttEnd := s.MTTBaseAddr + uint64(s.MTTEntriesMax)*MTTEntryBytes
	if s.MPTBaseAddr < mttEnd && s.MTTBaseAddr < mptEnd {
		bad("mtt_base_addr", fmt.Sprintf("%#x", s.MTTBaseAddr), fmt.Sprintf("a region not overlapping the MPT [%#x, %#x)", s.MPTBaseAddr, mptEnd))
	}
	errs = append(errs, s.MPTCache.validate("mpt_cache", uint64(s.MPTEntryBytes))...)
	errs = append(errs, s.MTTCache.validate("mtt_cache", MTTEntryBytes)...)
	if s.RequestsMax == 0 || s.RequestsMax > 1<<16 {
		bad("requests_max", s.RequestsMax, "1..65536")
	}
	if s.WriteOpsMax == 0 || s.WriteOpsMax > 1<<16 {
		bad("write_ops_max", s.WriteOpsMax, "1..65536")
	}
	if s.MTTWriteBytesMax == 0 || s.MTTWriteBytesMax%64 != 0 || s.MTTWriteBytesMax > 4096 {
		bad("mtt_write_bytes_max", s.MTTWriteBytesMax, "a multiple of 64 in 64..4096")
	}
	if s.CacheWritePolicy != WriteUpdate && s.CacheWritePolicy != WriteInvalidate {
		bad("cache_write_policy", fmt.Sprintf("%q", s.CacheWritePolicy), `"update" or "invalidate"`)
	}
	return errors.Join(errs...)
}

func (c CacheSpec) validate(name string, entryBytes uint64) []error {
	var errs []error
	bad := func(field string, v any, want string) {
		errs = append(errs, fmt.Errorf("mtt: %s.%s = %v, want %s", name, field, v, want))
	}
	lineOK := c.LineBytes != 0 && bits.OnesCount32(c.LineBytes) == 1 && uint64(c.LineBytes) >= entryBytes && c.LineBytes <= 4096
	if !lineOK {
		bad("line_bytes", c.LineBytes, fmt.Sprintf("a power of two in %d..4096", entryBytes))
	}
	if c.Ways == 0 || c.Ways > 1024 {
		bad("ways", c.Ways, "1..1024")
	}
	if c.EntriesMax == 0 || c.EntriesMax > 1<<24 {
		bad("entries_max", c.EntriesMax, "1..2^24")
	} else if lineOK && c.Ways != 0 && entryBytes != 0 { // a zero entry size is reported on its own field
		perLine := uint64(c.LineBytes) / entryBytes
		lines := uint64(c.EntriesMax) / perLine
		if uint64(c.EntriesMax)%perLine != 0 || lines%uint64(c.Ways) != 0 || lines == 0 {
			bad("entries_max", c.EntriesMax, fmt.Sprintf("a multiple of entries per line (%d) x ways (%d)", perLine, c.Ways))
		}
	}
	if c.Policy != PolicyLRU && c.Policy != PolicyRandom {
		bad("policy", fmt.Sprintf("%q", c.Policy), `"lru" or "random"`)
	}
	if c.LatencyCycles == 0 || c.LatencyCycles > 1000 {
		bad("latency_cycles", c.LatencyCycles, "1..1000")
	}
	if c.PortsPerCycle == 0 || c.PortsPerCycle > 64 {
		bad("ports_per_cycle", c.PortsPerCycle, "1..64")
	}
	if c.MSHRsMax == 0 || c.MSHRsMax > 4096 {
		bad("mshrs_max", c.MSHRsMax, "1..4096")
	}
	return errs
}

// Geometry is a cache's derived shape.
type Geometry struct {
	Sets, Ways     int
	EntriesPerLine uint64
	LineBytes      uint64
}

// Geometry derives sets and entries per line; the spec must be valid.
func (c CacheSpec) Geometry(entryBytes uint64) Geometry {
	perLine := uint64(c.LineBytes) / entryBytes
	lines := uint64(c.EntriesMax) / perLine
	return Geometry{Sets: int(lines / uint64(c.Ways)), Ways: int(c.Ways), EntriesPerLine: perLine, LineBytes: uint64(c.LineBytes)}
}
