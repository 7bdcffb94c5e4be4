package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A pipe can be read only once: the file is read once, so a workload or a
// scenario given as a named pipe (or /dev/stdin) loads as written.
func TestInputFromAPipeIsReadOnce(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"workload", smallRun, `ok: workload "w"`},
		{"scenario", "scenario: s\nhosts: [{name: a}]\nsteps:\n  - create_pd: {pd: a.pd}\n", `ok: scenario "s"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "w")
			require.NoError(t, syscall.Mkfifo(p, 0o600))
			go func() {
				f, err := os.OpenFile(p, os.O_WRONLY, 0)
				if err == nil {
					_, _ = f.WriteString(c.src)
					_ = f.Close()
				}
			}()
			code, stdout, stderr := nicsimWithin(t, 10*time.Second, "check", p)
			require.Equal(t, exitOK, code, stderr)
			require.Contains(t, stdout, c.want)
		})
	}
}

// A file that never ends is read up to the size limit and one byte, no
// further: nicsim check /dev/zero fails at once with bounded memory.
func TestInputThatNeverEndsIsRefusedAtTheSizeLimit(t *testing.T) {
	code, _, stderr := nicsimWithin(t, 10*time.Second, "check", "/dev/zero")
	require.Equal(t, exitFailed, code)
	require.Contains(t, stderr, "/dev/zero: file is larger than 1048576 bytes")
}

// nicsimWithin is nicsim, failing the test if the command has not returned
// within d (the command goes on in the background).
func nicsimWithin(t *testing.T, d time.Duration, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	type out struct {
		code int
		o, e string
	}
	ch := make(chan out, 1)
	go func() {
		var o out
		o.code, o.o, o.e = nicsim(t, args...)
		ch <- o
	}()
	select {
	case o := <-ch:
		return o.code, o.o, o.e
	case <-time.After(d):
		t.Fatalf("nicsim %v did not return within %v", args, d)
	}
	return 0, "", ""
}
