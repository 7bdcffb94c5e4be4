package scenario

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/nicsim/nicsim/nic"
)

// arg is one decoded argument.
type arg struct {
	line  int
	col   int
	u     uint64
	s     string
	b     bool
	isNum bool
	sub   args
	list  []*arg       // M: the MDL pieces; P: the page addresses
	stats []nic.Status // Z: the statuses allowed
}

// args are the arguments of a step, by key.
type args map[string]*arg

// u is the number of key k, or def when it is not given.
func (a args) u(k string, def uint64) uint64 {
	if v := a[k]; v != nil {
		return v.u
	}
	return def
}

// flag is the boolean of key k (false when it is not given).
func (a args) flag(k string) bool { return a[k] != nil && a[k].b }

// Argument kinds, as written in an operation's fields ("key:kind ..."):
// u number, r object reference (host.name), t token
// (reference.remote_token/.local_token, $saved or a number), b bool, f flag
// list, l local {mr|token, va, length}, R remote {token, va}, h host name,
// U "idle", S status, Z status or list of statuses, T operation type,
// E {host, va}, M MDL chain [{va, bytes}, ...], P page list [address, ...],
// N name of a saved token, V token relation.
//
// subArgs are the kinds that are mappings of arguments of their own.
var subArgs = map[byte]struct{ fields, required string }{
	'l': {"mr:r token:t va:u length:u", "va length"},
	'R': {"token:t va:u token_xor:u token_key_plus:u", "token va"},
	'E': {"host:h va:u", "host va"},
	'M': {"va:u bytes:u", "va bytes"}, // one MDL piece
}

// relations are the relations compare_tokens checks between two tokens
// (docs/ndk.md 1.4 and 5.3: a 24-bit index and an 8-bit key).
var relations = map[string]func(a, b uint32) bool{
	"equal":                    func(a, b uint32) bool { return a == b },
	"different":                func(a, b uint32) bool { return a != b },
	"same_index_different_key": func(a, b uint32) bool { return a>>8 == b>>8 && a&0xFF != b&0xFF },
	"different_index":          func(a, b uint32) bool { return a>>8 != b>>8 },
}

// Bounds of list arguments.
const (
	MDLPiecesMax   = 256  // pieces of one register_mr mdl
	SplitPiecesMax = 64   // pieces of a register_mr va/length chain split at page boundaries
	AnyOrderMax    = 1024 // completions of one any_order poll
	savedNamesMax  = ObjectsMax
)

var mrFlags = map[string]uint64{
	"ALLOW_LOCAL_READ": uint64(nic.MRAllowLocalRead), "ALLOW_LOCAL_WRITE": uint64(nic.MRAllowLocalWrite),
	"ALLOW_REMOTE_READ": uint64(nic.MRAllowRemoteRead), "ALLOW_REMOTE_WRITE": uint64(nic.MRAllowRemoteWrite),
	"RDMA_READ_SINK": uint64(nic.MRRDMAReadSink),
}

var opFlags = map[string]uint64{
	"SILENT_SUCCESS": uint64(nic.OpSilentSuccess), "READ_FENCE": uint64(nic.OpReadFence),
	"SEND_AND_SOLICIT_EVENT": uint64(nic.OpSendAndSolicitEvent), "OP_ALLOW_REMOTE_READ": uint64(nic.OpAllowRemoteRead),
	"OP_ALLOW_LOCAL_WRITE": uint64(nic.OpAllowLocalWrite), "OP_ALLOW_REMOTE_WRITE": uint64(nic.OpAllowRemoteWrite),
	"INLINE": uint64(nic.OpInline), "OP_RDMA_READ_SINK": uint64(nic.OpRDMAReadSink),
	"RDMA_READ_LOCAL_INVALIDATE": uint64(nic.OpRDMAReadLocalInvalidate), "DEFER": uint64(nic.OpDefer),
}

// args decodes a mapping against "key:kind ..." and the required keys.
func (d *decoder) args(n *yaml.Node, path, fields, required string) args {
	kinds := map[string]byte{}
	for _, f := range strings.Fields(fields) {
		kinds[f[:len(f)-2]] = f[len(f)-1]
	}
	out := args{}
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

// arg decodes one argument of the given kind; nil when it is invalid.
func (d *decoder) arg(v *yaml.Node, path string, kind byte) *arg {
	a := &arg{line: v.Line, col: v.Column}
	switch kind {
	case 'M', 'P':
		return d.list(v, path, kind, a)
	case 'Z':
		return d.statuses(v, path, a)
	}
	if sub, ok := subArgs[kind]; ok {
		a.sub = d.args(v, path, sub.fields, sub.required)
		if kind == 'l' && (a.sub["mr"] == nil) == (a.sub["token"] == nil) {
			d.fail(v, path, "exactly one of mr, token")
		}
		if l := a.sub["length"]; l != nil && l.u > BytesMax {
			d.fail(v, path+".length", "%d is out of range 0..%d", l.u, BytesMax)
		}
		return a
	}
	if kind == 'f' {
		return d.flagList(v, path, a)
	}
	if v.Kind != yaml.ScalarNode {
		d.fail(v, path, "must be a single value")
		return nil
	}
	a.s = v.Value
	if !d.scalar(v, path, kind, a) {
		return nil
	}
	return a
}

// flagList decodes a list of flag names (MR flags for register_mr, else
// operation flags) or numbers, ORed together.
func (d *decoder) flagList(v *yaml.Node, path string, a *arg) *arg {
	if v.Kind != yaml.SequenceNode {
		d.fail(v, path, "must be a list of flag names or numbers")
		return nil
	}
	names := opFlags
	if strings.HasSuffix(path, "register_mr.flags") {
		names = mrFlags
	}
	for _, e := range v.Content {
		if x, err := strconv.ParseUint(e.Value, 0, 32); err == nil && e.Kind == yaml.ScalarNode {
			a.u |= x
			continue
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

// scalar decodes a single value of the given kind into a; false when it is
// invalid (the problem is reported).
func (d *decoder) scalar(v *yaml.Node, path string, kind byte, a *arg) bool {
	switch kind {
	case 'u':
		x, err := strconv.ParseUint(strings.ReplaceAll(v.Value, "_", ""), 0, 64)
		a.u, a.isNum = x, true
		if errors.Is(err, strconv.ErrRange) {
			return d.check(false, v, path, "%s is out of range 0..2^64-1", v.Value)
		}
		return d.check(err == nil, v, path, "%q is not a whole number", v.Value)
	case 'b':
		a.b = v.Value == "true"
		return d.check(v.Value == "true" || v.Value == "false", v, path, "must be true or false")
	case 'r':
		return d.ref(v, path, v.Value)
	case 't':
		return d.token(v, path, a)
	case 'h':
		return d.check(d.hosts[v.Value], v, path, "%q is not a host", v.Value)
	case 'U':
		return d.check(v.Value == "idle", v, path, "must be idle")
	case 'S':
		_, ok := nic.ParseStatus(v.Value)
		return d.check(ok, v, path, "%q is not a status name such as STATUS_SUCCESS", v.Value)
	case 'T':
		_, ok := nic.ParseOpType(v.Value)
		return d.check(ok, v, path, "%q is not an operation type (Receive, Send, FastRegister, Bind, Invalidate, Read, Write, ReceiveAndInvalidate)", v.Value)
	case 'N':
		return d.saveName(v, path)
	case 'V':
		return d.check(relations[v.Value] != nil, v, path, "%q is not a relation (one of %s)", v.Value, strings.Join(sortedKeys(relations), ", "))
	}
	return true
}

// list decodes an MDL chain (M: mappings {va, bytes}, at most MDLPiecesMax)
// or a page list (P: numbers, at most PagesMax).
func (d *decoder) list(v *yaml.Node, path string, kind byte, a *arg) *arg {
	what, most := "a list of MDL pieces {va, bytes}", MDLPiecesMax
	if kind == 'P' {
		what, most = "a list of page addresses", PagesMax
	}
	if v.Kind != yaml.SequenceNode {
		d.fail(v, path, "must be %s", what)
		return nil
	}
	if len(v.Content) > most {
		d.fail(v, path, "%d entries is more than %d", len(v.Content), most)
		return nil
	}
	for i, e := range v.Content {
		p := fmt.Sprintf("%s.%d", path, i)
		if kind == 'M' {
			a.list = append(a.list, &arg{line: e.Line, sub: d.args(e, p, subArgs['M'].fields, subArgs['M'].required)})
			continue
		}
		x := &arg{line: e.Line}
		if e.Kind != yaml.ScalarNode || !d.scalar(e, p, 'u', x) {
			if e.Kind != yaml.ScalarNode {
				d.fail(e, p, "must be a number")
			}
			continue
		}
		a.list = append(a.list, x)
	}
	return a
}

// statuses decodes one status name or a list of them (any of which a
// completion may have).
func (d *decoder) statuses(v *yaml.Node, path string, a *arg) *arg {
	items := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		items = v.Content
		if len(items) == 0 {
			d.fail(v, path, "a list of statuses must not be empty")
			return nil
		}
	}
	for i, e := range items {
		p := path
		if v.Kind == yaml.SequenceNode {
			p = fmt.Sprintf("%s.%d", path, i)
		}
		if st := d.status(e, p); st != nil {
			a.stats = append(a.stats, *st)
		}
	}
	if len(a.stats) != len(items) {
		return nil
	}
	return a
}

// saveName checks the name a save_token step saves a token under: a name,
// not saved by an earlier step.
func (d *decoder) saveName(v *yaml.Node, path string) bool {
	name, _ := strings.CutPrefix(v.Value, "$")
	switch {
	case !ident(name):
		d.fail(v, path, "%q is not a token name (letters, digits and _, optionally after $)", v.Value)
		return false
	case d.saved[name]:
		d.fail(v, path, "token $%s is already saved by an earlier step", name)
		return false
	case len(d.saved) >= savedNamesMax:
		d.fail(v, path, "more than %d saved tokens", savedNamesMax)
		return false
	}
	d.saved[name] = true
	return true
}

// check reports the problem when ok is false, and returns ok.
func (d *decoder) check(ok bool, v *yaml.Node, path, format string, args ...any) bool {
	if !ok {
		d.fail(v, path, format, args...)
	}
	return ok
}

// token decodes a token: a number, $name (saved by an earlier step), or
// host.object.remote_token or host.object.local_token.
func (d *decoder) token(v *yaml.Node, path string, a *arg) bool {
	if x, err := strconv.ParseUint(v.Value, 0, 32); err == nil {
		a.u, a.isNum = x, true
		return true
	}
	if name, ok := strings.CutPrefix(v.Value, "$"); ok {
		return d.check(d.saved[name], v, path, "token %s is not saved by an earlier step (save_token)", v.Value)
	}
	base, ok := strings.CutSuffix(v.Value, ".remote_token")
	if !ok {
		base, ok = strings.CutSuffix(v.Value, ".local_token")
	}
	if !ok {
		d.fail(v, path, "%q is not a token: host.object.remote_token, host.object.local_token, $saved or a number", v.Value)
		return false
	}
	return d.ref(v, path, base)
}

// ref checks host.name with a declared host.
func (d *decoder) ref(v *yaml.Node, path, s string) bool {
	h, name, ok := strings.Cut(s, ".")
	if !ok || !ident(name) || !d.hosts[h] {
		d.fail(v, path, "%q is not an object name host.name of a declared host", s)
		return false
	}
	return true
}
