package mtt

import "unsafe"

// TableBytes is the most memory the translation unit New builds from s
// holds, for memory budgets: the key table (an Entry and a free-list index
// per entry), the MTT image (8 B per entry, and at most 4 B per entry of
// free ranges when fragmented), both reached only once every entry has
// been used (their chunks are allocated on first use), both caches' tags (and LRU stamps) and
// MSHRs, and the request and write slots. It is computed from the model's
// own types, so it follows them (TestTableBytesCoversWhatNewAllocates).
func (s Spec) TableBytes() uint64 {
	keys := uint64(s.KeyTableEntriesMax) * (uint64(unsafe.Sizeof(Entry{})) + 4)
	image := uint64(s.MTTEntriesMax) * (MTTEntryBytes + 4)
	caches := s.MPTCache.tableBytes(uint64(s.MPTEntryBytes), s.RequestsMax) + s.MTTCache.tableBytes(MTTEntryBytes, s.RequestsMax)
	slots := uint64(s.RequestsMax) * (uint64(unsafe.Sizeof(slot{})) + 4)
	writes := uint64(s.WriteOpsMax) * (uint64(unsafe.Sizeof(writeOp{})) + 8)
	return keys + image + caches + slots + writes
}

// tableBytes is one cache's tags, LRU stamps, MSHRs and queues.
func (c CacheSpec) tableBytes(entryBytes uint64, requests uint32) uint64 {
	lines := uint64(c.EntriesMax)
	if entryBytes > 0 && uint64(c.LineBytes) >= entryBytes {
		lines = uint64(c.EntriesMax) / (uint64(c.LineBytes) / entryBytes)
	}
	per := uint64(8)
	if c.Policy == PolicyLRU {
		per += 8
	}
	return lines*per + uint64(c.MSHRsMax)*(uint64(unsafe.Sizeof(mshr{}))+8) + uint64(requests)*4
}
