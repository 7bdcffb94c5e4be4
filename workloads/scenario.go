package workloads

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/nicsim/nicsim/nic"
)

// A scenario is an exact sequence of NDK calls on named objects of one or
// two hosts (docs/workloads.md, "Scenarios"): the executable form of the
// rules in docs/ndk.md.

// Scenario bounds.
const (
	ScenarioStepsMax   = 10000
	ScenarioHostsMax   = 2
	ScenarioObjectsMax = 4096
	ScenarioBytesMax   = 1 << 24 // one fill/check range or data length
	ScenarioPagesMax   = 4096    // pages of one fast_register
)

// Scenario is a decoded scenario file.
type Scenario struct {
	File  string
	Name  string
	Hosts []ScenarioHost
	Wire  nic.WireSpec
	Steps []*ScenarioStep
}

// ScenarioHost is one adapter.
type ScenarioHost struct {
	Name string
	Spec nic.Spec
}

// ScenarioStep is one call (or run, poll, fill, check).
type ScenarioStep struct {
	Index    int // 1-based
	Name     string
	Line     int
	Op       string
	Args     map[string]*scArg
	Expect   *nic.Status // nil: not checked
	Callback *nic.Status
	Polls    []scPoll
}

type scPoll struct {
	line   int
	status nic.Status
	typ    *nic.OpType
	ctx    *uint64
	bytes  *uint64
	token  *scArg
}

// scArg is one decoded argument.
type scArg struct {
	line  int
	u     uint64
	s     string
	b     bool
	isNum bool
	sub   map[string]*scArg
}

// field kinds: u number, r object reference (host.name), t token
// (reference.remote_token/.local_token or a number), b bool, f flag list,
// l local {mr|token, va, length}, R remote {token, va}, h host name,
// U "idle", S status.
var scOps = map[string]struct{ fields, required string }{
	"create_pd":           {"pd:r", "pd"},
	"create_cq":           {"cq:r depth:u", "cq depth"},
	"create_qp":           {"qp:r pd:r cq:r depth:u receive_depth:u ctx:u", "qp pd cq"},
	"connect":             {"a:r b:r", "a b"},
	"create_mr":           {"mr:r pd:r fast_register:b ctx:u", "mr pd"},
	"init_fr_mr":          {"mr:r pages:u remote_access:b ctx:u", "mr pages"},
	"register_mr":         {"mr:r va:u length:u flags:f pieces:u ctx:u", "mr va length"},
	"deregister_mr":       {"mr:r ctx:u", "mr"},
	"create_mw":           {"mw:r pd:r ctx:u", "mw pd"},
	"fast_register":       {"qp:r mr:r pages:u page_base:u fbo:u length:u base_va:u flags:f ctx:u", "qp mr pages length"},
	"bind":                {"qp:r mw:r mr:r va:u length:u flags:f ctx:u", "qp mw mr va length"},
	"invalidate":          {"qp:r target:r flags:f ctx:u", "qp target"},
	"write":               {"qp:r local:l remote:R flags:f ctx:u", "qp local remote"},
	"read":                {"qp:r local:l remote:R flags:f ctx:u", "qp local remote"},
	"send":                {"qp:r local:l flags:f ctx:u", "qp local"},
	"send_and_invalidate": {"qp:r local:l token:t token_xor:u token_key_plus:u flags:f ctx:u", "qp local token"},
	"receive":             {"qp:r local:l ctx:u", "qp local"},
	"flush":               {"qp:r", "qp"},
	"run":                 {"until:U us:u", ""},
	"poll":                {"cq:r max:u", "cq"},
	"fill":                {"host:h va:u length:u byte:u pattern_seed:u", "host va length"},
	"check":               {"host:h va:u length:u byte:u pattern_seed:u equals:E", "host va length"},
	"close":               {"object:r ctx:u", "object"},
}

var scSub = map[byte]map[string]byte{
	'l': {"mr": 'r', "token": 't', "va": 'u', "length": 'u'},
	'R': {"token": 't', "va": 'u', "token_xor": 'u', "token_key_plus": 'u'},
	'E': {"host": 'h', "va": 'u'},
}

// ScenarioOps lists the step operations.
func ScenarioOps() []string {
	ops := make([]string, 0, len(scOps))
	for k := range scOps {
		ops = append(ops, k)
	}
	sort.Strings(ops)
	return ops
}

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

// IsScenarioFile is IsScenario on a file; false when it cannot be read.
func IsScenarioFile(path string) bool {
	b, err := os.ReadFile(path)
	return err == nil && len(b) <= FileBytesMax && IsScenario(b)
}

// LoadScenario reads and decodes a scenario file.
func LoadScenario(path string) (*Scenario, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return LoadScenarioBytes(path, b)
}

type scDecoder struct {
	file  string
	errs  Errors
	hosts map[string]bool
}

func (d *scDecoder) fail(n *yaml.Node, path, format string, args ...any) {
	if len(d.errs) >= ErrorsMax {
		return
	}
	e := &Error{File: d.file, Path: path, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	d.errs = append(d.errs, e)
}

// LoadScenarioBytes decodes data; name is used in messages.
func LoadScenarioBytes(name string, data []byte) (*Scenario, error) {
	root, errs := parse(name, data)
	if errs != nil {
		return nil, errs
	}
	d := &scDecoder{file: name, hosts: map[string]bool{}}
	s := &Scenario{File: name, Wire: nic.DefaultWireSpec()}
	var stepsNode *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "hosts" {
			d.decodeHosts(s, root.Content[i+1])
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
			d.decodeJSON(v, "wire", &s.Wire)
			if err := s.Wire.Validate(); err != nil {
				d.fail(v, "wire", "%v", err)
			}
		case "steps":
			stepsNode = v
		default:
			d.fail(k, k.Value, "unknown key (allowed: scenario, hosts, wire, steps)")
		}
	}
	if len(s.Hosts) == 0 {
		d.fail(root, "hosts", "at least one host is needed")
	}
	if stepsNode == nil || stepsNode.Kind != yaml.SequenceNode || len(stepsNode.Content) == 0 {
		d.fail(root, "steps", "a non-empty list of steps is needed")
	} else if len(stepsNode.Content) > ScenarioStepsMax {
		d.fail(stepsNode, "steps", "%d steps is more than %d", len(stepsNode.Content), ScenarioStepsMax)
	} else {
		for i, n := range stepsNode.Content {
			if st := d.decodeStep(i+1, n); st != nil {
				s.Steps = append(s.Steps, st)
			}
		}
	}
	if len(d.errs) > 0 {
		return nil, d.errs
	}
	return s, nil
}

// decodeJSON applies a YAML mapping to v by JSON field names, rejecting
// unknown keys.
func (d *scDecoder) decodeJSON(n *yaml.Node, path string, v any) {
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, "must be a mapping")
		return
	}
	var m any
	if err := n.Decode(&m); err != nil {
		d.fail(n, path, "%v", err)
		return
	}
	b, err := json.Marshal(m)
	if err != nil {
		d.fail(n, path, "%v", err)
		return
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		d.fail(n, path, "%s", strings.TrimPrefix(err.Error(), "json: "))
	}
}

func (d *scDecoder) decodeHosts(s *Scenario, v *yaml.Node) {
	if v.Kind != yaml.SequenceNode || len(v.Content) == 0 || len(v.Content) > ScenarioHostsMax {
		d.fail(v, "hosts", "must be a list of 1..%d hosts", ScenarioHostsMax)
		return
	}
	for i, h := range v.Content {
		path := fmt.Sprintf("hosts.%d", i)
		if h.Kind != yaml.MappingNode {
			d.fail(h, path, "must be a mapping {name, nic}")
			continue
		}
		host := ScenarioHost{Spec: nic.DefaultSpec()}
		for j := 0; j+1 < len(h.Content); j += 2 {
			k, val := h.Content[j], h.Content[j+1]
			switch k.Value {
			case "name":
				if val.Kind != yaml.ScalarNode || !scIdent(val.Value) {
					d.fail(val, path+".name", "must be a name of letters, digits and _")
				} else if d.hosts[val.Value] {
					d.fail(val, path+".name", "host %q twice", val.Value)
				}
				host.Name = val.Value
				d.hosts[val.Value] = true
			case "nic":
				d.decodeJSON(val, path+".nic", &host.Spec)
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

func scIdent(s string) bool {
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

func (d *scDecoder) status(n *yaml.Node, path string) *nic.Status {
	st, ok := nic.ParseStatus(n.Value)
	if n.Kind != yaml.ScalarNode || !ok {
		d.fail(n, path, "%q is not a status name such as STATUS_SUCCESS", n.Value)
		return nil
	}
	return &st
}

func (d *scDecoder) decodeStep(idx int, n *yaml.Node) *ScenarioStep {
	path := fmt.Sprintf("steps.%d", idx-1)
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, "a step must be a mapping with one operation key")
		return nil
	}
	st := &ScenarioStep{Index: idx, Line: n.Line}
	var opNode, expNode *yaml.Node
	for j := 0; j+1 < len(n.Content); j += 2 {
		k, v := n.Content[j], n.Content[j+1]
		switch k.Value {
		case "name":
			st.Name = v.Value
		case "expect":
			expNode = v
		case "callback":
			st.Callback = d.status(v, path+".callback")
		default:
			if _, ok := scOps[k.Value]; !ok {
				d.fail(k, path+"."+k.Value, "unknown operation (one of %s)", strings.Join(ScenarioOps(), ", "))
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
		d.fail(n, path, "no operation key (one of %s)", strings.Join(ScenarioOps(), ", "))
		return nil
	}
	path += "." + st.Op
	st.Args = d.args(opNode, path, scOps[st.Op].fields, scOps[st.Op].required)
	if st.Op == "fill" || st.Op == "check" {
		k := 0
		for _, f := range []string{"byte", "pattern_seed", "equals"} {
			if st.Args[f] != nil {
				k++
			}
		}
		if k != 1 {
			d.fail(opNode, path, "exactly one of byte, pattern_seed%s", map[bool]string{true: ", equals", false: ""}[st.Op == "check"])
		}
		if a := st.Args["byte"]; a != nil && a.u > 255 {
			d.fail(opNode, path+".byte", "%d is out of range 0..255", a.u)
		}
		if a := st.Args["length"]; a != nil && (a.u == 0 || a.u > ScenarioBytesMax) {
			d.fail(opNode, path+".length", "%d is out of range 1..%d", a.u, ScenarioBytesMax)
		}
	}
	if st.Op == "run" && (st.Args["until"] == nil) == (st.Args["us"] == nil) {
		d.fail(opNode, path, "exactly one of until: idle or us: N")
	}
	if st.Op == "fast_register" && st.Args["pages"] != nil && st.Args["pages"].u > ScenarioPagesMax {
		d.fail(opNode, path+".pages", "%d is out of range 0..%d", st.Args["pages"].u, ScenarioPagesMax)
	}
	if expNode != nil {
		if st.Op == "poll" {
			st.Polls = d.polls(expNode, fmt.Sprintf("steps.%d.expect", idx-1))
		} else if st.Op == "run" || st.Op == "fill" || st.Op == "check" {
			d.fail(expNode, fmt.Sprintf("steps.%d.expect", idx-1), "%s returns no status", st.Op)
		} else {
			st.Expect = d.status(expNode, fmt.Sprintf("steps.%d.expect", idx-1))
		}
	} else if st.Op == "poll" {
		st.Polls = []scPoll{}
	}
	return st
}

func (d *scDecoder) polls(n *yaml.Node, path string) []scPoll {
	if n.Kind != yaml.SequenceNode {
		d.fail(n, path, "poll expects a list of completions [{status, type, ctx}] ([] for none)")
		return nil
	}
	out := []scPoll{}
	for i, c := range n.Content {
		p := fmt.Sprintf("%s.%d", path, i)
		a := d.args(c, p, "status:S type:T ctx:u bytes:u token:t", "status")
		if a == nil {
			continue
		}
		q := scPoll{line: c.Line, token: a["token"]}
		if s := a["status"]; s != nil {
			st, _ := nic.ParseStatus(s.s)
			q.status = st
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

// args decodes a mapping against "key:kind ..." and the required keys.
func (d *scDecoder) args(n *yaml.Node, path, fields, required string) map[string]*scArg {
	kinds := map[string]byte{}
	for _, f := range strings.Fields(fields) {
		kinds[f[:len(f)-2]] = f[len(f)-1]
	}
	out := map[string]*scArg{}
	seen := map[string]bool{}
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!null" || n.Value == "") {
		n = &yaml.Node{Kind: yaml.MappingNode, Line: n.Line, Column: n.Column}
	}
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, "must be a mapping of %s", strings.Join(sortedKeys(kinds), ", "))
		return out
	}
	for j := 0; j+1 < len(n.Content); j += 2 {
		k, v := n.Content[j], n.Content[j+1]
		kind, ok := kinds[k.Value]
		if !ok {
			d.fail(k, path+"."+k.Value, "unknown key (allowed: %s)", strings.Join(sortedKeys(kinds), ", "))
			continue
		}
		if seen[k.Value] {
			d.fail(k, path+"."+k.Value, "given twice")
			continue
		}
		seen[k.Value] = true
		if a := d.arg(v, path+"."+k.Value, kind); a != nil {
			out[k.Value] = a
		}
	}
	for _, r := range strings.Fields(required) {
		if !seen[r] {
			d.fail(n, path+"."+r, "missing")
		}
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

var scMRFlags = map[string]uint64{
	"ALLOW_LOCAL_READ": uint64(nic.MRAllowLocalRead), "ALLOW_LOCAL_WRITE": uint64(nic.MRAllowLocalWrite),
	"ALLOW_REMOTE_READ": uint64(nic.MRAllowRemoteRead), "ALLOW_REMOTE_WRITE": uint64(nic.MRAllowRemoteWrite),
	"RDMA_READ_SINK": uint64(nic.MRRDMAReadSink),
}

var scOpFlags = map[string]uint64{
	"SILENT_SUCCESS": uint64(nic.OpSilentSuccess), "READ_FENCE": uint64(nic.OpReadFence),
	"SEND_AND_SOLICIT_EVENT": uint64(nic.OpSendAndSolicitEvent), "OP_ALLOW_REMOTE_READ": uint64(nic.OpAllowRemoteRead),
	"OP_ALLOW_LOCAL_WRITE": uint64(nic.OpAllowLocalWrite), "OP_ALLOW_REMOTE_WRITE": uint64(nic.OpAllowRemoteWrite),
	"INLINE": uint64(nic.OpInline), "OP_RDMA_READ_SINK": uint64(nic.OpRDMAReadSink),
	"RDMA_READ_LOCAL_INVALIDATE": uint64(nic.OpRDMAReadLocalInvalidate), "DEFER": uint64(nic.OpDefer),
}

func (d *scDecoder) arg(v *yaml.Node, path string, kind byte) *scArg {
	a := &scArg{line: v.Line}
	if sub, ok := scSub[kind]; ok {
		fields := ""
		for k, c := range sub {
			fields += k + ":" + string(c) + " "
		}
		req := map[byte]string{'l': "va length", 'R': "token va", 'E': "host va"}[kind]
		a.sub = d.args(v, path, fields, req)
		if kind == 'l' && (a.sub["mr"] == nil) == (a.sub["token"] == nil) {
			d.fail(v, path, "exactly one of mr, token")
		}
		if l := a.sub["length"]; l != nil && l.u > ScenarioBytesMax {
			d.fail(v, path+".length", "%d is out of range 0..%d", l.u, ScenarioBytesMax)
		}
		return a
	}
	if kind == 'f' {
		if v.Kind != yaml.SequenceNode {
			d.fail(v, path, "must be a list of flag names or numbers")
			return nil
		}
		for _, e := range v.Content {
			if x, err := strconv.ParseUint(e.Value, 0, 32); err == nil && e.Kind == yaml.ScalarNode {
				a.u |= x
				continue
			}
			names := scOpFlags
			if strings.HasSuffix(path, "register_mr.flags") {
				names = scMRFlags
			}
			x, ok := names[e.Value]
			if !ok || e.Kind != yaml.ScalarNode {
				d.fail(e, path, "%q is not a flag (one of %s, or a number)", e.Value, strings.Join(sortedKeys(names), ", "))
				continue
			}
			a.u |= x
		}
		return a
	}
	if v.Kind != yaml.ScalarNode {
		d.fail(v, path, "must be a single value")
		return nil
	}
	a.s = v.Value
	switch kind {
	case 'u':
		x, err := strconv.ParseUint(strings.ReplaceAll(v.Value, "_", ""), 0, 64)
		if err != nil {
			d.fail(v, path, "%q is not a whole number", v.Value)
			return nil
		}
		a.u, a.isNum = x, true
	case 'b':
		switch v.Value {
		case "true":
			a.b = true
		case "false":
		default:
			d.fail(v, path, "must be true or false")
			return nil
		}
	case 'r':
		if !d.ref(v, path, v.Value) {
			return nil
		}
	case 't':
		if x, err := strconv.ParseUint(v.Value, 0, 32); err == nil {
			a.u, a.isNum = x, true
			break
		}
		base, ok := strings.CutSuffix(v.Value, ".remote_token")
		if !ok {
			base, ok = strings.CutSuffix(v.Value, ".local_token")
		}
		if !ok {
			d.fail(v, path, "%q is not a token: host.object.remote_token, host.object.local_token or a number", v.Value)
			return nil
		}
		if !d.ref(v, path, base) {
			return nil
		}
	case 'h':
		if !d.hosts[v.Value] {
			d.fail(v, path, "%q is not a host", v.Value)
			return nil
		}
	case 'U':
		if v.Value != "idle" {
			d.fail(v, path, "must be idle")
			return nil
		}
	case 'S':
		if _, ok := nic.ParseStatus(v.Value); !ok {
			d.fail(v, path, "%q is not a status name such as STATUS_SUCCESS", v.Value)
			return nil
		}
	case 'T':
		if _, ok := nic.ParseOpType(v.Value); !ok {
			d.fail(v, path, "%q is not an operation type (Receive, Send, FastRegister, Bind, Invalidate, Read, Write, ReceiveAndInvalidate)", v.Value)
			return nil
		}
	}
	return a
}

// ref checks host.name with a declared host.
func (d *scDecoder) ref(v *yaml.Node, path, s string) bool {
	h, name, ok := strings.Cut(s, ".")
	if !ok || !scIdent(name) || !d.hosts[h] {
		d.fail(v, path, "%q is not an object name host.name of a declared host", s)
		return false
	}
	return true
}
