package results

import (
	"bytes"
	"cmp"
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
// folder that is not a nicsim output folder, or one holding any entry
// nicsim does not write there (outnames.go) is refused, --force or not; a
// folder holding another run (a config.json other than the one this run
// writes) is refused unless force; a destination whose parent cannot be
// written fails here, not after the simulation.
type OutDir struct {
	Dest  string // the folder as named
	Tmp   string // where the files are written until Commit
	moved bool   // Dest was moved to Tmp (ResumeSweep): Release moves it back
	kept  bool   // Commit failed: Tmp holds the results, Abort leaves it
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
	foreign, err := foreignEntry(dest)
	switch {
	case err != nil:
		return err
	case !isRunFolder(dest):
		return fmt.Errorf("output folder %s holds files that are not a nicsim run (%s); choose another --out", dest, cmp.Or(foreign, entries[0].Name()))
	case foreign != "":
		return foreignError(dest, foreign)
	case force:
		return nil
	}
	return checkRerun(dest, cfg)
}

// foreignError is the error of output folder dest holding foreign, an
// entry nicsim does not write there: putting the new folder in place would
// delete it, --force or not.
func foreignError(dest, foreign string) error {
	return fmt.Errorf("output folder %s holds %s, which nicsim does not write there, and a new run replaces the folder whole: move %s out of it, or choose another --out",
		dest, foreign, filepath.Join(dest, foreign))
}

// refuseForeign is the error of a folder dir holding an entry nicsim does
// not write there (foreignError), or nil.
func refuseForeign(dir string) error {
	foreign, err := foreignEntry(dir)
	if err == nil && foreign != "" {
		err = foreignError(dir, foreign)
	}
	return err
}

// checkRerun refuses run folder dest unless it holds a run of the same
// configuration cfg by a build of this one's same-time order.
func checkRerun(dest string, cfg []byte) error {
	old, err := ReadOutputFile(filepath.Join(dest, ConfigJSON))
	if err != nil || cfg == nil || !bytes.Equal(old, cfg) {
		return fmt.Errorf("output folder %s %w (another configuration); choose another --out, or replace it with --force", dest, ErrOutDirTaken)
	}
	// A rerun of the same configuration replaces its folder, unless a build
	// with the other same-time order made it (docs/accuracy.md, section 8).
	o, err := shardOrder(dest)
	if err != nil {
		return fmt.Errorf("output folder %s: %w; choose another --out, or replace it with --force", dest, err)
	}
	if o != buildOrder() {
		return fmt.Errorf("output folder %s %w (one with same-time events in %s order); choose another --out, or replace it with --force", dest, ErrOutDirTaken, SameTimeOrderName(o))
	}
	return nil
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
// back if the new one cannot take its place). An old folder that has
// gained an entry nicsim does not write since StageOutDir is not replaced.
// A folder that cannot be put in place is kept where it was written (Abort
// leaves it), and the error says where.
func (o *OutDir) Commit() error {
	old := ""
	if _, err := os.Stat(o.Dest); err == nil {
		err := refuseForeign(o.Dest)
		if err == nil {
			old = o.Tmp + ".old"
			err = os.Rename(o.Dest, old)
		}
		if err != nil {
			o.kept = true
			return fmt.Errorf("%w (the results are in %s)", err, o.Tmp)
		}
	}
	if err := os.Rename(o.Tmp, o.Dest); err != nil {
		if old != "" {
			_ = os.Rename(old, o.Dest)
		}
		o.kept = true
		return fmt.Errorf("output folder %s: %w (the results are in %s)", o.Dest, err, o.Tmp)
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// Abort removes the temporary folder of a run that writes nothing (not
// one Commit could not put in place).
func (o *OutDir) Abort() {
	if !o.kept {
		_ = os.RemoveAll(o.Tmp)
	}
}

// SweepWorkDir is the folder a sweep writes into while it runs: hidden
// beside its destination, with a fixed name (not a fresh one as a run's),
// so that a sweep killed before it could put its folder in place keeps its
// finished points there for nicsim sweep --resume.
func SweepWorkDir(dest string) string {
	dest = filepath.Clean(dest)
	return filepath.Join(filepath.Dir(dest), "."+filepath.Base(dest)+".sweep")
}

// StageSweep prepares dest for a new sweep as StageOutDir does, writing
// into SweepWorkDir(dest); the work of an earlier sweep killed there is
// discarded (without --resume every point runs again).
func StageSweep(dest string, cfg []byte, force bool) (*OutDir, error) {
	dest = filepath.Clean(dest)
	if err := checkDest(dest, cfg, force); err != nil {
		return nil, err
	}
	w := SweepWorkDir(dest)
	if err := checkWorkDir(w); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(w); err != nil {
		return nil, fmt.Errorf("output folder %s: %w", dest, err)
	}
	if err := os.MkdirAll(w, 0o755); err != nil {
		return nil, fmt.Errorf("output folder %s: cannot write in %s: %w", dest, filepath.Dir(dest), err)
	}
	return &OutDir{Dest: dest, Tmp: w}, nil
}

// ResumeSource is the folder that holds the state of the sweep to resume
// into dest: the work folder of a sweep killed before it finished, else
// dest itself (an interrupted sweep's folder).
func ResumeSource(dest string) string {
	if st, err := os.Stat(SweepWorkDir(dest)); err == nil && st.IsDir() {
		return SweepWorkDir(dest)
	}
	return filepath.Clean(dest)
}

// checkWorkDir refuses to discard a sweep work folder w holding an entry
// nicsim does not write there.
func checkWorkDir(w string) error {
	if st, err := os.Stat(w); err != nil || !st.IsDir() {
		return nil
	}
	return refuseForeign(w)
}

// ResumeSweep prepares dest for resuming its sweep: the work goes on in
// SweepWorkDir(dest); an interrupted sweep's folder is moved there first,
// and comes back, complete or still partial, at Commit (or Release). The
// folder is checked before anything runs or moves: an entry nicsim does
// not write there, or a point file it cannot read, is refused.
func ResumeSweep(dest string) (*OutDir, error) {
	dest = filepath.Clean(dest)
	src, w := ResumeSource(dest), SweepWorkDir(dest)
	err := refuseForeign(src)
	if err == nil {
		err = checkPoints(src)
	}
	if err != nil {
		return nil, fmt.Errorf("resuming %s: %w", dest, err)
	}
	if src == w {
		return &OutDir{Dest: dest, Tmp: w}, nil
	}
	if err := os.Rename(dest, w); err != nil {
		return nil, fmt.Errorf("resuming %s: %w", dest, err)
	}
	return &OutDir{Dest: dest, Tmp: w, moved: true}, nil
}

// Release gives up a sweep that failed before Commit: a folder ResumeSweep
// moved into the work folder is moved back, with the points finished
// since. It returns where the sweep's folder is now.
func (o *OutDir) Release() string {
	if !o.moved {
		return o.Tmp
	}
	if _, err := os.Lstat(o.Dest); errors.Is(err, os.ErrNotExist) && os.Rename(o.Tmp, o.Dest) == nil {
		o.moved = false
		return o.Dest
	}
	return o.Tmp
}
