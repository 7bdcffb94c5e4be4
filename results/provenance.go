package results

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/nicsim/nicsim/sim"
	"github.com/nicsim/nicsim/workloads"
)

// Provenance says which code made a run: the module version and, when it
// can be known, the commit and whether the work tree had changes.
type Provenance struct {
	// Module is the main module's version from the binary's build info:
	// a tag or pseudo-version when installed with go install, "(devel)"
	// when built from a checkout.
	Module string `json:"module_version"`
	// Commit is the VCS revision, Dirty whether tracked or new files
	// differed from it, CommitTime its time. Empty when unknown.
	Commit     string `json:"commit,omitempty"`
	CommitTime string `json:"commit_time,omitempty"`
	Dirty      *bool  `json:"dirty,omitempty"`
	// Source says where Commit and Dirty come from: "build info" (the vcs
	// settings go build stamps), "checkout" (git in the nicsim checkout
	// the command runs in, as with go run, which stamps none) or
	// "unknown".
	Source string `json:"commit_source"`
	// SameTimeOrder is "reversed" for a check build that runs events of
	// one time and priority last scheduled first (-tags reverseties,
	// sim.SameTimeReversed); empty for an ordinary build.
	SameTimeOrder string `json:"same_time_order,omitempty"`
}

var (
	provOnce sync.Once
	prov     Provenance
)

// BuildProvenance is the provenance of this binary, worked out once.
func BuildProvenance() Provenance {
	provOnce.Do(func() { prov = findProvenance() })
	return prov
}

// PrefetchProvenance starts working out BuildProvenance in the background.
// A binary without VCS build info (go run, or go build with
// -buildvcs=false) run in a checkout asks git, two child processes that
// take a few milliseconds: started before a run, they overlap it instead of
// adding to its wall time, and the run's BuildProvenance waits for them
// only if they are still going when meta.json is written. The answer is
// the same either way.
func PrefetchProvenance() { go BuildProvenance() }

// buildOrder is this binary's same_time_order: "reversed" for a check build
// (sim.SameTimeReversed), empty for an ordinary one.
func buildOrder() string {
	if sim.SameTimeReversed {
		return "reversed"
	}
	return ""
}

func findProvenance() Provenance {
	p := Provenance{Module: "unknown", Source: "unknown"}
	p.SameTimeOrder = buildOrder()
	bi, ok := debug.ReadBuildInfo()
	if ok {
		p.Module = bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				p.Commit, p.Source = s.Value, "build info"
			case "vcs.time":
				p.CommitTime = s.Value
			case "vcs.modified":
				d := s.Value == "true"
				p.Dirty = &d
			}
		}
	}
	if p.Commit == "" {
		checkoutProvenance(&p, bi)
	}
	return p
}

// checkoutProvenance fills the commit from git when the current directory
// is inside a checkout of this module (the case of go run). The checkout is
// found without a process; its commit and its status are asked of git at
// once, in two processes.
func checkoutProvenance(p *Provenance, bi *debug.BuildInfo) {
	if bi == nil {
		return
	}
	top, ok := checkoutTop()
	if !ok {
		return
	}
	mod, err := os.ReadFile(filepath.Join(top, "go.mod"))
	if err != nil || !strings.HasPrefix(string(mod), "module "+bi.Main.Path+"\n") {
		return
	}
	var head string
	var headErr error
	var wg sync.WaitGroup
	wg.Go(func() { head, headErr = gitOutput(top, "show", "-s", "--format=%H%n%cI", "HEAD") }) // the commit and its time
	status, err := gitOutput(top, "status", "--porcelain")
	wg.Wait()
	if err != nil || headErr != nil {
		return
	}
	rev, when, _ := strings.Cut(head, "\n")
	d := status != ""
	p.Commit, p.CommitTime, p.Dirty, p.Source = rev, when, &d, "checkout"
}

// checkoutTop is the nearest directory at or above the working directory
// that holds a .git entry (a repository, or a worktree's link file): the
// top of the checkout git would find there, found with stat calls rather
// than a git process.
func checkoutTop() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir, true
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", false
		}
		dir = up
	}
}

// gitOutput runs git in the checkout at top and returns what it printed.
func gitOutput(top string, args ...string) (string, error) {
	out, err := exec.Command("git", append([]string{"-C", top}, args...)...).Output()
	return strings.TrimSpace(string(out)), err
}

// ConfigHashLen is the number of hex digits of a configuration hash in a
// folder name.
const ConfigHashLen = 8

// ConfigHash is the SHA-256 (hex) of the resolved configuration of every
// point of f (adapter, regions, generators, run, seed, after presets,
// --set and the sweep): two runs with the same hash model the same thing.
func ConfigHash(f *workloads.File) string {
	b, err := json.Marshal(f.Points)
	if err != nil {
		return "unhashable"
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
