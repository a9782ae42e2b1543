# skdcci: build, test, sanitizer and benchmark targets.
#   make                 release binaries in build/bin
#   make check           test build (with test hooks) + whole suite
#   make check-asan      the same suite under ASan+UBSan
#   make check-valgrind  the whole suite under valgrind memcheck (FILTER=... for a part)
#   make check-alloc     every n of the CLI allocation-failure sweep, ASan+UBSan
#   make lint            cppcheck + clang-tidy (tools/lint.sh)
#   make fuzz TARGET=t SECONDS=n   libFuzzer (clang) on one target (docs/testing.md)
#   make fuzz-merge TARGET=t       minimise that target's corpus into tests/fuzz/corpus
#   make fuzz-replay     replay every committed fuzz corpus under ASan+UBSan (gcc)
#   make demo            seal the shipped demo collection and analyse it
#   make bench           benchmarks (docs/benchmarks.md)
#   make deps            install the packages (apt-get, dnf or yum; root) or say which
#   make check-unsigned-char / check-signed-char   the suite with that char signedness
#   make check-aarch64   cross build for arm64, unit tests and demo under qemu-user
#   make install / uninstall   PREFIX=/usr/local DESTDIR= (docs/install.md)
#   make man completion  generate the man pages and bash completion from --help
#   make dist            source tarball build/dist/skdcci-VERSION.tar.gz
#   WERROR=1             warnings are errors (CI sets it; docs/install.md)
CC ?= cc
PKG_CONFIG ?= pkg-config
PKGS := libpcre2-8 libcjson libzstd libcrypto yaml-0.1
B ?= build
OPT ?= -O2 -g
EXTRA_CFLAGS ?=
EXTRA_LDFLAGS ?=

# -Werror only when asked (WERROR=1, as CI and the developers do): a newer
# compiler's new warning must not stop a user's build.
WERROR ?= 0
WARN := -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes \
        -Wvla -Wpointer-arith -Wundef
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
ALL_CFLAGS = -std=c11 -I. -D_GNU_SOURCE -DOPENSSL_API_COMPAT=30000 -DOPENSSL_NO_DEPRECATED $(OPT) $(WARN) $(PKG_CFLAGS) $(EXTRA_CFLAGS) $(CFLAGS) -MMD -MP
ALL_LDFLAGS = $(EXTRA_LDFLAGS) $(LDFLAGS)
LIBS = $(PKG_LIBS) -lpthread -lm

# One static library per folder; the layers and what each may include are
# checked by tools/layers.sh before anything is compiled (docs/architecture.md).
BASE_SRC := $(wildcard artifact_contract/base/*.c)
CLIUTIL_SRC := $(wildcard artifact_contract/base/cli/*.c)
AC_LIB_SRC := $(wildcard artifact_contract/*.c)
AC_CLI_SRC := $(wildcard artifact_contract/cli/*.c)
RD_SRC := $(wildcard analyzer/readers/*.c)
NUM_SRC := $(wildcard analyzer/numeric/*.c)
CH_SRC := $(wildcard analyzer/chart/*.c)
DCCI_SRC := $(wildcard analyzer/dcci/*.c)
SO_SRC := $(wildcard analyzer/stage_o/*.c)
CS_SRC := $(wildcard analyzer/compile_safety/*.c)
SK_CLI_SRC := $(wildcard analyzer/cli/*.c)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
TOOL_SRC := $(wildcard tests/tools/*.c)
TEST_SUPPORT_SRC := $(filter-out tests/unit/test_%.c,$(wildcard tests/unit/*.c))
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(FUZZ_SRC))

obj = $(patsubst %.c,$(B)/obj/%.o,$(1))
BASE_LIB := $(B)/lib/libskbase.a
CLIUTIL_LIB := $(B)/lib/libskcli.a
AC_LIB := $(B)/lib/libartifact_contract.a
RD_LIB := $(B)/lib/libskreaders.a
NUM_LIB := $(B)/lib/libsknumeric.a
CH_LIB := $(B)/lib/libskchart.a
DCCI_LIB := $(B)/lib/libskdcci.a
SO_LIB := $(B)/lib/libskstageo.a
CS_LIB := $(B)/lib/libskcompilesafety.a
# Link order: each library before the ones it uses.
SK_LIBS := $(SO_LIB) $(DCCI_LIB) $(CS_LIB) $(RD_LIB) $(NUM_LIB) $(CH_LIB) $(AC_LIB) $(BASE_LIB)
BINS := $(B)/bin/artifact_contract $(B)/bin/skdcci
UNIT_BINS := $(patsubst tests/unit/%.c,$(B)/tests/unit/%,$(UNIT_SRC))
TOOL_BINS := $(patsubst tests/tools/%.c,$(B)/tests/tools/%,$(TOOL_SRC))
# fuzz targets linked with the corpus replay driver (tests/scripts/fuzz_replay.sh)
REPLAY_BINS := $(patsubst tests/fuzz/%.c,$(B)/tests/fuzz/%,$(FUZZ_SRC))
LAYERS_OK := $(B)/layers.ok

.SECONDARY:
.PHONY: all bins test-bins check check-asan check-valgrind check-alloc demo bench deps clean lint \
        fuzz fuzz-replay fuzz-merge layers
all: bins
bins: $(BINS)
test-bins: $(BINS) $(UNIT_BINS) $(TOOL_BINS) $(REPLAY_BINS)

# Every object waits for the layering check, which reruns when any source or
# header changes.
$(LAYERS_OK): tools/layers.sh $(shell find artifact_contract analyzer -name '*.[ch]')
	@mkdir -p $(dir $@)
	tools/layers.sh
	@touch $@
layers:
	tools/layers.sh

$(B)/obj/%.o: %.c | $(LAYERS_OK)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

define static_lib
$(1): $$(call obj,$(2))
	@mkdir -p $$(dir $$@)
	rm -f $$@ && ar rcs $$@ $$^
endef
$(eval $(call static_lib,$(BASE_LIB),$(BASE_SRC)))
$(eval $(call static_lib,$(CLIUTIL_LIB),$(CLIUTIL_SRC)))
$(eval $(call static_lib,$(AC_LIB),$(AC_LIB_SRC)))
$(eval $(call static_lib,$(RD_LIB),$(RD_SRC)))
$(eval $(call static_lib,$(NUM_LIB),$(NUM_SRC)))
$(eval $(call static_lib,$(CH_LIB),$(CH_SRC)))
$(eval $(call static_lib,$(DCCI_LIB),$(DCCI_SRC)))
$(eval $(call static_lib,$(SO_LIB),$(SO_SRC)))
$(eval $(call static_lib,$(CS_LIB),$(CS_SRC)))

$(B)/bin/artifact_contract: $(call obj,$(AC_CLI_SRC)) $(CLIUTIL_LIB) $(AC_LIB) $(BASE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(call obj,$(AC_CLI_SRC)) $(CLIUTIL_LIB) $(AC_LIB) $(BASE_LIB) $(LIBS)

$(B)/bin/skdcci: $(call obj,$(SK_CLI_SRC)) $(CLIUTIL_LIB) $(SK_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(call obj,$(SK_CLI_SRC)) $(CLIUTIL_LIB) $(SK_LIBS) $(LIBS)

$(B)/tests/unit/%: $(B)/obj/tests/unit/%.o $(call obj,$(TEST_SUPPORT_SRC)) $(SK_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(call obj,$(TEST_SUPPORT_SRC)) $(SK_LIBS) $(LIBS)

$(B)/tests/tools/%: $(B)/obj/tests/tools/%.o $(SK_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(SK_LIBS) $(LIBS)

$(B)/tests/fuzz/fuzz_%: $(B)/obj/tests/fuzz/fuzz_%.o $(B)/obj/tests/fuzz/regression_driver.o $(SK_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(B)/obj/tests/fuzz/regression_driver.o $(SK_LIBS) $(LIBS)

# libFuzzer binaries: only meaningful in the FUZZ_B build (clang, FUZZ_FLAGS)
$(B)/fuzz_%: $(B)/obj/tests/fuzz/fuzz_%.o $(SK_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer $(ALL_LDFLAGS) -o $@ $< $(SK_LIBS) $(LIBS)

# The test-data generator is split into modules under tests/tools/gen/.
GEN_SRC := $(wildcard tests/tools/gen/*.c)
$(B)/tests/tools/skdcci_gen: $(B)/obj/tests/tools/skdcci_gen.o $(call obj,$(GEN_SRC)) $(SK_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $(filter %.o,$^) $(SK_LIBS) $(LIBS)

TEST_FLAGS := OPT="-O1 -g" EXTRA_CFLAGS="-DSK_TEST_HOOKS"
ASAN_FLAGS := OPT="-O1 -g -fno-omit-frame-pointer" \
  EXTRA_CFLAGS="-DSK_TEST_HOOKS -fsanitize=address,undefined -fno-sanitize-recover=all" \
  EXTRA_LDFLAGS="-fsanitize=address,undefined"

FUZZ_B := build/fuzz
# A 1 KiB JSON refill buffer (instead of 256 KiB) puts refills, compaction and
# growth inside small inputs and spares a large allocation per execution; the
# zstd source's 1 KiB buffers (instead of 128 KiB) do the same for its refills
# and partial flushes, and its 1 MiB window limit (instead of 128 MiB) keeps
# fuzzed frame headers from allocating, and shadow-filling, huge windows.
FUZZ_FLAGS := CC=clang OPT="-O2 -g -fno-omit-frame-pointer" \
  EXTRA_CFLAGS="-DSK_TEST_HOOKS -DSK_JSON_READ_CHUNK=1024 -DSK_SOURCE_BUF_SIZE=1024 -DSK_SOURCE_WINDOW_LOG_MAX=20 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" \
  EXTRA_LDFLAGS="-fsanitize=address,undefined"
SECONDS ?= 60

check:
	$(MAKE) --no-print-directory B=build/t $(TEST_FLAGS) test-bins
	tests/run.sh build/t

check-asan:
	$(MAKE) --no-print-directory B=build/asan $(ASAN_FLAGS) test-bins
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99 tests/run.sh build/asan

# The suite replays the corpora in every variant (tests/scripts/fuzz_replay.sh);
# this target runs only that part, under ASan+UBSan.
fuzz-replay:
	$(MAKE) --no-print-directory B=build/asan $(ASAN_FLAGS) $(patsubst tests/fuzz/%.c,build/asan/tests/fuzz/%,$(FUZZ_SRC))
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99 tests/run.sh build/asan fuzz_replay

fuzz:
	@tools/fuzz.sh check-target "$(TARGET)" $(FUZZ_NAMES)
	$(MAKE) --no-print-directory B=$(FUZZ_B) $(FUZZ_FLAGS) $(FUZZ_B)/fuzz_$(TARGET)
	tools/fuzz.sh run $(FUZZ_B) $(TARGET) $(SECONDS) $(FUZZ_ARGS)

fuzz-merge:
	@tools/fuzz.sh check-target "$(TARGET)" $(FUZZ_NAMES)
	$(MAKE) --no-print-directory B=$(FUZZ_B) $(FUZZ_FLAGS) $(FUZZ_B)/fuzz_$(TARGET)
	tools/fuzz.sh merge $(FUZZ_B) $(TARGET)

# The whole suite (unit tests, CLI cases, scripts) under valgrind memcheck:
# any error or definite/indirect leak fails (tests/lib.sh).  FILTER=text runs
# only the tests whose path contains text (CI runs a subset, docs/testing.md).
check-valgrind:
	$(MAKE) --no-print-directory B=build/t $(TEST_FLAGS) test-bins
	SK_VALGRIND=1 tests/run.sh build/t $(FILTER)

# Every n of the allocation-failure sweeps (the suite samples): finalize and
# validate-set, analyze, then the Stage O ledger commands; under ASan+UBSan.
check-alloc:
	$(MAKE) --no-print-directory B=build/asan $(ASAN_FLAGS) test-bins
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99 \
	SK_SWEEP_STRIDE=1 SK_TEST_TIMEOUT=7200 tests/run.sh build/asan alloc_failure_cli
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99 \
	SK_SWEEP_STRIDE=1 SK_TEST_TIMEOUT=14400 tests/run.sh build/asan analyze_alloc
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99 \
	SK_SWEEP_STRIDE=1 SK_TEST_TIMEOUT=14400 tests/run.sh build/asan ledger_alloc
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99 \
	SK_SWEEP_STRIDE=1 SK_TEST_TIMEOUT=14400 tests/run.sh build/asan stage_o_reports_alloc

demo: bins
	B=$(B) tools/demo.sh

bench: bins
	bench/run.sh

deps:
	@tools/deps.sh

lint:
	tools/lint.sh

clean:
	rm -rf build

include mk/hosts.mk

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
