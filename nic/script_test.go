package nic

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/nicsim/nicsim/pcie"
	"github.com/nicsim/nicsim/sim"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of testdata/*.txt scripts")

// TestScripts runs the scripts in testdata (raft/Pebble style). A script is
// blocks of "command args" lines, each followed by "----" and the expected
// output up to a blank line. Commands:
//
//	new [wqe_by_mmio=false] [inline=N] [rotate] [pool=N]   adapter, PD, CQ
//	qp NAME [depth=N] [unconnected]
//	mr NAME [pages=N] [remote] [normal]                    CreateMr (+ Initialize)
//	fr QP MR CTX [pages=N] [fbo=N] [len=N] [va=N] [flags=A|B]
//	inv QP MR CTX [flags=A|B]
//	flush QP
//	run                                                    run the engine until idle
//	poll                                                   print and take every visible CQE
//	token MR                                               index:key of the MR's token
//	state MR                                               the key-table entry
//
// Run with -rewrite to regenerate the expected output; review the diff.
func TestScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { runScript(t, f) })
	}
}

type script struct {
	t   *testing.T
	h   *harness
	qps map[string]*QP
	mrs map[string]*MR
}

func runScript(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	s := &script{t: t}
	var out strings.Builder
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			out.WriteString(line + "\n")
			continue
		}
		out.WriteString(line + "\n----\n")
		i++
		if i >= len(lines) || lines[i] != "----" {
			t.Fatalf("%s:%d: %q must be followed by ----", path, i, line)
		}
		var want []string
		for i+1 < len(lines) && lines[i+1] != "" {
			i++
			want = append(want, lines[i])
		}
		got := s.do(line)
		if !*rewrite {
			require.Equal(t, strings.Join(want, "\n"), strings.TrimRight(got, "\n"), "%s: %s", path, line)
		}
		out.WriteString(got)
		if got != "" && !strings.HasSuffix(got, "\n") {
			out.WriteString("\n")
		}
	}
	if *rewrite {
		require.NoError(t, os.WriteFile(path, []byte(strings.TrimRight(out.String(), "\n")+"\n"), 0o644))
	}
}

func (s *script) do(line string) string {
	f := strings.Fields(line)
	args := map[string]string{}
	var pos []string
	for _, a := range f[1:] {
		if k, v, ok := strings.Cut(a, "="); ok {
			args[k] = v
		} else {
			pos = append(pos, a)
			args[a] = "true"
		}
	}
	num := func(k string, def uint64) uint64 {
		v, ok := args[k]
		if !ok {
			return def
		}
		n, err := strconv.ParseUint(v, 0, 64)
		require.NoError(s.t, err, line)
		return n
	}
	switch f[0] {
	case "new":
		sp := DefaultSpec()
		sp.WQEByMMIO = args["wqe_by_mmio"] != "false"
		sp.InlinePageListEntriesMax = uint32(num("inline", uint64(sp.InlinePageListEntriesMax)))
		sp.RotateFastRegisterKey = args["rotate"] == "true"
		sp.MRPoolEntries = uint32(num("pool", uint64(sp.MRPoolEntries)))
		env := sim.NewEnv(1)
		link, err := pcie.New("PCIe", pcie.DefaultSpec(), env, sim.ClockDomain{Period: sim.Tick(sp.ClockPeriodPS)})
		require.NoError(s.t, err)
		a, err := New("NIC", sp, env, link, link.DMA())
		require.NoError(s.t, err)
		_, pd := a.CreatePD()
		_, cq := a.CreateCQ(256)
		s.h = &harness{t: s.t, env: env, link: link, a: a, pd: pd, cq: cq}
		s.qps, s.mrs = map[string]*QP{}, map[string]*MR{}
		return ""
	case "qp":
		st, qp := s.h.a.CreateQP(s.h.pd, s.h.cq, uint64(len(s.qps)), uint32(num("depth", 16)), 0)
		if qp != nil && args["unconnected"] == "" {
			qp.Connect()
		}
		s.qps[pos[0]] = qp
		return st.String()
	case "mr":
		var st Status
		var mr *MR
		st, mr = s.h.a.CreateMr(s.h.pd, args["normal"] == "", func(_ uint64, cs Status, m *MR) { mr = m }, 0)
		out := "CreateMr " + st.String()
		if st == StatusPending {
			s.h.run()
			out += fmt.Sprintf(" -> callback at %v", s.h.env.Engine.Now())
		}
		if mr != nil && args["normal"] == "" && args["uninit"] == "" {
			cb := 0
			st = s.h.a.InitializeFastRegisterMr(mr, uint32(num("pages", 16)), args["remote"] == "true", func(uint64, Status) { cb++ }, 0)
			s.h.run()
			out += fmt.Sprintf("\nInitializeFastRegisterMr %v, %d callback(s)", st, cb)
		}
		s.mrs[pos[0]] = mr
		return out
	case "fr", "inv":
		qp, mr := s.qps[pos[0]], s.mrs[pos[1]]
		ctx, err := strconv.ParseUint(pos[2], 0, 64)
		require.NoError(s.t, err, line)
		var flags OpFlags
		if v := args["flags"]; v != "" {
			for _, n := range strings.Split(v, "|") {
				flags |= scriptFlag(s.t, n)
			}
		}
		if f[0] == "inv" {
			return s.h.a.Invalidate(qp, ctx, mr, flags).String()
		}
		n := num("pages", 1)
		fbo := num("fbo", 0)
		return s.h.a.FastRegister(qp, ctx, mr, pages(int(n)), uint32(fbo), num("len", n*PageSizeBytes-fbo), num("va", fbo), flags).String()
	case "flush":
		return s.h.a.Flush(s.qps[pos[0]]).String()
	case "run":
		s.h.run()
		return ""
	case "poll":
		var b strings.Builder
		for _, r := range s.h.poll() {
			fmt.Fprintf(&b, "qp=%d ctx=%d %v %v\n", r.QPContext, r.RequestContext, r.Type, r.Status)
		}
		return b.String()
	case "token":
		tok := s.h.a.GetRemoteTokenFromMr(s.mrs[pos[0]])
		return fmt.Sprintf("%d:%d", tok>>8, tok&0xFF)
	case "state":
		e, _ := s.h.a.TPT().Keys().Entry(s.mrs[pos[0]].Index())
		return fmt.Sprintf("%v key=%d va=%#x len=%d rights=%v", e.State, e.Key, e.BaseVA, e.Length, e.Rights)
	}
	s.t.Fatalf("unknown command %q", line)
	return ""
}

func scriptFlag(t *testing.T, n string) OpFlags {
	m := map[string]OpFlags{"SILENT_SUCCESS": OpSilentSuccess, "READ_FENCE": OpReadFence, "DEFER": OpDefer,
		"ALLOW_REMOTE_READ": OpAllowRemoteRead, "ALLOW_LOCAL_WRITE": OpAllowLocalWrite, "ALLOW_REMOTE_WRITE": OpAllowRemoteWrite,
		"RDMA_READ_SINK": OpRDMAReadSink, "INLINE": OpInline}
	f, ok := m[n]
	if !ok {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		t.Fatalf("unknown flag %q (known: %v)", n, keys)
	}
	return f
}
