package results

import (
	"os"
	"strconv"
	"strings"
)

// highWaterMark is VmHWM of /proc/self/status: the peak resident set of
// the memory of the program this process runs. getrusage's ru_maxrss is
// not that on Linux: a process keeps there the peak of the memory it
// replaced when it started its program, which for one started by a large
// parent (nicsim under go run, where the go command forks it) is the
// parent's.
func highWaterMark() (uint64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(b)) {
		rest, ok := strings.CutPrefix(line, "VmHWM:")
		if !ok {
			continue
		}
		f := strings.Fields(rest) // "1234 kB"
		if len(f) != 2 || f[1] != "kB" {
			return 0, false
		}
		kb, err := strconv.ParseUint(f[0], 10, 64)
		return kb * 1024, err == nil && kb > 0
	}
	return 0, false
}
