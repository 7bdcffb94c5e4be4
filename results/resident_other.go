//go:build !unix

package results

// PeakResidentBytes is 0: this system has no getrusage, so a run's
// meta.json leaves its peak resident memory out.
func PeakResidentBytes() uint64 { return 0 }
