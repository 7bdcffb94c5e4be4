package scenario

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/workloads"
)

// Bounds of a scenario.
const (
	StepsMax   = 10000
	HostsMax   = 2
	ObjectsMax = 4096
	BytesMax   = 1 << 24 // one fill/check range or data length
	PagesMax   = 4096    // pages of one fast_register
	// RunUSMax bounds one run: {us: N} and all of a scenario's together:
	// 10^12 µs is 10^18 ps, below 2^60 ps (runTimeMaxPS), so no time the
	// model computes from it comes near a Tick's 2^64.
	RunUSMax = 1_000_000_000_000
)

// Scenario is a decoded scenario file.
type Scenario struct {
	File  string
	Name  string
	Hosts []Host
	Wire  nic.WireSpec
	Steps []*Step
	// MemoryMaxBytes is the memory budget (budget.go).
	MemoryMaxBytes uint64
}

// Host is one adapter.
type Host struct {
	Name string
	Spec nic.Spec
}

// Step is one call (or run, poll, fill, check).
type Step struct {
	Index    int // 1-based
	Name     string
	Line     int
	Col      int
	Op       string
	Args     args
	Expect   *nic.Status // nil: not checked
	Callback *nic.Status
	Polls    []poll // a poll's expected completions; nil: not checked
}

// poll is one completion a poll step expects.
type poll struct {
	line   int
	status []nic.Status // any of these
	typ    *nic.OpType
	ctx    *uint64
	bytes  *uint64
	token  *arg
}

// Ops lists the step operations.
func Ops() []string { return sortedKeys(ops) }

// IsScenario reports whether data is a YAML mapping with a top-level
// scenario key.
func IsScenario(data []byte) bool {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil || len(doc.Content) != 1 {
		return false
	}
	r := doc.Content[0]
	if r.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(r.Content); i += 2 {
		if r.Content[i].Value == "scenario" {
			return true
		}
	}
	return false
}

// IsFile is IsScenario on a file; false when it cannot be read. It reads
// the file: a caller that goes on to load it reads it once
// (workloads.ReadFile), then asks IsScenario.
func IsFile(path string) bool {
	b, err := workloads.ReadFile(path)
	return err == nil && IsScenario(b)
}

// Load reads (once, at most workloads.FileBytesMax bytes) and decodes a
// scenario file.
func Load(path string) (*Scenario, error) {
	b, err := workloads.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return LoadBytes(path, b)
}

type decoder struct {
	file  string
	errs  workloads.Errors
	hosts map[string]bool
	saved map[string]bool // token names saved by the steps decoded so far
	runUS uint64          // the run: {us: N} steps so far, added up
}

func (d *decoder) fail(n *yaml.Node, path, format string, args ...any) {
	line, col := workloads.NodePos(n)
	d.errs.Add(workloads.At(d.file, line, col, path, format, args...))
}

// LoadBytes decodes data; name is used in messages.
func LoadBytes(name string, data []byte) (*Scenario, error) {
	root, errs := workloads.ParseDocument(name, data)
	if errs != nil {
		return nil, errs
	}
	d := &decoder{file: name, hosts: map[string]bool{}, saved: map[string]bool{}}
	s := &Scenario{File: name, Wire: nic.DefaultWireSpec(), MemoryMaxBytes: workloads.DefaultMemoryMaxBytes}
	var stepsNode *yaml.Node
	d.noDuplicates(root, "")
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "hosts" {
			d.decodeHosts(s, root.Content[i+1]) // first: steps name the hosts
		}
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "scenario":
			if v.Kind != yaml.ScalarNode || v.Value == "" {
				d.fail(v, "scenario", "must be a name")
			}
			s.Name = v.Value
		case "hosts":
		case "wire":
			d.model(v, "wire", &s.Wire)
		case "steps":
			stepsNode = v
		case "memory_max_bytes":
			d.memoryMax(s, v)
		default:
			d.fail(k, k.Value, "unknown key (allowed: scenario, hosts, wire, steps, memory_max_bytes)")
		}
	}
	if len(s.Hosts) == 0 {
		d.fail(root, "hosts", "at least one host is needed")
	}
	s.Steps = d.decodeSteps(root, stepsNode)
	if len(d.errs) == 0 {
		d.checkBudget(s, root, s.MemoryMaxBytes)
	}
	if len(d.errs) > 0 {
		return nil, d.errs
	}
	return s, nil
}

// memoryMax decodes memory_max_bytes, the budget (2^24..2^40, as a
// workload file's run.memory_max_bytes).
func (d *decoder) memoryMax(s *Scenario, v *yaml.Node) {
	a := &arg{}
	if v.Kind != yaml.ScalarNode || !d.scalar(v, "memory_max_bytes", 'u', a) {
		if v.Kind != yaml.ScalarNode {
			d.fail(v, "memory_max_bytes", "must be a number of bytes")
		}
		return
	}
	if a.u < 1<<24 || a.u > 1<<40 {
		d.fail(v, "memory_max_bytes", "%d is out of range 2^24..2^40", a.u)
		return
	}
	s.MemoryMaxBytes = a.u
}

func (d *decoder) decodeSteps(root, n *yaml.Node) []*Step {
	if n == nil || n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		d.fail(root, "steps", "a non-empty list of steps is needed")
		return nil
	}
	if len(n.Content) > StepsMax {
		d.fail(n, "steps", "%d steps is more than %d", len(n.Content), StepsMax)
		return nil
	}
	var steps []*Step
	for i, sn := range n.Content {
		if st := d.decodeStep(i+1, sn); st != nil {
			steps = append(steps, st)
		}
	}
	return steps
}

// model decodes a mapping of model overrides (a host's nic.Spec, the
// wire's nic.WireSpec) by JSON field names, bounded exactly as a workload
// file's adapter section is (workloads.DecodeModel): unknown keys, values
// outside the loader's rules and the spec's own Validate are errors.
func (d *decoder) model(n *yaml.Node, path string, spec any) {
	for _, e := range workloads.DecodeModel(d.file, n, path, spec) {
		d.errs.Add(e)
	}
}

// noDuplicates reports every key of mapping n (at path) given more than
// once: the last one would otherwise silently win.
func (d *decoder) noDuplicates(n *yaml.Node, path string) {
	first := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if line, dup := first[k.Value]; dup {
			d.fail(k, joinKey(path, k.Value), "duplicate key (first at line %d)", line)
			continue
		}
		first[k.Value] = k.Line
	}
}

func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (d *decoder) decodeHosts(s *Scenario, v *yaml.Node) {
	if v.Kind != yaml.SequenceNode || len(v.Content) == 0 || len(v.Content) > HostsMax {
		d.fail(v, "hosts", "must be a list of 1..%d hosts", HostsMax)
		return
	}
	for i, h := range v.Content {
		path := fmt.Sprintf("hosts.%d", i)
		if h.Kind != yaml.MappingNode {
			d.fail(h, path, "must be a mapping {name, nic}")
			continue
		}
		host := Host{Spec: nic.DefaultSpec()}
		d.noDuplicates(h, path)
		for j := 0; j+1 < len(h.Content); j += 2 {
			k, val := h.Content[j], h.Content[j+1]
			switch k.Value {
			case "name":
				if val.Kind != yaml.ScalarNode || !ident(val.Value) {
					d.fail(val, path+".name", "must be a name of letters, digits and _")
				} else if d.hosts[val.Value] {
					d.fail(val, path+".name", "host %q twice", val.Value)
				}
				host.Name = val.Value
				d.hosts[val.Value] = true
			case "nic":
				d.model(val, path+".nic", &host.Spec)
			default:
				d.fail(k, path+"."+k.Value, "unknown key (allowed: name, nic)")
			}
		}
		if host.Name == "" {
			d.fail(h, path+".name", "missing")
		}
		s.Hosts = append(s.Hosts, host)
	}
}

func ident(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func (d *decoder) status(n *yaml.Node, path string) *nic.Status {
	st, ok := nic.ParseStatus(n.Value)
	if n.Kind != yaml.ScalarNode || !ok {
		d.fail(n, path, "%q is not a status name such as STATUS_SUCCESS", n.Value)
		return nil
	}
	return &st
}

func (d *decoder) decodeStep(idx int, n *yaml.Node) *Step {
	path := fmt.Sprintf("steps.%d", idx-1)
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, "a step must be a mapping with one operation key")
		return nil
	}
	st := &Step{Index: idx, Line: n.Line, Col: n.Column}
	var opNode, expNode, cbNode *yaml.Node
	d.noDuplicates(n, path)
	for j := 0; j+1 < len(n.Content); j += 2 {
		k, v := n.Content[j], n.Content[j+1]
		switch k.Value {
		case "name":
			st.Name = v.Value
		case "expect":
			expNode = v
		case "callback":
			st.Callback, cbNode = d.status(v, path+".callback"), v
		default:
			if _, ok := ops[k.Value]; !ok {
				d.fail(k, path+"."+k.Value, "unknown operation (one of %s)", strings.Join(Ops(), ", "))
				continue
			}
			if st.Op != "" {
				d.fail(k, path+"."+k.Value, "a step has exactly one operation; %s is already given", st.Op)
				continue
			}
			st.Op, opNode = k.Value, v
		}
	}
	if st.Op == "" {
		d.fail(n, path, "no operation key (one of %s)", strings.Join(Ops(), ", "))
		return nil
	}
	op := ops[st.Op]
	st.Args = d.args(opNode, path+"."+st.Op, op.fields, op.required)
	d.checkArgs(st, opNode, path+"."+st.Op)
	d.expect(st, expNode, path+".expect")
	if cbNode != nil && !mayPend[st.Op] {
		d.fail(cbNode, path+".callback", "%s never returns STATUS_PENDING, so no callback follows (docs/ndk.md rules 1, 3); only %s take callback:",
			st.Op, strings.Join(sortedKeys(mayPend), ", "))
	}
	if st.Args.flag("any_order") && len(st.Polls) > AnyOrderMax {
		d.fail(expNode, path+".expect", "%d completions is more than %d for an any_order poll", len(st.Polls), AnyOrderMax)
	}
	return st
}

// checkArgs checks the rules that span several keys of one operation.
func (d *decoder) checkArgs(st *Step, opNode *yaml.Node, path string) {
	a := st.Args
	d.oneHost(st, opNode, path)
	if st.Op == "fill" || st.Op == "check" {
		d.checkMemory(st.Op, a, opNode, path)
	}
	switch st.Op {
	case "run":
		if (a["until"] == nil) == (a["us"] == nil) {
			d.fail(opNode, path, "exactly one of until: idle or us: N")
		}
		if us := a["us"]; us != nil {
			d.runDuration(us, path+".us")
		}
		if a["cq"] != nil && a["us"] == nil {
			d.fail(opNode, path+".cq", "a run until a completion needs its bound, us: N")
		}
	case "fast_register":
		if a["pages"] != nil && a["pages"].u > PagesMax {
			d.fail(opNode, path+".pages", "%d is out of range 0..%d", a["pages"].u, PagesMax)
		}
		d.oneOf(a, opNode, path, "pages", "page_list")
		if a["page_base"] != nil && a["page_list"] != nil {
			d.fail(opNode, path+".page_base", "page_base goes with pages, not with page_list")
		}
	case "register_mr":
		d.oneOf(a, opNode, path, "va", "mdl")
		if a["pieces"] != nil && a["mdl"] != nil {
			d.fail(opNode, path+".pieces", "pieces goes with va, not with mdl (the mdl gives the pieces)")
		}
		if p := a["pieces"]; p != nil && (p.u < 1 || p.u > SplitPiecesMax) {
			d.fail(&yaml.Node{Line: p.line, Column: p.col}, path+".pieces", "%d is out of range 1..%d", p.u, SplitPiecesMax)
		}
	}
}

// oneHost requires the objects a call names (tokens aside) to live on one
// host: an NDK call is made on one adapter. connect joins two.
func (d *decoder) oneHost(st *Step, opNode *yaml.Node, path string) {
	if st.Op == "connect" {
		return
	}
	kinds := map[string]byte{}
	for _, f := range strings.Fields(ops[st.Op].fields) {
		kinds[f[:len(f)-2]] = f[len(f)-1]
	}
	hosts := map[string]bool{}
	for k, v := range st.Args {
		ref := ""
		switch {
		case kinds[k] == 'r':
			ref = v.s
		case kinds[k] == 'l' && v.sub["mr"] != nil:
			ref = v.sub["mr"].s
		}
		if h, _, ok := strings.Cut(ref, "."); ok {
			hosts[h] = true
		}
	}
	if len(hosts) > 1 {
		d.fail(opNode, path, "the objects of one call must be on one host (got %s)", strings.Join(sortedKeys(hosts), ", "))
	}
}

// oneOf requires exactly one of keys x and y.
func (d *decoder) oneOf(a args, n *yaml.Node, path, x, y string) {
	if (a[x] == nil) == (a[y] == nil) {
		d.fail(n, path, "exactly one of %s, %s", x, y)
	}
}

// checkMemory checks a fill or check step's content and range.
func (d *decoder) checkMemory(op string, a args, opNode *yaml.Node, path string) {
	k := 0
	for _, f := range []string{"byte", "pattern_seed", "equals"} {
		if a[f] != nil {
			k++
		}
	}
	if k != 1 {
		d.fail(opNode, path, "exactly one of byte, pattern_seed%s", map[bool]string{true: ", equals", false: ""}[op == "check"])
	}
	if x := a["byte"]; x != nil && x.u > 255 {
		d.fail(opNode, path+".byte", "%d is out of range 0..255", x.u)
	}
	if x := a["length"]; x != nil && (x.u == 0 || x.u > BytesMax) {
		d.fail(opNode, path+".length", "%d is out of range 1..%d", x.u, BytesMax)
	}
}

// runDuration checks a run: {us: N}: N, and the scenario's runs added up,
// at most RunUSMax, so simulated time never comes near what a Tick holds.
func (d *decoder) runDuration(us *arg, path string) {
	at := &yaml.Node{Line: us.line, Column: us.col}
	if us.u > RunUSMax {
		d.fail(at, path, "%d is out of range 0..%d", us.u, uint64(RunUSMax))
		return
	}
	if d.runUS += us.u; d.runUS > RunUSMax {
		d.fail(at, path, "the runs add up to %d µs, more than %d", d.runUS, uint64(RunUSMax))
		d.runUS = 0 // report once
	}
}

// expect decodes a step's expect: the status of a call, or the completions
// of a poll ([] when a poll has none).
func (d *decoder) expect(st *Step, n *yaml.Node, path string) {
	switch {
	case n == nil: // not checked (a poll's completions are printed only)
	case st.Op == "poll":
		st.Polls = d.polls(n, path)
	case noStatus[st.Op]:
		d.fail(n, path, "%s returns no status", st.Op)
	default:
		st.Expect = d.status(n, path)
	}
}

// mayPend are the operations whose call may return STATUS_PENDING and then
// owes one callback (docs/ndk.md rule 1): only their steps take callback:.
// Whether such a call pends can depend on the adapter's settings and
// state (mr_pool_entries, register_mr_inline, a close with work left), so
// a callback: on a call that returns inline fails its step when it runs.
var mayPend = map[string]bool{"create_mr": true, "create_mw": true, "init_fr_mr": true, "register_mr": true, "deregister_mr": true, "close": true}

// noStatus are the steps that return no status, so take no expect.
var noStatus = map[string]bool{"run": true, "fill": true, "check": true, "save_token": true, "compare_tokens": true}

func (d *decoder) polls(n *yaml.Node, path string) []poll {
	if n.Kind != yaml.SequenceNode {
		d.fail(n, path, "poll expects a list of completions [{status, type, ctx}] ([] for none)")
		return nil
	}
	out := []poll{}
	for i, c := range n.Content {
		p := fmt.Sprintf("%s.%d", path, i)
		a := d.args(c, p, "status:Z type:T ctx:u bytes:u token:t", "status")
		if a == nil {
			continue
		}
		q := poll{line: c.Line, token: a["token"]}
		if s := a["status"]; s != nil {
			q.status = s.stats
		}
		if t := a["type"]; t != nil {
			o, _ := nic.ParseOpType(t.s)
			q.typ = &o
		}
		if v := a["ctx"]; v != nil {
			q.ctx = &v.u
		}
		if v := a["bytes"]; v != nil {
			q.bytes = &v.u
		}
		out = append(out, q)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	k := make([]string, 0, len(m))
	for s := range m {
		k = append(k, s)
	}
	sort.Strings(k)
	return k
}
