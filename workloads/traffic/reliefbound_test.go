package traffic

import (
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/nicsim/nicsim/results"
)

// relievedBy maps each meter that can bind (on either host, any instance)
// to the reliefs of the scan (reliefsOf: a setting's path, "NIC clock x2",
// "PCIe link x2") that give it more: its own settings, and the NIC clock
// or the link where they time it. docs/whatif.md lists the same.
var relievedBy = []struct{ meter, reliefs *regexp.Regexp }{
	{re(`Host\.Core\[\d+\]`), re(`nic\.(post_.*|poll_cqe_ps|host_cores)`)},
	{re(`Host\.(Core\[\d+\]|Driver)\.MMIO`), re(`pcie\.mmio_issue_gap_ns|nic\.host_cores|PCIe link x2`)},
	{re(`Host\.Driver`), re(`nic\.(un)?pin_ps_per_page`)},
	{re(`NIC\.DMA\.ReadChannels`), re(`pcie\.(dma_read_.*|read_.*)|NIC clock x2`)},
	{re(`NIC\.DMA\.WriteChannels`), re(`pcie\.(dma_write_.*|write_.*)|NIC clock x2`)},
	{re(`NIC\.(Engine\[\d+\]\.)?(Parse|Validate|PageList|MTTWrite|MPTUpdate|CacheWrite|Completion|Doorbell|Scheduler|WQEFetch)`),
		re(`nic\.(parse|validate|page_list|mtt_write|mpt_update|cache_write|completion|doorbell|scheduler|wqe_fetch)\..*|NIC clock x2`)},
	{re(`NIC\.Engine\[\d+\]\.PageList\.(Fetches|ReadBlocked)`), re(`nic\.page_list_fetches_max|pcie\.(host_read_latency_.*|link_latency_ns)|PCIe link x2`)},
	{re(`NIC\.Engine\[\d+\]\.Validate\.ReadBlocked`), re(`mtt\.mpt_cache\..*|pcie\.(host_read_latency_.*|link_latency_ns)|PCIe link x2`)},
	{re(`NIC\.QP\[\d+\]\.Fetch`), re(`nic\.wqe_fetch_batch_max|pcie\.(host_read_latency_.*|link_latency_ns)|PCIe link x2`)},
	{re(`NIC\.WQEFetch\.Reads`), re(`nic\.wqe_fetch_outstanding_max|` + hostRead)},
	{re(`NIC\.Firmware`), re(`nic\.(register_firmware_ns|deregister_firmware_ns|firmware_command_ns|firmware_queue_depth)`)},
	{re(`NIC\.PCIe\.(Up|Down)`), re(`PCIe link x2`)},
	{re(`NIC\.PCIe\.(Up|Down)\.Credits\..*`), re(`pcie\..*_credits|PCIe link x2`)},
	{re(`NIC\.PCIe\.Tags`), re(`pcie\.tags_max|` + hostRead)},
	{re(`NIC\.(Requester|Responder)\.TxBuffer`), re(`nic\.tx_buffer_bytes`)},
	{re(`NIC\.Requester\.RxBuffer`), re(`nic\.rx_buffer_bytes`)},
	{re(`NIC\.Responder`), re(`nic\.responder\.(items_per_cycle|interval_cycles|latency_cycles)|nic\.responder_bytes_per_cycle|NIC clock x2`)},
	{re(`NIC\.Responder\.Buffer`), re(`nic\.responder\.queue_depth`)},
	{re(`NIC\.TPT\.(MPT|MTT)Cache\.Ports`), re(`mtt\.(mpt|mtt)_cache\.ports_per_cycle|NIC clock x2`)},
	{re(`NIC\.TPT\.(MPT|MTT)Cache\.MSHRs`), re(`mtt\.(mpt|mtt)_cache\.mshrs_max|` + hostRead)},
	{re(`NIC\.TPT\.Writes`), re(`mtt\.write_ops_max`)},
	{re(`Wire\.(AtoB|BtoA)`), re(`wire\.gbit_per_s`)},
}

// hostRead are the reliefs of a pool whose units are held for a read of
// host memory (WQE fetch slots, read tags, MSHRs): a pool of n units held
// t each passes n/t requests a second (Little's law), so halving t gives
// what doubling n does: the host's read latency, the link's latency, the
// link.
const hostRead = `pcie\.(host_read_latency_.*|link_latency_ns)|PCIe link x2`

// re matches a whole name, on either host ("B." before it).
func re(s string) *regexp.Regexp { return regexp.MustCompile(`^(B\.)?(` + s + `)$`) }

// relieves reports whether the relief named relief gives the meter named
// meter more (relievedBy).
func relieves(relief, meter string) bool {
	for _, m := range relievedBy {
		if m.meter.MatchString(meter) && m.reliefs.MatchString(relief) {
			return true
		}
	}
	return false
}

// bound_by names the resource whose relief moves the rate most: on every
// preset and load whose generator a resource binds, no relief raises the
// rate by more than 1 % beyond the best relief of the resource bound_by
// names and of those it lists as saturated beside it (also), and that best
// relief raises the rate by at least 2 % (or, with resources in also,
// their best reliefs together do): a resource that binds gives
// more when relieved, until the next one binds (within CoBoundMargin of
// saturation, the next one is in also). The scan of the reliefs
// (TestReliefNeverLowersThroughput) checks the direction; this checks the
// name. Its short form runs the short scan's loads; -relief.scan every
// preset and load, on the same runs.
func TestReliefOfTheResourceBoundByNamesMovesTheRateMost(t *testing.T) {
	short := func(preset, load string) bool { return *reliefScan || slices.Contains(reliefShort[preset], load) }
	for _, sc := range reliefScans(reliefLoads, short) {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			rs := reliefRuns(t, sc.src)
			if msg := boundByMisnamed(rs); msg != "" {
				t.Error(msg)
			}
		})
	}
}

// boundByMisnamed says how rs's bound_by misnames what binds it, or "".
func boundByMisnamed(rs *reliefSet) string {
	b := rs.base.BoundBy
	switch b.Resource {
	case results.BoundWindow, results.BoundOfferedLoad, results.BoundFailures, results.BoundRNRWait:
		return ""
	}
	named := append([]string{b.Resource}, b.Also...)
	bestNamed, best, bestName := 1.0, 1.0, ""
	for _, r := range rs.got {
		gain := r.g.ThroughputMops / rs.base.ThroughputMops
		if gain > best {
			best, bestName = gain, r.name
		}
		if gain > bestNamed && slices.ContainsFunc(named, func(m string) bool { return relieves(r.name, m) }) {
			bestNamed = gain
		}
	}
	switch {
	case best > bestNamed+0.01:
		return fmt.Sprintf("bound by %s: its best relief x%.3f, %s x%.3f", b, bestNamed, bestName, best)
	case bestNamed < 1.02 && len(b.Also) == 0:
		return fmt.Sprintf("bound by %s: its best relief only x%.3f", b, bestNamed)
	case bestNamed < 1.02:
		if joint, err := jointRelief(rs, named); err != nil || joint < 1.02 {
			return fmt.Sprintf("bound by %s: its best relief only x%.3f, with those beside it x%.3f (%v)", b, bestNamed, joint, err)
		}
	}
	return ""
}

// jointRelief is the gain of relieving every resource of named at once,
// each by its best relief in rs: resources saturated together (also)
// give little one at a time.
func jointRelief(rs *reliefSet, named []string) (float64, error) {
	var sets []string
	for _, m := range named {
		best, gain := []string(nil), 0.0
		for _, r := range rs.got {
			if g := r.g.ThroughputMops / rs.base.ThroughputMops; g > gain && relieves(r.name, m) {
				best, gain = r.sets, g
			}
		}
		sets = append(sets, best...)
	}
	g, err := runReliefRate(rs.src, sets)
	return g.ThroughputMops / rs.base.ThroughputMops, err
}
