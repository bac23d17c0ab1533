# emu — top-level build.  `make` builds everything, `make check` runs the
# whole test suite (unit tests always, integration tests when root),
# `make bench` runs the benchmarks, `make deps` installs Debian packages.
#
# Sources are discovered by directory, so adding a file needs no edit here:
#   netctl/*.c          -> libnetctl.a      (fabric library)
#   netctl/cli/*.c      -> netctl           (CLI)
#   emu/*.c emu/sched/*.c emu/web/*.c -> libemu.a (controller library, live view)
#   emu/cli/*.c         -> emu              (CLI)
#   tests/unit/*.c      -> test-unit        (criterion, no root)
#   tests/integ/*.c     -> test-integ       (criterion, root; skips otherwise)
#   bench/*.c           -> one binary each; bench/*.cpp likewise (C++)

CC      ?= cc
# `make V=1` shows full command lines.
ifeq ($(V),1)
Q :=
else
Q := @
endif
CXX     ?= c++
PKGS    := libnl-3.0 libnl-route-3.0 libmnl libconfig jansson libpcap libnftables libmicrohttpd
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Werror -Wno-format-truncation -D_GNU_SOURCE -I. \
           $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# libsvm (Chapter 5's job classifier, emu/classify.c) and GLPK (DSP's ILP,
# emu/sched/dsp_ilp.c) have no pkg-config file.
LDLIBS  += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lsvm -lglpk -lm -lpthread

# SAN=1 builds everything with ASan+UBSan into build-san/ (used by `make check`).
ifeq ($(SAN),1)
BUILD   ?= build-san
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
else
BUILD   ?= build
endif

NETCTL_SRC := $(wildcard netctl/*.c)
NETCTL_CLI := $(wildcard netctl/cli/*.c)
EMU_SRC    := $(wildcard emu/*.c emu/sched/*.c emu/web/*.c)
EMU_CLI    := $(wildcard emu/cli/*.c)
AGENT_SRC  := $(wildcard agents/*.c)
UNIT_SRC   := $(wildcard tests/unit/*.c)
INTEG_SRC  := $(wildcard tests/integ/*.c)
BENCH_C    := $(wildcard bench/*.c)
BENCH_CXX  := $(wildcard bench/*.cpp)

obj = $(patsubst %.c,$(BUILD)/%.o,$(1))
LIBNETCTL := $(BUILD)/libnetctl.a
LIBEMU    := $(BUILD)/libemu.a
BINS := $(BUILD)/bin/netctl $(if $(EMU_CLI),$(BUILD)/bin/emu) $(if $(AGENT_SRC),$(BUILD)/bin/emu-agent)

.PHONY: all deps check unit integ bench clean install uninstall lint-man run demo soak
all: $(BINS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(LIBNETCTL): $(call obj,$(NETCTL_SRC))
	@rm -f $@; ar rcs $@ $^
$(LIBEMU): $(call obj,$(EMU_SRC))
	@rm -f $@; ar rcs $@ $^ $(if $(EMU_SRC),,/dev/null 2>/dev/null || true)

# `emu run`'s built-in default topology is topologies/geni-10rack.conf, made
# a C string at build time so that the two cannot drift apart.
$(BUILD)/gen/default_topology.inc: topologies/geni-10rack.conf
	@mkdir -p $(dir $@)
	$(Q)sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$$/\\n"/' $< > $@
$(BUILD)/emu/cli/cmd_run.o: $(BUILD)/gen/default_topology.inc
$(BUILD)/emu/cli/cmd_run.o: override CFLAGS += -I$(BUILD)/gen

$(BUILD)/bin/netctl: $(call obj,$(NETCTL_CLI)) $(LIBNETCTL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/bin/emu: $(call obj,$(EMU_CLI)) $(LIBEMU) $(LIBNETCTL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/bin/emu-agent: $(call obj,$(AGENT_SRC)) $(LIBEMU) $(LIBNETCTL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/test-unit: $(call obj,$(UNIT_SRC)) $(if $(EMU_SRC),$(LIBEMU)) $(LIBNETCTL)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcriterion
$(BUILD)/test-integ: $(call obj,$(INTEG_SRC)) $(if $(EMU_SRC),$(LIBEMU)) $(LIBNETCTL)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcriterion

$(BUILD)/bench/%: bench/%.c $(if $(EMU_SRC),$(LIBEMU)) $(LIBNETCTL)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/bench/%: bench/%.cpp $(if $(EMU_SRC),$(LIBEMU)) $(LIBNETCTL)
	@mkdir -p $(dir $@)
	$(CXX) -O2 -std=c++17 -I. $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Integration tests build real namespaces: run them one at a time so rate
# measurements do not compete for the two cores.
# A failing suite repeats its failures last, so they are in the tail of a
# long CI log.
run_suite = $(1) $(2) --tap=$(1).tap || { echo "== failed in $(1):"; \
	    sed -n '/^not ok/,/^  \.\.\./p' $(1).tap; exit 1; }
check: lint-man
	$(MAKE) SAN=1 $(BUILD_SAN_BINS)
	$(call run_suite,./build-san/test-unit,--jobs 2)
	$(call run_suite,./build-san/test-integ,--jobs 1)
	@if command -v $(FUZZ_CC) >/dev/null 2>&1; then $(MAKE) --no-print-directory fuzz-smoke; \
	 else echo "fuzz-smoke: skipped ($(FUZZ_CC) not installed)"; fi
BUILD_SAN_BINS = build-san/test-unit build-san/test-integ build-san/bin/netctl \
                 $(if $(EMU_CLI),build-san/bin/emu) $(if $(AGENT_SRC),build-san/bin/emu-agent)

unit: ; $(MAKE) SAN=1 build-san/test-unit build-san/bin/emu build-san/bin/emu-agent && $(call run_suite,./build-san/test-unit,--jobs 2)
integ: ; $(MAKE) SAN=1 build-san/test-integ build-san/bin/netctl && $(call run_suite,./build-san/test-integ,--jobs 1)

BENCH_BINS = $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_C)) \
             $(patsubst bench/%.cpp,$(BUILD)/bench/%,$(BENCH_CXX))
bench: all $(BENCH_BINS)
	@for b in bench/*.sh; do [ "$$b" = bench/soak.sh ] && continue; [ -x "$$b" ] && BUILD=$(BUILD) "$$b" || true; done

# Long, bounded runs (root): soak with resource tracking, then the crash loop.
soak: all
	$(MAKE) SAN=1 build-san/test-integ build-san/bin/emu build-san/bin/emu-agent
	BUILD=$(BUILD) ./bench/soak.sh

deps:
	./scripts/deps.sh

# `make install PREFIX=/usr DESTDIR=/tmp/pkg`: the three programs side by
# side (emu finds emu-agent next to itself), the man pages, the topologies.
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/emu
MAN5 := $(wildcard man/*.5)
MAN8 := $(wildcard man/*.8)
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(DATADIR)/topologies \
		$(DESTDIR)$(DATADIR)/web
	install -m 755 $(BINS) $(DESTDIR)$(BINDIR)/
	$(if $(MAN5),install -m 644 $(MAN5) $(DESTDIR)$(MANDIR)/man5/)
	$(if $(MAN8),install -m 644 $(MAN8) $(DESTDIR)$(MANDIR)/man8/)
	install -m 644 topologies/*.conf $(DESTDIR)$(DATADIR)/topologies/
	install -m 644 web/index.html web/app.js web/style.css $(DESTDIR)$(DATADIR)/web/
uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(BINS))) \
	      $(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(MAN5))) \
	      $(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(MAN8)))
	rm -rf $(DESTDIR)$(DATADIR)

# Every man page must be clean under mandoc's linter (warnings included).
lint-man:
	@out=$$(mandoc -T lint -W warning $(MAN5) $(MAN8) 2>&1); \
	 if [ -n "$$out" ]; then echo "$$out"; exit 1; fi; echo "lint-man: $(words $(MAN5) $(MAN8)) pages clean"

clean:
	rm -rf build build-san build-fuzz

-include $(shell find $(sort $(BUILD) build build-san) -name '*.d' 2>/dev/null)

# The showcase (about 25 s): JobPacker on the built-in GENI-like fabric,
# one batch of the Chapter 4 study's jobs (30, seed 12) in real time, then
# the same jobs on the simulator: JobPacker's twin, Fair on the same fabric
# (F-Hybrid: circuits unused) and Fair on an EPS as fast as the OCS (F-EPS).
# Of the simulator's seeds 4-23, seed 12 is nearest their median in OCS
# share, reconfigurations and the baselines' ratios to JobPacker.  `emu run`
# alone still runs Fair; `make run ARGS='--seed 4'` changes or adds
# options (the last of an option wins); `make demo` shows the fabric alone.
run: all
	./$(BUILD)/bin/emu run --experiment showcase --scheduler jobpacker --jobs 30 --seed 12 --slowstart 0.7 \
		--min-shuffle 100MB --max-maps 100 --ocs-reconfig early --compare fair,fair@topologies/geni-10rack-eps.conf $(ARGS)
demo: all
	./scripts/demo.sh

# ---------------------------------------------------------------- fuzzing
# `make fuzz` builds one libFuzzer harness per parser/decoder (fuzz/fuzz_*.c,
# targets in fuzz/targets.h) with clang and ASan+UBSan, compiling the library
# sources each one needs from source (not libnetctl.a, which gcc builds), and
# runs each for FUZZ_SECONDS (default 60; `make fuzz FUZZ_SECONDS=600` for
# long runs) from its seeds in fuzz/corpus/<harness>/.  The growing corpus
# stays in build-fuzz/corpus/, crashes go to fuzz/crashes/.  A crash, once
# fixed, belongs in fuzz/regress/<harness>/: the unit tests replay it.
# `make fuzz FUZZ_HARNESSES=proto` runs one.
FUZZ_CC        ?= clang
FUZZ_SECONDS   ?= 60
FUZZ_HARNESSES ?= topo workload proto demand circuits hosts
FUZZ_CFLAGS    := -g -O1 -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -I. \
                  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
                  $(shell pkg-config --cflags libconfig jansson 2>/dev/null)
FUZZ_LIBS      := $(shell pkg-config --libs libconfig jansson 2>/dev/null) -lm
FUZZ_SRC_topo     := netctl/topo.c netctl/topo_servers.c netctl/units.c
FUZZ_SRC_workload := $(wildcard emu/workload*.c) emu/res.c emu/stages.c netctl/units.c
FUZZ_SRC_proto    := emu/proto.c
FUZZ_SRC_demand   := emu/demand.c
FUZZ_SRC_circuits := netctl/circuits.c
FUZZ_SRC_hosts    := netctl/hosts.c netctl/topo.c netctl/topo_servers.c netctl/units.c
FUZZ_MAXLEN_topo     := 8192
FUZZ_MAXLEN_workload := 16384
FUZZ_MAXLEN_proto    := 8192
FUZZ_MAXLEN_demand   := 4096
FUZZ_MAXLEN_circuits := 2048
FUZZ_MAXLEN_hosts    := 4096
# topo: libconfig 1.5 leaks a string token on many syntax errors (see
# fuzz/lsan.supp), and every input that leaks makes libFuzzer run a full
# LeakSanitizer pass (~600 exec/s instead of ~20000).  topo.c and units.c
# allocate nothing themselves, so the run goes without leak detection and the
# whole corpus is replayed with it afterwards (as for every harness).
FUZZ_OPTS_topo := -detect_leaks=0
# workload: its own allocations fail above 16 MB while fuzzing (see fuzz/fuzz_workload.c)
FUZZ_LDFLAGS_workload := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc
FUZZ_BINS := $(patsubst %,build-fuzz/fuzz_%,$(FUZZ_HARNESSES))

define FUZZ_RULE
build-fuzz/fuzz_$(1): fuzz/fuzz_$(1).c fuzz/targets.h $$(FUZZ_SRC_$(1)) $$(wildcard emu/*.h netctl/*.h)
	@mkdir -p build-fuzz
	$$(FUZZ_CC) $$(FUZZ_CFLAGS) $$(FUZZ_LDFLAGS_$(1)) -o $$@ fuzz/fuzz_$(1).c $$(FUZZ_SRC_$(1)) $$(FUZZ_LIBS)
endef
$(foreach h,topo workload proto demand circuits hosts,$(eval $(call FUZZ_RULE,$(h))))

.PHONY: fuzz fuzz-build fuzz-smoke
fuzz-build: $(FUZZ_BINS)
fuzz: $(FUZZ_BINS)
	@mkdir -p fuzz/crashes; rc=0; $(foreach h,$(FUZZ_HARNESSES),ml_$(h)=$(FUZZ_MAXLEN_$(h)); opt_$(h)='$(FUZZ_OPTS_$(h))';) \
	for h in $(FUZZ_HARNESSES); do \
	  mkdir -p build-fuzz/corpus/$$h; eval ml=\$$ml_$$h; eval opt=\$$opt_$$h; \
	  echo "fuzz $$h: $(FUZZ_SECONDS) s (log build-fuzz/$$h.log)"; \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/fuzz/lsan.supp ./build-fuzz/fuzz_$$h -max_total_time=$(FUZZ_SECONDS) -max_len=$$ml -timeout=10 \
	    -rss_limit_mb=2560 -print_final_stats=1 -artifact_prefix=fuzz/crashes/$$h- $$opt \
	    build-fuzz/corpus/$$h fuzz/corpus/$$h >build-fuzz/$$h.log 2>&1 || { rc=1; echo "  FAILED: see build-fuzz/$$h.log and fuzz/crashes/"; }; \
	  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' build-fuzz/$$h.log | sed 's/^/  /'; \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/fuzz/lsan.supp ./build-fuzz/fuzz_$$h -runs=0 -artifact_prefix=fuzz/crashes/$$h- \
	    build-fuzz/corpus/$$h >build-fuzz/$$h-replay.log 2>&1 \
	    && echo "  corpus replayed with leak detection: ok" \
	    || { rc=1; echo "  FAILED corpus replay: see build-fuzz/$$h-replay.log"; }; \
	done; exit $$rc

# Quick: build the harnesses and replay the seeds and regressions once (no
# fuzzing); part of `make check` when clang is there.
fuzz-smoke: $(FUZZ_BINS)
	@for h in $(FUZZ_HARNESSES); do mkdir -p fuzz/regress/$$h; \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/fuzz/lsan.supp ./build-fuzz/fuzz_$$h -runs=0 fuzz/corpus/$$h fuzz/regress/$$h >build-fuzz/$$h-smoke.log 2>&1 \
	    || { echo "fuzz-smoke $$h FAILED: see build-fuzz/$$h-smoke.log"; exit 1; }; done; echo "fuzz-smoke: ok"
