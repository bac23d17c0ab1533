# emu — top-level build.  `make` builds everything, `make check` runs the
# whole test suite (unit tests always, integration tests when root),
# `make bench` runs the benchmarks, `make deps` installs Debian packages.
#
# Sources are discovered by directory, so adding a file needs no edit here:
#   netctl/*.c          -> libnetctl.a      (fabric library)
#   netctl/cli/*.c      -> netctl           (CLI)
#   emu/*.c emu/sched/*.c -> libemu.a       (controller library)
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
PKGS    := libnl-3.0 libnl-route-3.0 libmnl libconfig jansson libpcap libnftables
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Werror -Wno-format-truncation -D_GNU_SOURCE -I. \
           $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS  += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -lpthread

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
EMU_SRC    := $(wildcard emu/*.c emu/sched/*.c)
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

.PHONY: all deps check unit integ bench clean install run demo soak
all: $(BINS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(LIBNETCTL): $(call obj,$(NETCTL_SRC))
	@rm -f $@; ar rcs $@ $^
$(LIBEMU): $(call obj,$(EMU_SRC))
	@rm -f $@; ar rcs $@ $^ $(if $(EMU_SRC),,/dev/null 2>/dev/null || true)

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
check:
	$(MAKE) SAN=1 $(BUILD_SAN_BINS)
	./build-san/test-unit --jobs 2
	./build-san/test-integ --jobs 1
BUILD_SAN_BINS = build-san/test-unit build-san/test-integ build-san/bin/netctl \
                 $(if $(EMU_CLI),build-san/bin/emu) $(if $(AGENT_SRC),build-san/bin/emu-agent)

unit: ; $(MAKE) SAN=1 build-san/test-unit && ./build-san/test-unit --jobs 2
integ: ; $(MAKE) SAN=1 build-san/test-integ build-san/bin/netctl && ./build-san/test-integ --jobs 1

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

install: all
	install -D -m 755 $(BUILD)/bin/netctl $(DESTDIR)/usr/local/bin/netctl
	$(if $(EMU_CLI),install -D -m 755 $(BUILD)/bin/emu $(DESTDIR)/usr/local/bin/emu)

clean:
	rm -rf build build-san

-include $(shell find build build-san -name '*.d' 2>/dev/null)

# The default job: `emu run` on the built-in default (GENI-like fabric,
# small synthetic workload, Fair); `make demo` shows the fabric alone.
run: all
	./$(BUILD)/bin/emu run
demo: all
	./scripts/demo.sh
