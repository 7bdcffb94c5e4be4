# nicsim — build, test, lint, benchmark.
# Everything a target needs is installed by the target itself (pinned), so a
# fresh clone needs only Go 1.26.

GO          ?= go
BIN         := $(CURDIR)/bin
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(BIN)/staticcheck-$(STATICCHECK_VERSION)
PKGS        := ./...
# make bench: the whole-simulator benchmarks (workloads/traffic) one run
# per sample, WHOLE_COUNT samples; the kernel's, PCIe's, MTT's, the NIC's
# and the results writer's for MICRO_TIME each, MICRO_COUNT samples, but
# the kernel's queue comparisons (QUEUE_BENCH), QUEUE_COUNT samples: each
# sample runs its two queues in 200 alternating rounds and reports their
# ratio, and takes most of a minute.
WHOLE_COUNT ?= 6
MICRO_TIME  ?= 100ms
MICRO_COUNT ?= 6
QUEUE_COUNT ?= 1
QUEUE_BENCH := PHOLDQueues|QueueHold
MICRO_PKGS  := ./sim ./pcie ./mtt ./nic ./results
BENCH_OUT   ?= $(BIN)/bench.txt
BENCH_BASELINE := results/bench/baseline.txt
# The benchmarks are built with the profile nicsim itself is built with.
PGO_PROFILE := $(CURDIR)/cmd/nicsim/default.pgo

.PHONY: all build test test-fast fmt-check vet lint staticcheck bench bench-compare speed-vs-start pgo scale relief-scan determinism regress same-time-order baselines validate fuzz clean help

all: build test

help:
	@echo "make build        build bin/nicsim"
	@echo "make test         gofmt check, go vet, staticcheck, all tests with the invariants tag"
	@echo "make test-fast    all tests without the invariants tag"
	@echo "make lint         gofmt check, go vet, staticcheck"
	@echo "make bench        whole-simulator (ns, events, allocs per request), kernel, PCIe, MTT and NIC benchmarks; also in bin/bench.txt"
	@echo "make bench-compare  make bench, then benchstat against results/bench/baseline.txt"
	@echo "make speed-vs-start  wall ns, events and peak memory per work request against the binary of 4ee3778 (RUNS pairs, medians; LOADS=all for the four benchmark loads)"
	@echo "make pgo          rewrite cmd/nicsim/default.pgo, the profile go build optimises nicsim with (review, then commit)"
	@echo "make scale        65,536 QPs, 1,048,576 MRs, 16 M MTT entries for 100 us (workloads/scale.yaml): wall time and peak memory"
	@echo "make relief-scan  every preset on 19 loads, each adapter setting relieved in turn (a time halved, a capacity doubled, the clock, the link): fails if one lowers a rate by more than 3 %, raises an unloaded p50 by more than 0.5 %, or moves a rate more than relieving what bound_by names"
	@echo "make determinism  run the determinism tests twice with -count=2"
	@echo "make regress      rerun results/baselines and compare; fails on a regression"
	@echo "make same-time-order  each baseline's largest change with same-time events reversed (-tags reverseties), against seeds 2-4"
	@echo "make baselines    rewrite results/baselines from the current model (review, then commit)"
	@echo "make validate     run workloads/validation against published figures; writes docs/VALIDATION.md and docs/img"
	@echo "make fuzz         every fuzz target for FUZZTIME (60s) each, then the model-level fuzzer's long run"

# bin/nicsim carries the commit it was built from (-buildvcs=auto, whatever
# GOFLAGS says), so a run's meta.json names it without asking git; not when
# git cannot read this tree (no checkout, or one git refuses as another
# user's), where go build would fail on it.
build:
	$(GO) build $$(git status --porcelain >/dev/null 2>&1 && echo -buildvcs=auto) -o $(BIN)/nicsim ./cmd/nicsim

test: lint
	$(GO) test -tags invariants -count=1 $(PKGS)
	$(GO) test -tags reverseties -count=1 -run Reversed ./sim ./cmd/nicsim

test-fast:
	$(GO) test -count=1 $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

$(STATICCHECK):
	@mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	mv $(BIN)/staticcheck $(STATICCHECK)

staticcheck: $(STATICCHECK)
	$(STATICCHECK) $(PKGS)

lint: fmt-check vet staticcheck

# tee keeps the output; a failure is kept in a file, as /bin/sh has no pipefail.
bench:
	@mkdir -p $(BIN) && rm -f $(BENCH_OUT).failed
	{ $(GO) test -run '^$$' -bench Whole -benchtime 1x -count $(WHOLE_COUNT) -benchmem -pgo=$(PGO_PROFILE) ./workloads/traffic && \
	  $(GO) test -run '^$$' -bench . -skip '$(QUEUE_BENCH)' -benchtime $(MICRO_TIME) -count $(MICRO_COUNT) -benchmem -pgo=$(PGO_PROFILE) $(MICRO_PKGS) && \
	  $(GO) test -run '^$$' -bench '$(QUEUE_BENCH)' -benchtime $(MICRO_TIME) -count $(QUEUE_COUNT) -benchmem -pgo=$(PGO_PROFILE) ./sim || \
	  touch $(BENCH_OUT).failed; } | tee $(BENCH_OUT)
	@if [ -e $(BENCH_OUT).failed ]; then rm -f $(BENCH_OUT).failed; echo "make bench: a benchmark failed" >&2; exit 1; fi

bench-compare: bench
	$(GO) tool benchstat $(BENCH_BASELINE) $(BENCH_OUT)

# The wall time, events and peak memory per work request of the quickstart
# load (LOADS=all: the four whole-simulator benchmarks' loads) against the
# binary of START (4ee3778, docs/kernel.md), RUNS pairs in turn, medians.
speed-vs-start:
	GO=$(GO) ./scripts/speed-vs-start.sh

# The CPU profile that go build and go run use for profile-guided
# optimisation of cmd/nicsim (docs/kernel.md, "Profile-guided build"):
# the workloads a user runs most, profiled by nicsim itself and merged.
PGO_FILES := bind-rate-vs-qps rdma-read-write registermr-latency-vs-size fastreg-inline-vs-dma
PGO_FLAGS := --profile cpu --no-plots --quiet --force

pgo:
	@rm -rf $(BIN)/pgo && mkdir -p $(BIN)/pgo
	$(GO) build -pgo=off -o $(BIN)/pgo/nicsim ./cmd/nicsim
	$(BIN)/pgo/nicsim run workloads/quickstart.yaml --set run.duration_us=40000 $(PGO_FLAGS) --out $(BIN)/pgo/quickstart
	@for f in $(PGO_FILES); do \
	  $(BIN)/pgo/nicsim run workloads/$$f.yaml $(PGO_FLAGS) --out $(BIN)/pgo/$$f || exit 1; \
	done
	$(GO) tool pprof -proto $(BIN)/pgo/*/cpu.pprof > cmd/nicsim/default.pgo
	@echo "pgo: wrote cmd/nicsim/default.pgo; rebuild and compare before committing"

# The scale run of docs/scaling.md, with the wall time and peak resident
# memory nicsim records in its meta.json (wall_seconds, from the run's
# start to its results; peak_resident_bytes, from getrusage); it fails past
# SCALE_WALL_S_MAX seconds or SCALE_KB_MAX KiB resident, or when the
# system did not say the peak.
SCALE_WALL_S_MAX ?= 60
SCALE_KB_MAX     ?= 4194304
# The relief scans (workloads/traffic/relief_test.go, reliefbound_test.go):
# about 7,900 runs for throughput, checked for the direction of each relief
# and for the name bound_by gives, and 4,000 for unloaded latency, some 3
# minutes on the 2-core reference machine. make test runs the throughput
# scan's short form, the two loads that once went wrong.
relief-scan:
	$(GO) test -count=1 -timeout 30m -run '^TestRelief' ./workloads/traffic -relief.scan

scale: build
	$(BIN)/nicsim run workloads/scale.yaml --no-plots --quiet --out $(BIN)/scale-run --force
	@awk -F'[:,]' -v w=$(SCALE_WALL_S_MAX) -v k=$(SCALE_KB_MAX) \
	  '/"wall_seconds"/ { wall = $$2 + 0 } /"peak_resident_bytes"/ { kb = ($$2 + 0) / 1024 } \
	  END { if (kb == 0) { print "scale: meta.json has no peak_resident_bytes: this system does not report it"; exit 1 } \
	    printf "scale: %.1f s wall (limit %d), %.2f GiB peak resident (limit %.2f)\n", wall, w, kb/1048576, k/1048576; \
	    if (wall > w || kb > k) { print "scale: over the limit"; exit 1 } }' $(BIN)/scale-run/meta.json

determinism:
	$(GO) test -count=2 -run 'Determin|ByteIdentical' $(PKGS)

regress:
	$(GO) run ./cmd/nicsim regress

# A report, not a check: how far each baseline's figures move when events
# of one time and priority run last scheduled first, against how far
# another seed moves them (docs/accuracy.md, section 8). It fails only
# when a run fails.
same-time-order:
	GO=$(GO) ./scripts/same-time-order.sh

baselines:
	$(GO) run ./cmd/nicsim regress --update

validate:
	$(GO) run ./cmd/nicsim validate

fuzz:
	GO=$(GO) ./scripts/fuzz.sh

clean:
	rm -rf $(BIN)
