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

func findProvenance() Provenance {
	p := Provenance{Module: "unknown", Source: "unknown"}
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
// is inside a checkout of this module (the case of go run).
func checkoutProvenance(p *Provenance, bi *debug.BuildInfo) {
	if bi == nil {
		return
	}
	top, err := gitOutput("rev-parse", "--show-toplevel")
	if err != nil {
		return
	}
	mod, err := os.ReadFile(filepath.Join(top, "go.mod"))
	if err != nil || !strings.HasPrefix(string(mod), "module "+bi.Main.Path+"\n") {
		return
	}
	rev, err := gitOutput("rev-parse", "HEAD")
	if err != nil {
		return
	}
	status, err := gitOutput("status", "--porcelain")
	if err != nil {
		return
	}
	when, _ := gitOutput("show", "-s", "--format=%cI", "HEAD")
	d := status != ""
	p.Commit, p.CommitTime, p.Dirty, p.Source = rev, when, &d, "checkout"
}

func gitOutput(args ...string) (string, error) {
	out, err := exec.Command("git", args...).Output()
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
