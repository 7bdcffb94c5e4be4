package workloads

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/pcie"
)

const frInv = "generators:\n  - {name: fr, kind: fast_register_invalidate, streams: 2, outstanding: 2"

// Windows must fit the MR and the adapter's MaxWindowSize; the QP depth
// and the MTT space are checked at load time.
func TestBindChecksAgainstTheAdapter(t *testing.T) {
	for _, c := range []struct{ gen, want string }{
		{"{kind: bind_invalidate, mr_pages: 1, window_bytes: 8192}", "do not fit the MR"},
		{"{kind: bind_invalidate, mr_pages: 1024, window_bytes: 2097152}", "MaxWindowSize"},
		{"{kind: bind_invalidate, outstanding: 1000}", "max_initiator_queue_depth"},
		{"{kind: bind_invalidate, streams: 1024, mr_pages: 65536}", "mtt_entries_max"},
		{"{kind: bind_invalidate, rights: [local_write]}", "rights"},
	} {
		_, err := LoadBytes("w.yaml", []byte("run: {ops: 10}\ngenerators:\n  - "+c.gen+"\n"), Options{})
		require.ErrorContains(t, err, c.want, c.gen)
	}
}

func TestFastRegisterInvalidateChecksNameTheKey(t *testing.T) {
	for _, c := range []struct{ gen, want string }{
		{"pages: 300", "generators.fr.pages: pages up to 300 exceed adapter.nic.frmr_page_count = 256"},
		{"pages: 9, mr_pages: 8", "generators.fr.pages: pages up to 9 exceed mr_pages = 8"},
		{"name: x", "generators.x.outstanding: 600 operations of 2 WRs need a QP depth of 1200, more than adapter.nic.max_initiator_queue_depth = 1024"},
		{"remote_access: false", "generators.fr.rights: remote rights on MRs initialised without remote_access"},
		{"defer_chain: 0", "generators.fr.defer_chain: 0 is out of range 1..1024"},
		{"rights: [local_write]", `"local_write" is not one of "remote_read", "remote_write"`},
	} {
		src := frInv
		if c.gen == "name: x" {
			src = "generators:\n  - {kind: fast_register_invalidate, outstanding: 600"
		}
		msg := loadErr(t, "run: {duration_us: 5}\n"+src+", "+c.gen+"}\n")
		require.Contains(t, msg, c.want, c.gen)
	}
	msg := loadErr(t, "adapter: {nic: {inline_page_list_entries_max: 0}}\nrun: {duration_us: 5}\n"+frInv+", inline_page_list: true}\n")
	require.Contains(t, msg, "generators.fr.inline_page_list: true needs adapter.nic.inline_page_list_entries_max > 0")
	msg = loadErr(t, "adapter: {nic: {qps_max: 1e9, clock_period_ps: 500}}\nrun: {duration_us: 5}\n"+frInv+"}\n")
	require.Contains(t, msg, "adapter.nic.qps_max: 1e9 is out of range 1..2^20")
	msg = loadErr(t, "adapter: {nic: {clock_period_ps: 500}}\nrun: {duration_us: 5}\n"+frInv+"}\n")
	require.Contains(t, msg, "adapter.nic.clock_period_ps: 500 must equal adapter.mtt.clock_period_ps = 1000")
	require.Contains(t, loadErr(t, "adapter: {nic: {tpt: {}}}\nrun: {duration_us: 5}\n"+frInv+"}\n"), "adapter.nic.tpt: unknown key")
}

// Every number or string a file can set in a model spec has a rule in
// modelRules (bools need none), so fields the model packages add are
// bounded before a file can set them.
func TestEveryModelFieldHasARule(t *testing.T) {
	var walk func(ty reflect.Type, path string)
	walk = func(ty reflect.Type, path string) {
		for _, f := range fieldsOf(ty) {
			ft := ty.Field(f.index).Type
			switch ft.Kind() {
			case reflect.Struct:
				walk(ft, path+"."+f.name)
			case reflect.Bool:
			default:
				require.NotEmpty(t, f.rule, "%s.%s has no rule in modelRules", path, f.name)
			}
		}
	}
	walk(reflect.TypeFor[pcie.Spec](), "pcie")
	walk(reflect.TypeFor[mtt.Spec](), "mtt")
	walk(reflect.TypeFor[nic.Spec](), "nic")
}

// register_mr's pages, pieces and MRs are bounded at load time.
func TestRegisterMrChecks(t *testing.T) {
	for _, c := range []struct{ gen, want string }{
		{"{kind: register_mr, pages: 262145}", "out of range"},
		{"{kind: register_mr, pages: 512}", "max_registration_size_bytes"},
		{"{kind: register_mr, outstanding: 64, pages: 262144}", "mtt_entries_max"},
		{"{kind: register_mr, pieces: 65}", "out of range"},
	} {
		set := "adapter.nic.max_registration_size_bytes=1048576" // 256 pages
		if c.want == "mtt_entries_max" {
			set = "run.seed=1"
		}
		_, err := LoadBytes("w.yaml", []byte("run: {ops: 10}\ngenerators:\n  - "+c.gen+"\n"), Options{Sets: []string{set}})
		require.ErrorContains(t, err, c.want, c.gen)
	}
}
