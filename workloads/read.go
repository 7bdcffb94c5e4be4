package workloads

import (
	"fmt"
	"io"
	"os"
)

// ReadFile reads a workload or scenario file once, and at most
// FileBytesMax+1 bytes of it: a file that never ends (/dev/zero) is refused
// at the limit with bounded memory, and a pipe or /dev/stdin, which can be
// read only once, loads as written. A file over the limit is an Errors.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, FileBytesMax+1))
	if err != nil {
		return nil, err
	}
	if len(data) > FileBytesMax {
		return nil, Errors{{File: path, Msg: fmt.Sprintf("file is larger than %d bytes", FileBytesMax)}}
	}
	return data, nil
}
