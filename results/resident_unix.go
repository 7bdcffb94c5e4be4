//go:build unix

package results

import (
	"runtime"
	"syscall"
)

// PeakResidentBytes is the largest resident set this process has had so
// far (getrusage's ru_maxrss: KiB on Linux and the BSDs, bytes on macOS),
// 0 when the system does not say.
func PeakResidentBytes() uint64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil || ru.Maxrss <= 0 {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return uint64(ru.Maxrss)
	}
	return uint64(ru.Maxrss) * 1024
}
