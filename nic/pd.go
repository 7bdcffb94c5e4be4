package nic

// PD is an NDK_PD: a protection domain. Its handle is what the key table
// stores for every MR created in it.
type PD struct {
	a        *Adapter
	handle   uint32
	children int // MRs and QPs not yet closed (docs/ndk.md rule 64)
	closer
	privTok uint32 // NdkGetPrivilegedMemoryRegionToken, once asked for
	hasPriv bool
}

// Handle is the PD's handle as the key table stores it.
func (p *PD) Handle() uint32 { return p.handle }

// CreatePD is NdkCreatePd. It completes inline.
func (a *Adapter) CreatePD() (Status, *PD) {
	a.pds++
	return StatusSuccess, &PD{a: a, handle: a.pds}
}
