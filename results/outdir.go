package results

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// OutDir writes an output folder so that nothing is lost or silently
// replaced: the files go into a fresh temporary folder beside the
// destination, which Commit renames into place, so a reader never sees a
// half-written folder, and an older run's files (plots of another sweep, a
// results.json marked complete) never stay beside the new ones.
//
// StageOutDir checks the destination before anything runs: a file, a
// folder that is not a nicsim output folder, or a folder holding another
// run (a config.json other than the one this run writes) is refused
// unless force; a destination whose parent cannot be written fails here,
// not after the simulation.
type OutDir struct {
	Dest string // the folder as named
	Tmp  string // where the files are written until Commit
}

// ErrOutDirTaken is the error of a destination that holds another run.
var ErrOutDirTaken = errors.New("holds another run")

// StageOutDir prepares dest for a run whose config.json will be cfg (nil
// when not known: then any run there is another run).
func StageOutDir(dest string, cfg []byte, force bool) (*OutDir, error) {
	dest = filepath.Clean(dest)
	if err := checkDest(dest, cfg, force); err != nil {
		return nil, err
	}
	parent := filepath.Dir(dest)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("output folder %s: %w", dest, err)
	}
	tmp := filepath.Join(parent, fmt.Sprintf(".%s.tmp-%d-%08x", filepath.Base(dest), os.Getpid(), rand.Uint32()))
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return nil, fmt.Errorf("output folder %s: cannot write in %s: %w", dest, parent, err)
	}
	return &OutDir{Dest: dest, Tmp: tmp}, nil
}

// checkDest refuses a destination that is a file, a folder with files of
// its own, or one holding another run (unless force).
func checkDest(dest string, cfg []byte, force bool) error {
	st, err := os.Stat(dest)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("output folder %s: %w", dest, err)
	case !st.IsDir():
		return fmt.Errorf("output folder %s is a file", dest)
	}
	entries, err := os.ReadDir(dest)
	if err != nil {
		return fmt.Errorf("output folder %s: %w", dest, err)
	}
	if len(entries) == 0 {
		return nil
	}
	if !isRunFolder(dest) {
		return fmt.Errorf("output folder %s holds files that are not a nicsim run; choose another --out", dest)
	}
	old, err := os.ReadFile(filepath.Join(dest, ConfigJSON))
	if force || (err == nil && cfg != nil && bytes.Equal(old, cfg)) {
		return nil // --force, or a rerun of the same configuration
	}
	return fmt.Errorf("output folder %s %w (another configuration); choose another --out, or replace it with --force", dest, ErrOutDirTaken)
}

// isRunFolder reports whether dir holds a nicsim run (its meta.json or
// results.json).
func isRunFolder(dir string) bool {
	for _, f := range []string{MetaJSON, ResultsJSON} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return true
		}
	}
	return false
}

// Path is the path of file name in the folder being written.
func (o *OutDir) Path(name string) string { return filepath.Join(o.Tmp, name) }

// Final is path (of a file written under Tmp) as it will be named once the
// folder is in place.
func (o *OutDir) Final(path string) string {
	if rest, ok := strings.CutPrefix(path, o.Tmp); ok {
		return o.Dest + rest
	}
	return path
}

// Commit puts the folder in place, replacing what StageOutDir allowed to
// replace (the old folder is moved aside first and removed last, and put
// back if the new one cannot take its place).
func (o *OutDir) Commit() error {
	old := ""
	if _, err := os.Stat(o.Dest); err == nil {
		old = strings.Replace(o.Tmp, ".tmp-", ".old-", 1)
		if err := os.Rename(o.Dest, old); err != nil {
			return fmt.Errorf("output folder %s: %w", o.Dest, err)
		}
	}
	if err := os.Rename(o.Tmp, o.Dest); err != nil {
		if old != "" {
			_ = os.Rename(old, o.Dest)
		}
		return fmt.Errorf("output folder %s: %w (the results are in %s)", o.Dest, err, o.Tmp)
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// Abort removes the temporary folder of a run that writes nothing.
func (o *OutDir) Abort() { _ = os.RemoveAll(o.Tmp) }
