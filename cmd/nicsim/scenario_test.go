package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestScenarioRunPrintsOneJSONLinePerCallAndCompletion(t *testing.T) {
	f := filepath.Join(builtinDir, "scenario-ndk-walk.yaml")
	code, stdout, stderr := nicsim(t, "check", f)
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, `ok: scenario "ndk-walk", 2 hosts, 75 steps`)
	code, stdout, stderr = nicsim(t, "run", f)
	require.Equal(t, exitOK, code, stderr)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	require.Greater(t, len(lines), 75)
	require.Equal(t, `{"step":1,"op":"create_pd","object":"a.pd","status":"STATUS_SUCCESS","value":"0x00000000","time_ps":0}`, lines[0])
	require.Contains(t, stdout, `{"step":37,"op":"completion","object":"a.cq","status":"STATUS_SUCCESS","value":"0x00000000","type":"Write","ctx":10,"time_ps":`)
	require.Contains(t, stderr, "75 steps passed")
}

func TestScenarioWrongExpectationFailsNamingTheStep(t *testing.T) {
	f := filepath.Join(builtinDir, "scenario", "testdata", "scenario-wrong-expect.yaml")
	code, stdout, stderr := nicsim(t, "run", f)
	require.Equal(t, exitFailed, code)
	require.Contains(t, stderr, f+`:10: step 3 "init a normal MR" failed: init_fr_mr on a.mr: expected STATUS_SUCCESS, got STATUS_INVALID_DEVICE_REQUEST (0xC0000010)`)
	require.Contains(t, stdout, `{"step":3,"name":"init a normal MR","op":"init_fr_mr","object":"a.mr","status":"STATUS_INVALID_DEVICE_REQUEST"`)
	require.NotContains(t, stdout, `"step":4`, "the run stops at the failed step")
	// check only validates: the file is well formed.
	code, _, stderr = nicsim(t, "check", f)
	require.Equal(t, exitOK, code, stderr)
}

func TestScenarioDecodeErrorIsReportedWithFileLine(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "bad.yaml", "scenario: bad\nhosts: [{name: a}]\nsteps:\n  - create_qp: {qp: a.q, pd: a.pd}\n")
	code, _, stderr := nicsim(t, "check", f)
	require.Equal(t, exitFailed, code)
	require.Contains(t, stderr, "bad.yaml:4:16: steps.0.create_qp.cq: missing")
	code, _, stderr = nicsim(t, "run", f)
	require.Equal(t, exitFailed, code)
	require.Contains(t, stderr, "invalid scenario file; nothing was run")
}

func TestScenarioRunIsDeterministic(t *testing.T) {
	f := filepath.Join(builtinDir, "scenario", "testdata", "scenario-write-bytes.yaml")
	_, a, _ := nicsim(t, "run", f)
	code, b, stderr := nicsim(t, "run", f)
	require.Equal(t, exitOK, code, stderr)
	require.Equal(t, a, b)
	code, _, stderr = nicsim(t, "run", "--seed", "3", f)
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "is a scenario")
}
