//go:build unix

package results

import (
	"runtime"
	"syscall"
)

// PeakResidentBytes is the largest resident set this process has had so
// far, 0 when the system does not say: on Linux its memory's high-water
// mark (highWaterMark), elsewhere getrusage's ru_maxrss (KiB on the BSDs,
// bytes on macOS).
func PeakResidentBytes() uint64 {
	if b, ok := highWaterMark(); ok {
		return b
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil || ru.Maxrss <= 0 {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return uint64(ru.Maxrss)
	}
	return uint64(ru.Maxrss) * 1024
}
