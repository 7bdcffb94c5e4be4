package workloads

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/nicsim/nicsim/mtt"
	"github.com/nicsim/nicsim/nic"
	"github.com/nicsim/nicsim/pcie"
)

// Adapter is the model configuration of a run: a named preset plus
// overrides of any model parameter, one section per model package, keyed
// by the spec's JSON field names. Adding a model is one field here, its
// values in each preset, and a rule table in modelRules.
//
// The NIC's translation unit is the `mtt` section: nic.Spec.TPT is not a key
// of its own (modelSkip) and is set from MTT after decoding (syncTPT), so
// one table configures the TPT whether or not the NIC runs operations.
type Adapter struct {
	Preset string    `yaml:"preset" json:"preset"`
	PCIe   pcie.Spec `yaml:"pcie" json:"pcie"`
	MTT    mtt.Spec  `yaml:"mtt" json:"mtt"`
	NIC    nic.Spec  `yaml:"nic" json:"nic"`
	// Wire joins host a to host b when a generator is a remote kind.
	Wire nic.WireSpec `yaml:"wire" json:"wire"`
}

// syncTPT makes the NIC's TPT the `mtt` section.
func (a *Adapter) syncTPT() { a.NIC.TPT = a.MTT }

// modelSkip lists model spec fields a file cannot set: nic.Spec.TPT is the
// `mtt` section.
var modelSkip = map[reflect.Type]string{reflect.TypeFor[nic.Spec](): "tpt"}

// ValueSource says where one preset value comes from: a docs/sources.md section, or
// "assumed: <why>".
type ValueSource struct {
	Key    string // dotted key below adapter, such as pcie.tags_max
	Source string
}

// Preset is a named adapter configuration with the source of every value.
type Preset struct {
	Name    string
	Summary string
	Adapter Adapter
	// Sources holds the source of each key that differs from, or has a
	// different reason than, the base preset; other keys take the base's.
	Sources []ValueSource
	Base    string // preset whose sources fill the rest ("" for the base itself)
}

// Presets returns the preset table in its fixed order.
func Presets() []Preset { return presets }

// PresetByName finds a preset.
func PresetByName(name string) (Preset, bool) {
	for _, p := range presets {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}

// PresetNames lists the presets' names in table order.
func PresetNames() []string {
	n := make([]string, len(presets))
	for i, p := range presets {
		n[i] = p.Name
	}
	return n
}

// PresetValue is one row of `nicsim presets`.
type PresetValue struct {
	Key    string // dotted key below adapter
	Value  string // JSON form
	Source string
}

// Values lists every model parameter of the preset with its value and
// source, in spec field order.
func (p Preset) Values() []PresetValue {
	var out []PresetValue
	src := func(key string) string {
		for _, s := range p.Sources {
			if s.Key == key {
				return s.Source
			}
		}
		if b, ok := PresetByName(p.Base); ok && p.Base != "" {
			for _, s := range b.Sources {
				if s.Key == key {
					return "as " + b.Name + ": " + s.Source
				}
			}
		}
		return "unsourced"
	}
	var walk func(prefix string, v reflect.Value)
	walk = func(prefix string, v reflect.Value) {
		for _, f := range fieldsOf(v.Type()) {
			fv := v.Field(f.index)
			key := joinPath(prefix, f.name)
			if fv.Kind() == reflect.Struct {
				walk(key, fv)
				continue
			}
			b, _ := json.Marshal(fv.Interface())
			out = append(out, PresetValue{Key: key, Value: string(b), Source: src(key)})
		}
	}
	a := reflect.ValueOf(p.Adapter)
	for _, f := range fieldsOf(a.Type()) {
		if f.name == "preset" {
			continue
		}
		walk(f.name, a.Field(f.index))
	}
	return out
}

// modelRules bounds every model parameter a file can set, by the spec's
// JSON names. They follow each package's Validate, and are tighter where
// Validate allows values that would take a simulator gigabytes
// (key_table_entries_max, mtt_entries_max, cache entries). Validate still
// runs afterwards for the rules that involve several fields.
var modelRules = map[reflect.Type]map[string]string{
	reflect.TypeFor[pcie.Spec](): {
		"gen": "1..5", "lanes": "1|2|4|8|16", "link_latency_ns": "0..1e7",
		"mps_bytes": "pow2 128..4096", "mrrs_bytes": "pow2 128..4096", "rcb_bytes": "64|128",
		"completion_split": "mps|rcb", "tags_max": "1..65536",
		"host_ph_credits": "0..2^20", "host_pd_credits": "0..2^20", "host_nph_credits": "0..2^20",
		"host_npd_credits": "0..2^20", "host_cplh_credits": "0..2^20", "host_cpld_credits": "0..2^20",
		"nic_ph_credits": "0..2^20", "nic_pd_credits": "0..2^20", "nic_nph_credits": "0..2^20",
		"nic_npd_credits": "0..2^20", "nic_cplh_credits": "0..2^20", "nic_cpld_credits": "0..2^20",
		"host_read_latency_fixed_ns": "0..1e7", "host_read_latency_per_byte_ns": "0..1000",
		"host_read_spread_min_ns": "0..1e7", "host_read_spread_p999_ns": "0..1e7", "host_read_spread_max_ns": "0..1e7",
		"host_llc_miss_fraction": "0..1", "host_llc_miss_ns": "0..1e7",
		"host_remote_numa_fraction": "0..1", "host_remote_numa_ns": "0..1e7",
		"host_write_visible_fixed_ns": "0..1e7", "host_write_visible_per_byte_ns": "0..1000",
		"iotlb_entries": "1..65536", "iommu_page_bytes": "pow2 4096..2^30", "iommu_walk_ns": "0..1e7", "iommu_walkers": "1..1024",
		"mmio_issue_gap_ns": "0..1e7", "mmio_wc_issue_gap_ns": "0..1e7", "mmio_queue_max": "1..65536",
		"dma_read_channels": "1..1024", "dma_write_channels": "1..1024",
		"read_request_cycles": "0..2^20", "write_request_cycles": "0..2^20",
		"read_tlps_per_cycle": "1..64", "write_tlps_per_cycle": "1..64",
		"dma_read_queue_depth": "1..65536", "dma_write_queue_depth": "1..65536", "msix_queue_max": "1..65536",
	},
	reflect.TypeFor[mtt.Spec](): {
		"clock_period_ps": "1..1e6", "key_table_entries_max": "1..2^20", "mpt_entry_bytes": "pow2 32..256",
		"mtt_entries_max": "1..2^24", "mtt_alloc_policy": "first-fit|best-fit",
		"mpt_base_addr": "mult:64 0..2^48", "mtt_base_addr": "mult:64 0..2^48",
		"requests_max": "1..65536", "write_ops_max": "1..65536", "mtt_write_bytes_max": "mult:64 64..4096",
		"cache_write_policy": "update|invalidate",
	},
	reflect.TypeFor[nic.WireSpec](): {"latency_ns": "0..1e9", "gbit_per_s": "1..10000", "header_bytes": "0..4096",
		"framing_bytes": "0..4096", "mtu_bytes": "256|512|1024|2048|4096"},
	reflect.TypeFor[nic.Spec](): {
		"clock_period_ps": "1..1e6", "frmr_page_count": "16..65536",
		"max_initiator_queue_depth": "1..65536", "max_receive_queue_depth": "1..65536", "max_cq_depth": "1..2^22",
		"qps_max": "1..2^20", "cqs_max": "1..2^20",
		"host_base_addr": "mult:4096 0..2^48", "mmio_base_addr": "mult:4096 0..2^48",
		"wqe_bytes": "64..64", "doorbell_bytes": "1..64", "inline_page_list_entries_max": "0..64",
		"defer_chain_max": "0..65536", "mr_pool_entries": "0..2^20", "firmware_command_ns": "1..1e9",
		"remote_access_error_status": "3221225477|3221225789",
		"register_firmware_ns":       "1..1e9", "deregister_firmware_ns": "1..1e9", "pin_ps_per_page": "0..1e9",
		"unpin_ps_per_page": "0..1e9", "firmware_command_bytes": "1..4096", "firmware_queue_depth": "1..1024",
		"max_registration_size_bytes": "4096..2^40", "host_memory_pages_max": "1..2^20",
		"max_window_size_bytes": "1..2^40", "mrs_max": "1..2^24", "mws_max": "0..2^24",
		"wqe_fetch_batch_max": "1..256", "wqe_fetch_outstanding_max": "1..1024", "exec_engines": "1..64",
		"page_list_fetches_max": "1..256", "validate_reads_max": "1..4096", "cqe_bytes": "1..256", "moderation_cqes": "1..65536",
		"moderation_time_ns": "0..1e9", "host_cores": "1..1024", "post_wqe_build_ps": "0..1e9",
		"post_doorbell_store_ps": "0..1e9", "post_wc_line_ps": "0..1e9", "poll_cqe_ps": "0..1e9",
		"responder_bytes_per_cycle": "1..4096", "tx_buffer_bytes": "4096..2^30", "rx_buffer_bytes": "4096..2^30", "rnr_timer_ns": "1..1e9", "rnr_retry": "0..7",
	},
	reflect.TypeFor[nic.StageSpec](): {
		"latency_cycles": "1..100000", "items_per_cycle": "1..64", "interval_cycles": "1..100000", "queue_depth": "1..4096",
	},
	reflect.TypeFor[mtt.CacheSpec](): {
		"entries_max": "1..2^20", "ways": "1..1024", "line_bytes": "pow2 8..4096", "policy": "lru|random",
		"latency_cycles": "1..1000", "ports_per_cycle": "1..64", "mshrs_max": "1..4096",
	},
}

func modelRule(t reflect.Type, name string) string { return modelRules[t][name] }

// jsonName maps a Go field name of a model spec to its JSON name.
func jsonName(t reflect.Type, goName string) string {
	f, ok := t.FieldByName(goName)
	if !ok {
		return ""
	}
	n, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return n
}

// checkModels runs each model section's own Validate (the rules that span
// several fields) and reports every complaint at the key it names. Any
// Adapter field with a `Validate() error` method is a model section, so a
// new section needs no change here.
func (a *Adapter) checkModels(d *decoder, path string) {
	v := reflect.ValueOf(a).Elem()
	for _, f := range fieldsOf(v.Type()) {
		fv := v.Field(f.index)
		m, ok := fv.Interface().(interface{ Validate() error })
		if !ok {
			continue
		}
		err := m.Validate()
		if err == nil {
			continue
		}
		for _, line := range strings.Split(err.Error(), "\n") {
			if f.name == "nic" && strings.HasPrefix(line, "mtt: ") {
				continue // the TPT is the mtt section, which reports it
			}
			if f.name == "nic" && strings.HasPrefix(line, "nic: tpt.clock_period_ps = ") {
				d.errPath(joinPath(joinPath(path, "nic"), "clock_period_ps"), "%d must equal adapter.mtt.clock_period_ps = %d: one NIC clock",
					a.NIC.ClockPeriodPS, a.MTT.ClockPeriodPS)
				continue
			}
			msg := strings.TrimPrefix(line, f.name+": ")
			key := ""
			if name, rest, ok := strings.Cut(msg, " = "); ok && !strings.ContainsAny(name, " ") {
				key = name
				if j := jsonName(fv.Type(), name); j != "" {
					key = j
				}
				msg = rest
			}
			d.errPath(joinPath(joinPath(path, f.name), key), "%s", msg)
		}
	}
}

// presetList is the preset names for messages.
func presetList() string {
	q := make([]string, len(presets))
	for i, p := range presets {
		q[i] = fmt.Sprintf("%q", p.Name)
	}
	return strings.Join(q, ", ")
}
