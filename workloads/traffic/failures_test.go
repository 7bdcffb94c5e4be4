package traffic

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/results"
	"github.com/nicsim/nicsim/sim"
)

// 16 QPs of 16 SENDs in flight, with only 16 receives posted per QP,
// outrun the receiver, and with no RNR retry allowed every QP gets
// STATUS_REMOTE_RESOURCES at its first RNR NAK, then STATUS_CANCELLED for
// the rest of the run.
const failingSends = "adapter: {nic: {rnr_retry: 0}}\nrun: {seed: 1, warmup_us: 20, duration_us: 300}\n" +
	"generators: [{name: s, kind: send, streams: 16, outstanding: 16, receive_depth: 16, size_bytes: 64}]\n"

// Throughput counts only successful completions: with every operation
// 64 B, goodput (successful bytes) is throughput x 512 bit exactly; a
// failure has its own count and a warning naming the generator, the
// window's failures and the run's first failure status; and when most
// completions failed, bound_by says failures, not the resource the failed
// operations kept busy (it said 77.3 Mops/s, NIC.PCIe.Down 96 %, for a
// load that does 41 at most; 5.06 of it succeeded).
func TestThroughputCountsOnlySuccessfulCompletions(t *testing.T) {
	r := runSrc(t, failingSends)
	p := r.Points[0]
	g := p.Generators[0]
	require.Greater(t, g.Failed, g.LatencyNS.Count, "the reproduction fails most operations")
	require.InEpsilon(t, g.ThroughputMops*512/1e3, g.GoodputGbps, 1e-5, "throughput %.3f Mops/s, goodput %.3f Gb/s", g.ThroughputMops, g.GoodputGbps)
	require.Less(t, g.ThroughputMops, 41.0)
	require.Equal(t, results.BoundFailures, g.BoundBy.Resource, "%+v", g.BoundBy)
	require.NotEmpty(t, g.BoundBy.Busiest)
	var warned []string
	for _, w := range p.Warnings {
		if strings.HasPrefix(w, "generator s: ") && strings.Contains(w, "failed") {
			warned = append(warned, w)
		}
	}
	require.Len(t, warned, 1, "warnings: %q", p.Warnings)
	require.Regexp(t, fmt.Sprintf(`^generator s: %d of the \d+ operations completed in the measured window failed`, g.Failed), warned[0])
	require.Contains(t, warned[0], "first failure STATUS_REMOTE_RESOURCES")
}

// A few failures among many successes leave bound_by to the resources:
// failures bind only when they are most of the window's completions.
func TestBoundByIsFailuresOnlyWhenMostCompletionsFailed(t *testing.T) {
	ms := sim.NewMeters()
	require.Equal(t, results.BoundWindow, boundBy(ms, ScopeAll.uses, boundEvidence{ok: 10, failed: 10}).Resource)
	require.Equal(t, results.BoundFailures, boundBy(ms, ScopeAll.uses, boundEvidence{ok: 10, failed: 11}).Resource)
	require.Equal(t, results.BoundFailures, boundBy(ms, ScopeAll.uses, boundEvidence{open: true, failed: 1}).Resource)
}

// With RNR retry (the default, rnr_retry 7) the same receiver-starved
// sends fail nothing: each QP that finds no receive posted waits the RNR
// timer and sends again, the run warns of the RNR NAKs, the window's rate
// shows the wait, and bound_by says rnr_wait: its QPs were held most of
// the window. By default a send generator keeps 4 x outstanding receives
// posted (perftest's ratio, docs/sources.md 12), so the same load never
// waits and runs at what binds the receiver.
func TestSendsThatOutrunTheReceiverWaitForRNRRetries(t *testing.T) {
	starved := runSrc(t, "run: {seed: 1, warmup_us: 20, duration_us: 300}\n"+
		"generators: [{name: s, kind: send, streams: 16, outstanding: 16, receive_depth: 16, size_bytes: 64}]\n").Points[0]
	deep := runSrc(t, "run: {seed: 1, warmup_us: 20, duration_us: 300}\n"+
		"generators: [{name: s, kind: send, streams: 16, outstanding: 16, size_bytes: 64}]\n").Points[0]
	gs, gd := starved.Generators[0], deep.Generators[0]
	t.Logf("16 receives per QP: %.2f Mops/s, %d failed, %v; 64: %.2f Mops/s, bound by %+v", gs.ThroughputMops, gs.Failed, starved.Warnings, gd.ThroughputMops, gd.BoundBy)
	require.Zero(t, gs.Failed)
	require.Zero(t, gd.Failed)
	require.Less(t, gs.ThroughputMops, 0.5*gd.ThroughputMops, "the QPs wait 640 µs after an RNR NAK")
	require.Len(t, starved.Warnings, 1)
	require.Regexp(t, `^B\.NIC answered \d+ Sends with an RNR NAK \(no receive posted\)`, starved.Warnings[0])
	require.Equal(t, results.BoundRNRWait, gs.BoundBy.Resource, "%+v", gs.BoundBy)
	require.Empty(t, deep.Warnings)
	require.Equal(t, "B.NIC.PCIe.Up", gd.BoundBy.Resource)
}

// A generator whose QPs were held by RNR NAKs for at least half the window
// is bound by its receiver (rnr_wait); less than half leaves bound_by to
// the resources; failures, when most completions failed, come first.
func TestBoundByIsRNRWaitWhenItsQPsWereHeldMostOfTheWindow(t *testing.T) {
	ms := sim.NewMeters()
	require.Equal(t, results.BoundRNRWait, boundBy(ms, ScopeAll.uses, boundEvidence{ok: 10, rnrHeld: 0.5}).Resource)
	require.Equal(t, results.BoundWindow, boundBy(ms, ScopeAll.uses, boundEvidence{ok: 10, rnrHeld: 0.49}).Resource)
	require.Equal(t, results.BoundFailures, boundBy(ms, ScopeAll.uses, boundEvidence{ok: 10, failed: 11, rnrHeld: 0.9}).Resource)
}
