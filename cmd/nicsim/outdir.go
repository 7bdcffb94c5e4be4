package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/nicsim/nicsim/results"
)

// stageOuts prepares the output folder of every file of a command before
// anything runs (results.StageOutDir): an unwritable --out fails here, a
// folder holding another run is refused unless force, and two files that
// would write one folder are refused (neither silently replaces the
// other). cfgs are the config.json bytes each run will write. The
// returned folders are written into and committed, or aborted, by the
// caller.
func stageOuts(cmd string, files, dirs []string, cfgs [][]byte, force bool, stderr io.Writer) ([]*results.OutDir, int, bool) {
	first := map[string]int{}
	for i, d := range dirs {
		if j, dup := first[d]; dup {
			fmt.Fprintf(stderr, "nicsim %s: %s and %s would both write %s (same name and seed); run them separately, each with its own --out\n",
				cmd, files[j], files[i], d)
			return nil, exitUsage, false
		}
		first[d] = i
	}
	outs := make([]*results.OutDir, len(dirs))
	for i, d := range dirs {
		o, err := results.StageOutDir(d, cfgs[i], force)
		if err != nil {
			abortOuts(outs)
			fmt.Fprintf(stderr, "nicsim %s: %v; nothing was run\n", cmd, err)
			return nil, exitFailed, false
		}
		outs[i] = o
	}
	return outs, exitOK, true
}

// abortOuts removes the temporary folders of outputs not committed.
func abortOuts(outs []*results.OutDir) {
	for _, o := range outs {
		if o != nil {
			o.Abort()
		}
	}
}

// within reports whether path is dir or lies inside it, both made
// absolute, with their symbolic links resolved as far as they exist.
func within(path, dir string) bool {
	rel, err := filepath.Rel(realPath(dir), realPath(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// realPath is path made absolute, with the symbolic links of its longest
// existing ancestor resolved.
func realPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	rest := ""
	for p := abs; ; p = filepath.Dir(p) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		if filepath.Dir(p) == p {
			return abs
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}
