package nic

// hostMem hands out host-memory addresses for SQ rings, page-list buffers,
// firmware mailboxes and CQ rings. It is a bump allocator: the model needs
// distinct, page-aligned addresses for DMA, never their contents (the
// functional data lives in the provider's records; data buffers' bytes are
// in HostMemory), and memory is not reused.
type hostMem struct {
	next uint64
}

// alloc returns bytes of host memory aligned to 4096.
func (h *hostMem) alloc(bytes uint64) uint64 {
	a := h.next
	h.next += (bytes + PageSizeBytes - 1) &^ (PageSizeBytes - 1)
	return a
}
