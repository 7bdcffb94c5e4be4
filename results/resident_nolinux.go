//go:build unix && !linux

package results

// highWaterMark: only Linux has /proc/self/status; getrusage serves.
func highWaterMark() (uint64, bool) { return 0, false }
