package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/nicsim/nicsim/workloads"
)

// OutputFileBytesMax is the largest file of an output folder nicsim reads
// (results.json, config.json, meta.json, a sweep's point file): 4 GiB, the
// results.json of the largest sweep (workloads.SweepPointsMax points) at
// the 1 MiB per point the memory budget assumes (docs/workloads.md,
// "Memory budget"), so nicsim reads whatever it writes, and a file that is
// not one of its results is refused before it fills the memory.
const OutputFileBytesMax = workloads.SweepPointsMax << 20

// ReadOutputFile reads a file of an output folder: a regular file (not a
// folder, device or pipe: /dev/zero is refused without a byte read) of at
// most OutputFileBytesMax bytes.
func ReadOutputFile(path string) ([]byte, error) {
	if err := checkRegular(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := checkSize(path, st.Size()); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(int(st.Size()) + bytes.MinRead)
	if _, err := b.ReadFrom(io.LimitReader(f, OutputFileBytesMax+1)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b.Bytes(), checkSize(path, int64(b.Len())) // it may have grown since
}

// checkRegular refuses a path that is not a regular file (checked before it
// is opened: opening a pipe waits for a writer).
func checkRegular(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (%s); nicsim reads its results from files it wrote", path, fileKind(st.Mode()))
	}
	return nil
}

func checkSize(path string, n int64) error {
	if n > OutputFileBytesMax {
		return fmt.Errorf("%s is larger than %d bytes (%d GiB), the most nicsim reads of a file of an output folder", path, int64(OutputFileBytesMax), OutputFileBytesMax>>30)
	}
	return nil
}

// fileKind names the kind of a file that is not a regular one.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&os.ModeNamedPipe != 0:
		return "a pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "not a plain file"
}

// jsonAt is where a decoding error of data lies, as " at line L, column
// C (offset B)", the line and column of the last byte read ("" when the
// error does not say).
func jsonAt(data []byte, err error) string {
	var off int64
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	default:
		return ""
	}
	off = min(max(off, 0), int64(len(data)))
	before := data[:max(off-1, 0)]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return fmt.Sprintf(" at line %d, column %d (offset %d)", line, col, off)
}
