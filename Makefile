# SPDX-License-Identifier: GPL-2.0
#
# cxdvirt top-level Makefile.
#
#   make            build cxdvirt.ko (at the top) and the user tools
#   make check      install what is missing, unit tests, then the guest suite
#   make mutation   mutants of the model against the host tests (score >= 95%)
#   make demo       boot a guest, make two devices, print their hit/miss table
#   make install    module (extra/, then depmod), tools, man pages, modprobe.d
#                   and udev files; DESTDIR and PREFIX honoured (docs/install.md)
#   make uninstall  remove what make install put there
#   make dkms       register the module's sources with DKMS (dkms.conf), so
#                   dkms build/install rebuilds it for every new kernel
#   make check-dkms the DKMS build and install into a scratch root, then a
#                   guest boot with that installed module
#   make check-acpi node mode on a guest with no empty node, through
#                   cxdvirt-dev acpi-tables (two boots)
#   make build-matrix  -Werror module builds for Debian trixie 6.12 and sid 7.x
#   make check-matrix  build + guest suite on bookworm 6.1, trixie 6.12, sid 7.x
#   make C=1        the module build with sparse
#   make kernel-doc the module's and model's kernel-doc comments, 0 warnings
#   make check-debug  the guest suite on a KASAN/lockdep/kmemleak kernel built
#                   from Debian's linux-source-6.1 (cached; tests/vm/check-debug.sh)
#   make stress     the guest stress test alone for STRESS_SECONDS (default 300),
#                   STRESS_SEED=N to replay a run
#   make bench      the benchmark in the guest on 6.1, then on 6.12 and 7.x ->
#                   docs/performance.md, docs/performance-cdf.png (tools/bench/bench.sh)
#   make bench-model  the model's instructions per miss (valgrind), 16K vs 4M
#                   cache lines, every policy -> docs/model-cost.md
#   make bench-repro  the benchmark twice (QEMU -icount), per-row agreement
#                   -> docs/performance.md ("Reproducibility")
#   make workloads  real programs (own graph kernels and pointer chase, redis,
#                   memcached, sysbench, fio) on DRAM, node and devdax devices
#                   in the guest, traced and replayed in cxdvirt-sim ->
#                   docs/performance.md, "Workloads" (docs/workloads.md)
#   make fidelity   the CMM-H fidelity table at full scale and its
#                   set-associative what-if (cxdvirt-sim sweep, about 4 to
#                   6 min) -> docs/performance.md
#   make sweep      the MLC-style sweep of cxdvirt-bench in the guest (devdax
#                   and node mode; CSV, JSON, plots) -> the guest column of
#                   the CMM-H fidelity table (tools/bench/sweep.sh)
#   make bench-sim  cxdvirt-sim's replay speed on 100 M-access binary traces,
#                   every policy -> docs/performance.md ("Simulator speed")
#
# KDIR: kernel build tree; defaults to the running kernel's, else the newest
# Debian linux-headers-*-amd64 the test lane installs.

KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
	  $(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1))

CC      ?= cc
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Werror -Iinclude
TOOLS_LIBS_DEV := $(shell pkg-config --libs json-c 2>/dev/null || echo -ljson-c)
TOOLS_CFLAGS_DEV := $(shell pkg-config --cflags json-c 2>/dev/null)
# cxdvirt-sim sweep reads its grid files with libinih (libinih-dev).
SIM_LIBS_INIH := $(shell pkg-config --libs inih 2>/dev/null || echo -linih)
# cxdvirt-dev onlines node-mode memory through libdaxctl (libdaxctl-dev).
DEV_LIBS_DAXCTL := $(shell pkg-config --libs libdaxctl 2>/dev/null || echo -ldaxctl)

MODEL_SRCS := $(wildcard driver/model/*.c)
MODEL_OBJS := $(patsubst driver/model/%.c,tools/obj/model/%.o,$(MODEL_SRCS))
MODEL_HDRS := $(wildcard include/cxdvirt/*.h driver/model/*.h)

TOOLS := tools/cxdvirt-dev tools/cxdvirt-bench tools/cxdvirt-sim
# The synthetic trace generator (bench-sim; tests/tools/test-sweep.sh
# compares a sweep's generated trace with its file), built with the tools.
GEN_TRACE := tools/bench/progs/gen-trace
MODEL_LIB := tools/libcxdmodel.a
# The workload programs of `make workloads` (tools/workloads/, static).
WL := tools/workloads/cxdvirt-wl

# What the three tools share (tools/lib/, prefix cxu_): messages, number
# and size parsing, configfs/sysfs access, latency percentiles and JSON.
UTIL_SRCS := $(wildcard tools/lib/*.c)
# The number and value parser is the module's own (driver/model/param.c):
# libcxu.a carries a copy, so that tools without the model use it too.
UTIL_OBJS := $(patsubst tools/lib/%.c,tools/obj/lib/%.o,$(UTIL_SRCS)) \
	     tools/obj/lib/param.o
UTIL_HDRS := $(wildcard tools/lib/*.h)
UTIL_LIB := tools/libcxu.a
TOOLS_CFLAGS := $(TOOLS_CFLAGS_DEV) -Itools/lib

.PHONY: all module tools deps check unit guest demo clean sparse checkpatch man-lint

all: module tools

module:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || { echo "KDIR not found: install linux-headers (make deps) or pass KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(if $(C),C=$(C)) modules

sparse:
	$(MAKE) module C=2 CF=-Wsparse-error

# The kernel's checkpatch.pl over the module's sources (tests/static/checkpatch.sh).
checkpatch:
	tests/static/checkpatch.sh

tools: $(TOOLS) $(MODEL_LIB) $(UTIL_LIB) $(GEN_TRACE) $(WL)

tools/obj/model/%.o: driver/model/%.c $(MODEL_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -c -o $@ $<

$(MODEL_LIB): $(MODEL_OBJS)
	rm -f $@
	ar rcs $@ $^

tools/obj/lib/%.o: tools/lib/%.c $(UTIL_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(TOOLS_CFLAGS) -c -o $@ $<

tools/obj/lib/param.o: driver/model/param.c $(MODEL_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(UTIL_LIB): $(UTIL_OBJS)
	rm -f $@
	ar rcs $@ $^

tools/cxdvirt-dev: $(wildcard tools/dev/*.c tools/dev/*.h) $(MODEL_LIB) $(UTIL_LIB)
	$(CC) $(CFLAGS) $(TOOLS_CFLAGS) -o $@ $(filter %.c,$^) $(MODEL_LIB) $(UTIL_LIB) $(TOOLS_LIBS_DEV) $(DEV_LIBS_DAXCTL) -lnuma

# cxdvirt-bench measures a device from outside: it needs no model code.
tools/cxdvirt-bench: $(wildcard tools/bench/*.c tools/bench/*.h) $(UTIL_LIB)
	$(CC) $(CFLAGS) $(TOOLS_CFLAGS) -pthread -o $@ $(filter %.c,$^) $(UTIL_LIB) $(TOOLS_LIBS_DEV) -lnuma -lm

# cxdvirt-sim compiles the model's sources with its own, with link-time
# optimisation: the replay loop calls the model's small functions (lookup,
# touch, fill) once or more per access, and inlining them across files is
# about a quarter of its replay time (docs/performance.md, bench-sim).
tools/cxdvirt-sim: $(wildcard tools/sim/*.c tools/sim/*.h) $(MODEL_SRCS) $(MODEL_HDRS) $(UTIL_LIB)
	$(CC) $(CFLAGS) -flto $(TOOLS_CFLAGS) -o $@ $(filter %.c,$^) $(UTIL_LIB) $(TOOLS_LIBS_DEV) $(SIM_LIBS_INIH)

deps:
	tests/vm/install-deps.sh

$(WL): $(wildcard tools/workloads/*.c tools/workloads/*.h)
	$(MAKE) -C tools/workloads

# libFuzzer target over the model's sources (tests/fuzz/README.md).
FUZZ_BIN := tests/fuzz/build/fuzz_model
FUZZ_SMOKE_SECONDS ?= 20
FUZZ_SECONDS ?= 600
FUZZ_FLAGS := -max_len=4096 -rss_limit_mb=2048

$(FUZZ_BIN): tests/fuzz/fuzz_model.c $(MODEL_SRCS) $(MODEL_HDRS)
	@mkdir -p $(dir $@)
	clang -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined -Iinclude -Idriver/model -o $@ \
		tests/fuzz/fuzz_model.c $(MODEL_SRCS)

.PHONY: fuzz fuzz-smoke
fuzz-smoke: $(FUZZ_BIN)
	$(FUZZ_BIN) $(FUZZ_FLAGS) tests/fuzz/regressions/*
	@mkdir -p tests/fuzz/build/corpus
	$(FUZZ_BIN) $(FUZZ_FLAGS) -max_total_time=$(FUZZ_SMOKE_SECONDS) \
		-artifact_prefix=tests/fuzz/build/ tests/fuzz/build/corpus

fuzz: $(FUZZ_BIN)
	@mkdir -p tests/fuzz/build/corpus
	$(FUZZ_BIN) $(FUZZ_FLAGS) -max_total_time=$(FUZZ_SECONDS) \
		-artifact_prefix=tests/fuzz/build/ tests/fuzz/build/corpus

unit: $(MODEL_LIB) $(UTIL_LIB) $(TOOLS) $(GEN_TRACE) $(WL)
	$(MAKE) -C tests/unit run
	prove -e bash tests/tools/*.sh

# The man pages: mandoc -Tlint (warnings are errors); tests/tools/test-man.sh
# (part of make unit) checks that every option of each tool's --help is on
# its page.
MANPAGES := $(wildcard docs/man/*.[1-8])
man-lint:
	mandoc -Tlint -Wwarning $(MANPAGES)

# Mutation run (tests/mutation/run.sh): every mutant of the model listed in
# tests/mutation/mutants, applied one at a time to a scratch copy of the
# tree, against the host tests of `make unit`; prints the score and the
# survivors, fails below MUTATION_MIN_PCT percent killed. MUTANTS=REGEX
# runs only the mutants whose name matches. make check passes
# MUTATION_FLAGS=-n: the unmutated copy is checked against the unit tests
# only, as make unit has just run every host test on the worktree.
MUTATION_MIN_PCT ?= 95
MUTATION_FLAGS ?=
.PHONY: mutation
mutation:
	tests/mutation/run.sh -m $(MUTATION_MIN_PCT) $(MUTATION_FLAGS) $(MUTANTS)

guest: all
	tests/vm/run-guest.sh

check: deps
	$(MAKE) all
	$(MAKE) sparse
	$(MAKE) checkpatch
	$(MAKE) kernel-doc
	$(MAKE) man-lint
	$(MAKE) unit
	$(MAKE) mutation MUTATION_FLAGS=-n
	$(MAKE) fuzz-smoke
	$(MAKE) guest
	$(MAKE) check-dkms
	$(MAKE) check-acpi
	$(MAKE) workloads-smoke
	$(MAKE) sweep-smoke

# The kernel-doc comments of the module and the model, checked with the
# kernel's own scripts/kernel-doc (from KDIR): any warning fails.
.PHONY: kernel-doc
KDOC_SRCS = $(sort $(wildcard driver/*.[ch] driver/*/*.[ch] hotplug/*.[ch] \
		include/cxdvirt/*.h))
kernel-doc:
	@out=$$($(KDIR)/scripts/kernel-doc -none $(KDOC_SRCS) 2>&1); \
	if [ -n "$$out" ]; then \
		echo "$$out"; \
		echo "kernel-doc: $$(echo "$$out" | wc -l) warnings"; \
		exit 1; \
	fi; \
	echo "kernel-doc: clean ($(words $(KDOC_SRCS)) files)"

# The stress test (tests/guest/85-stress.sh) alone, for longer: STRESS_SECONDS
# (default 300) of the content-checked stress in one guest; STRESS_SEED
# replays a run (the seed is printed in tests/vm/out/tap/85-stress.tap).
.PHONY: stress
STRESS_SECONDS ?= 300
stress: all
	tests/vm/run-guest.sh --tests '85*' \
		--test-timeout $$(( $(STRESS_SECONDS) + 120 )) \
		--timeout $$(( $(STRESS_SECONDS) + 600 )) \
		--append 'cxdvirt.stress_seconds=$(STRESS_SECONDS)$(if $(STRESS_SEED), cxdvirt.stress_seed=$(STRESS_SEED))'

# The kernel matrix (tests/vm/matrix.sh): Debian bookworm 6.1 (the host),
# trixie 6.12 and sid 7.x, the newer two built with -Werror in a cached chroot
# of their suite. build-matrix: only those two builds; check-matrix: all three
# builds, each followed by the guest suite on that kernel.
.PHONY: build-matrix check-matrix
build-matrix: deps
	tests/vm/matrix.sh --build-only trixie sid

check-matrix: deps
	$(MAKE) all
	tests/vm/matrix.sh bookworm trixie sid

# The debug-kernel lane: build (once, cached under /var/cache/cxdvirt) a guest
# kernel with KASAN, lockdep, kmemleak and friends (tests/vm/debug.config),
# build cxdvirt.ko against it, run the guest suite, fail on any splat.
# DEBUG_CACHED_ONLY=1 skips the lane when that kernel is not built yet.
.PHONY: check-debug
check-debug: deps
	tests/vm/check-debug.sh $(if $(DEBUG_CACHED_ONLY),--cached-only)

# Instructions per miss of the device model under callgrind, for caches of
# 16K and 4M lines under every policy (tools/bench/model-cost.sh): prints a
# markdown table, writes docs/model-cost.md, fails if 4M costs > 1.2x 16K.
.PHONY: bench-model
BENCH_MODEL := tools/bench/progs/model-cost
$(BENCH_MODEL): tools/bench/progs/model-cost.c $(MODEL_HDRS) $(MODEL_LIB)
	$(CC) $(CFLAGS) -o $@ $< $(MODEL_LIB)

bench-model: $(BENCH_MODEL)
	tools/bench/model-cost.sh $(BENCH_MODEL) docs/model-cost.md

# cxdvirt-sim's replay speed (tools/bench/sim-speed.sh): generate 100 M-access
# binary traces (uniform and 90/10 hot/cold over a 4 GiB device) into a temp
# directory, replay each under every policy with a 1 GiB cache, and write the
# accesses/s, text-parse speed and model memory per page and per cache line
# into docs/performance.md ("Simulator speed"). SIM_BENCH_N sets the length.
.PHONY: bench-sim
$(GEN_TRACE): tools/bench/progs/gen-trace.c tools/sim/gen.c tools/sim/trace_bin.c tools/sim/sim.h $(MODEL_HDRS) $(UTIL_LIB)
	$(CC) $(CFLAGS) -Itools/lib -o $@ tools/bench/progs/gen-trace.c tools/sim/gen.c tools/sim/trace_bin.c $(UTIL_LIB)

# SIM_BENCH_BASE=PATH also replays with an older cxdvirt-sim (a `before`
# column, interleaved rounds, the JSON of both compared).
bench-sim: tools/cxdvirt-sim $(GEN_TRACE)
	tools/bench/sim-speed.sh tools/cxdvirt-sim $(GEN_TRACE) docs/performance.md

# The CMM-H fidelity table (tools/bench/fidelity.sh): the full-scale grids
# tools/sim/cmmh/*.ini (48 GiB cache, 1 TiB, every published point) through
# cxdvirt-sim sweep, one job at a time, into FIDELITY_OUT (default: a new
# mktemp folder per run, named on stderr); the table goes into
# docs/performance.md ("CMM-H fidelity"), and the what-if of
# tools/sim/cmmh/ways.ini. About 4 to 6 minutes and 2.1 GiB.
.PHONY: fidelity
FIDELITY_OUT ?=
fidelity: tools/cxdvirt-sim
	tools/bench/fidelity.sh tools/cxdvirt-sim '$(FIDELITY_OUT)' docs/performance.md

# The benchmark (tools/bench/bench.sh): one guest run of every row of
# docs/performance.md, plus row 6 from bench-model; writes the document and
# docs/performance-cdf.png. Then one more run and table for each newer kernel
# of the matrix (trixie 6.12, sid 7.x; BENCH_ARGS='--kernels bookworm' skips them).
.PHONY: bench
bench: deps
	$(MAKE) all
	tools/bench/bench.sh $(BENCH_ARGS)

# ---------------------------------------------------------------- install --
# make install [DESTDIR=/scratch] [PREFIX=/usr/local] [KDIR=...]
# The module goes through the kernel's modules_install into
# $(DESTDIR)/lib/modules/$(KVER)/extra/ and depmod runs on that tree; the
# modprobe.d and udev files go under $(DESTDIR)$(SYSCONFDIR) (/etc: they are
# the administrator's, whatever PREFIX says).
VERSION     := 0.1.0
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
SBINDIR     ?= $(PREFIX)/sbin
MANDIR      ?= $(PREFIX)/share/man
SYSCONFDIR  ?= /etc
DEPMOD      ?= depmod
DKMS        ?= dkms
# The release the headers were built for (Debian's include/config/kernel.release
# says 6.1.x, not 6.1.0-N-amd64: utsrelease.h is the one that matches uname -r).
KVER        ?= $(if $(KDIR),$(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null))
PKG_DIR     := tools/packaging
MODPROBE_CONF := $(DESTDIR)$(SYSCONFDIR)/modprobe.d/cxdvirt.conf
UDEV_RULE   := $(DESTDIR)$(SYSCONFDIR)/udev/rules.d/60-cxdvirt.rules
# The module's sources: what DKMS gets under /usr/src/cxdvirt-$(VERSION).
DKMS_SRC    := Kbuild Makefile dkms.conf LICENSE driver hotplug include
DKMS_DIR    := $(DESTDIR)/usr/src/cxdvirt-$(VERSION)
# Sign at install only when the kernel tree has its signing key (a
# self-built kernel); distribution headers have none (sign with your MOK,
# or let DKMS do it).
MODSIGN     := $(if $(wildcard $(KDIR)/certs/signing_key.pem),,CONFIG_MODULE_SIG_ALL=)

# depmod on the real root; under a DESTDIR only when it holds the kernel's
# own modules too (a full root or chroot), else the index would list
# cxdvirt alone: a staging tree for a package leaves depmod to the target.
define depmod_run
	@if [ -z "$(DESTDIR)" ] || [ -d $(DESTDIR)/lib/modules/$(KVER)/kernel ]; then \
		echo "$(DEPMOD) $(if $(DESTDIR),-b $(DESTDIR)) -a $(KVER)"; \
		$(DEPMOD) $(if $(DESTDIR),-b $(DESTDIR)) -a $(KVER); \
	else \
		echo "install: $(DESTDIR) has no kernel modules of $(KVER): run 'depmod -a $(KVER)' on the target"; \
	fi
endef

.PHONY: install install-module install-tools install-man install-conf \
	uninstall dkms dkms-remove

install: install-module install-tools install-man install-conf

install-module: module
	@test -n "$(KVER)" || { echo "install: cannot tell the kernel release of KDIR=$(KDIR)" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_PATH=$(DESTDIR) \
		INSTALL_MOD_DIR=extra DEPMOD=true $(MODSIGN) modules_install
	$(call depmod_run)

install-tools: tools
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR)
	install -m 0755 tools/cxdvirt-bench tools/cxdvirt-sim $(WL) $(DESTDIR)$(BINDIR)/
	install -m 0755 tools/cxdvirt-dev $(DESTDIR)$(SBINDIR)/

install-man:
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man4 $(DESTDIR)$(MANDIR)/man8
	install -m 0644 docs/man/cxdvirt-bench.1 docs/man/cxdvirt-sim.1 \
		docs/man/cxdvirt-wl.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 docs/man/cxdvirt.4 $(DESTDIR)$(MANDIR)/man4/
	install -m 0644 docs/man/cxdvirt-dev.8 $(DESTDIR)$(MANDIR)/man8/

install-conf:
	install -D -m 0644 $(PKG_DIR)/modprobe.d/cxdvirt.conf $(MODPROBE_CONF)
	install -D -m 0644 $(PKG_DIR)/udev/60-cxdvirt.rules $(UDEV_RULE)

uninstall:
	@test -n "$(KVER)" || { echo "uninstall: cannot tell the kernel release of KDIR=$(KDIR)" >&2; exit 1; }
	rm -f $(DESTDIR)/lib/modules/$(KVER)/extra/cxdvirt.ko \
	      $(DESTDIR)/lib/modules/$(KVER)/extra/cxdvirt.ko.xz \
	      $(DESTDIR)/lib/modules/$(KVER)/extra/cxdvirt.ko.zst
	-rmdir $(DESTDIR)/lib/modules/$(KVER)/extra 2>/dev/null
	$(call depmod_run)
	rm -f $(DESTDIR)$(BINDIR)/cxdvirt-bench $(DESTDIR)$(BINDIR)/cxdvirt-sim \
	      $(DESTDIR)$(BINDIR)/cxdvirt-wl $(DESTDIR)$(SBINDIR)/cxdvirt-dev \
	      $(DESTDIR)$(MANDIR)/man1/cxdvirt-bench.1 $(DESTDIR)$(MANDIR)/man1/cxdvirt-sim.1 \
	      $(DESTDIR)$(MANDIR)/man1/cxdvirt-wl.1 \
	      $(DESTDIR)$(MANDIR)/man4/cxdvirt.4 $(DESTDIR)$(MANDIR)/man8/cxdvirt-dev.8 \
	      $(MODPROBE_CONF) $(UDEV_RULE)

# Copy the module's sources to /usr/src/cxdvirt-$(VERSION) and `dkms add`
# them; then `dkms build/install -m cxdvirt -v $(VERSION)` (and, with
# AUTOINSTALL, every kernel update) builds and installs the module.
dkms:
	rm -rf $(DKMS_DIR)
	install -d $(DKMS_DIR)
	cp -a $(DKMS_SRC) $(DKMS_DIR)/
	find $(DKMS_DIR) \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' -o -name '*.mod' \
		-o -name '*.mod.c' -o -name modules.order -o -name Module.symvers \) -delete
	$(DKMS) add -m cxdvirt -v $(VERSION) $(DKMS_ARGS)

dkms-remove:
	$(DKMS) remove -m cxdvirt -v $(VERSION) --all $(DKMS_ARGS)
	rm -rf $(DKMS_DIR)

# make dkms, dkms build and dkms install into a scratch root against the
# lane's headers (host untouched), then the guest boots the lane kernel
# with the module DKMS installed (tests/vm/dkms-guest.sh).
.PHONY: check-dkms
check-dkms: tools
	tests/vm/dkms-guest.sh

# Node mode on a guest without an empty node: cxdvirt-dev acpi-tables in a
# first boot, the second boot with its SRAT + HMAT (tests/vm/acpi-guest.sh).
.PHONY: check-acpi
check-acpi: all
	tests/vm/acpi-guest.sh

# Reproducibility (tools/bench/bench-repro.sh): the benchmark twice on 6.1
# (rows 1-5), then each row's agreement between the two runs, into
# docs/performance.md ("Reproducibility"). By default under QEMU -icount
# (deterministic virtual time), both guests at once; BENCH_REPRO_ARGS=''
# compares two ordinary (multi-threaded TCG) runs, one after the other.
.PHONY: bench-repro
BENCH_REPRO_ARGS ?= --icount shift=0,sleep=off --parallel
bench-repro: deps
	$(MAKE) all
	tools/bench/bench-repro.sh --doc docs/performance.md $(BENCH_REPRO_ARGS)

demo: deps
	$(MAKE) all
	tests/vm/demo.sh

# Real workloads (tools/workloads/workloads.sh, docs/workloads.md): the own
# programs (pointer chase, Kronecker BFS and PageRank), memcached, redis
# (one request at a time, redis-cli --pipe, redis-benchmark), sysbench
# memory and fio traced here with valgrind lackey and replayed in
# cxdvirt-sim, then one guest run (QEMU -icount) of them on plain DRAM and
# on node-mode and devdax devices at three cache ratios -> the Workloads
# section of docs/performance.md and its plots (40 minutes in the
# committed run, 36 of them tracing: docs/workloads.md).
# workloads-smoke: chase, bfs and a small memcached at one ratio, the
# document untouched (part of make check, about 1.5 minutes).
.PHONY: workloads workloads-smoke
workloads: deps
	$(MAKE) all
	tools/workloads/workloads.sh

workloads-smoke: all
	tools/workloads/workloads.sh --smoke

# The guest sweep of cxdvirt-bench (tools/bench/sweep.sh, docs/tools.md
# "Guest sweep"): working set / cache, threads, pattern, read/write mix,
# policy and prefetcher on a devdax and a node-mode device (cmmh preset,
# 4 MiB cache), one guest boot under QEMU -icount -> SWEEP_OUT/results.csv
# (cxdvirt-sim sweep's columns), results.json, the plots, and the guest
# column of the CMM-H fidelity table in docs/performance.md.
# sweep-smoke: four points, their properties checked (part of make check).
.PHONY: sweep sweep-smoke
SWEEP_OUT ?= tests/vm/out/sweep
sweep: deps
	$(MAKE) all
	tools/bench/sweep.sh --out $(SWEEP_OUT)

sweep-smoke: all
	tools/bench/sweep.sh --smoke --out $(SWEEP_OUT)-smoke

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null
	rm -rf tools/obj $(MODEL_LIB) $(UTIL_LIB) $(TOOLS) $(BENCH_MODEL) $(GEN_TRACE) $(WL)
	-$(MAKE) -C tests/unit clean
