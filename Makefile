# SPDX-License-Identifier: ISC
# ncpv - build, test, install. `make` builds ./ncpv; `make check` runs every test.
VERSION  := 0.1.0
PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
LIBDIR   ?= $(PREFIX)/lib
MANDIR   ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/vendor-completions
DESTDIR  ?=
PERF_ARGS ?= -d 3 -r 5

CC       ?= cc
CFLAGS   ?= -O2 -g
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wpointer-arith -Wvla -Wformat=2 -Wno-format-nonliteral
HARDEN   := -D_FORTIFY_SOURCE=3 -fstack-protector-strong -fPIE
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -DNCPV_VERSION='"$(VERSION)"' $(TLS_CFLAGS) $(WARN) $(HARDEN) $(CFLAGS) -MMD -MP
LDFLAGS  ?=
PIE_LDFLAGS ?= -pie
ALL_LDFLAGS = $(PIE_LDFLAGS) -Wl,-z,relro,-z,now $(LDFLAGS)
# TLS=no builds without OpenSSL (the static musl build: Debian's libssl.a is glibc's);
# then --tls and --ssl are refused with an error that names the missing feature.
TLS      ?= yes
TLS_CFLAGS = $(if $(filter yes,$(TLS)),,-DNCPV_NO_TLS)
LDLIBS   := $(if $(filter yes,$(TLS)),-lssl -lcrypto) -lm

# BUILD is where objects go: build/ normally, build/asan for `make asan`.
BUILD    ?= build
# TLS=no builds src/tls_none.c (failing stubs) in place of src/tls.c (OpenSSL).
TLS_OFF  := $(if $(filter yes,$(TLS)),src/tls_none.c,src/tls.c)
SRC      := $(filter-out $(TLS_OFF),$(wildcard src/*.c src/cmd/*.c src/pv/*.c src/nc/*.c src/get/*.c src/bench/*.c src/link/*.c src/udp/*.c src/tcp/*.c))
LIB_SRC  := $(filter-out src/main.c,$(SRC)) src/devtcp/path.c
OBJ      := $(SRC:%.c=$(BUILD)/%.o)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
NCPV_BIN ?= ./ncpv

# What `ncpv --version` reports that only the build knows (src/version.h adds what
# the compiler knows): how it was linked, sanitizers, the devtcp preload library, TLS.
LINK     ?= dynamic
SANITIZE  = $(if $(findstring address,$(CFLAGS)),asan) $(if $(findstring undefined,$(CFLAGS)),ubsan)
DEVTCP_FEATURE ?= devtcp-preload
TLS_FEATURE = $(if $(filter yes,$(TLS)),tls)
BUILD_FEATURES = $(strip $(LINK) $(SANITIZE) $(DEVTCP_FEATURE) $(TLS_FEATURE))

.PHONY: all check unit e2e asan perf install uninstall install-links clean static static-check \
	completions deb deb-smoke FORCE replay fuzz lint valgrind hardening
all: ncpv libncpv-devtcp.so

ncpv: $(BUILD)/ncpv
	@if [ "$(BUILD)" = build ]; then cp $< $@.tmp && mv -f $@.tmp $@; fi

$(BUILD)/ncpv: $(OBJ)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

# The /dev/tcp preload library: its hooks plus the foundation modules it reuses,
# position-independent, everything hidden but the interposed symbols. Sanitizers
# stay out of it: it is loaded into programs that are not built with them.
DEVTCP_SRC := $(wildcard src/devtcp/*.c) src/addr.c src/clock.c src/net.c src/units.c
DEVTCP_OBJ := $(DEVTCP_SRC:%.c=$(BUILD)/pic/%.o)
DEVTCP_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) -D_FORTIFY_SOURCE=3 -fstack-protector-strong \
            -fPIC -fvisibility=hidden -fno-delete-null-pointer-checks $(filter-out -fsanitize=%,$(CFLAGS)) -MMD -MP

libncpv-devtcp.so: $(BUILD)/libncpv-devtcp.so
	@if [ "$(BUILD)" = build ]; then cp $< $@; fi

$(BUILD)/libncpv-devtcp.so: $(DEVTCP_OBJ)
	$(CC) $(DEVTCP_CFLAGS) -shared -Wl,-z,relro,-z,now $(filter-out -fsanitize=%,$(LDFLAGS)) \
	    -o $@ $^ -ldl -lm

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(DEVTCP_CFLAGS) -c -o $@ $<

# `ncpv devtcp` looks for the library in the installed place when not beside itself;
# the stamp rebuilds it when LIBDIR changes (`make install PREFIX=/opt` after `make`).
$(BUILD)/src/cmd/devtcp.o: ALL_CFLAGS += -DNCPV_PKGLIBDIR='"$(LIBDIR)/ncpv"'
$(BUILD)/src/cmd/devtcp.o: $(BUILD)/libdir.stamp
$(BUILD)/libdir.stamp: FORCE
	@mkdir -p $(BUILD) && echo '$(LIBDIR)' | cmp -s - $@ || echo '$(LIBDIR)' >$@
.PHONY: FORCE

$(BUILD)/libncpv.a: $(LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

# Rewritten only when the feature list changes, so main.o is rebuilt exactly then.
FORCE:
$(BUILD)/features.h: FORCE
	@mkdir -p $(BUILD)
	@printf '#define NCPV_BUILD_FEATURES " %s"\n' '$(BUILD_FEATURES)' >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(BUILD)/src/main.o: $(BUILD)/features.h
$(BUILD)/src/main.o: ALL_CFLAGS += -include $(BUILD)/features.h

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libncpv.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Isrc $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libncpv.a -lcmocka $(LDLIBS)

unit: $(UNIT_BIN)
	@set -e; for t in $(UNIT_BIN); do echo "== $$t"; $$t; done

# E2E_TESTS picks bats files or folders (default: all of tests/e2e, a folder per command; see
# tests/README.md), e.g. make asan E2E_TESTS=tests/e2e/nc/nc_transfer.bats or E2E_TESTS=tests/e2e/udp;
# E2E_JOBS=N runs N bats files at once (with GNU parallel; one at a time without it): the
# suite passes under load (tests/soak); three at a time fill the two cores (two left a third of
# their time idle: most tests wait on peers and timers) and bring CI near 25 min.
E2E_JOBS ?= 3
e2e: $(BUILD)/ncpv $(BUILD)/libncpv-devtcp.so $(BUILD)/tests/stressor
	NCPV=$(abspath $(BUILD)/ncpv) STRESSOR=$(abspath $(BUILD)/tests/stressor) E2E_JOBS=$(E2E_JOBS) tests/run-e2e $(E2E_TESTS)

# The load generator for tests/e2e/serve_get/stress.bats and `make stress`.
$(BUILD)/tests/stressor: tests/stress/stressor.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $<

# 5,000 downloads, 500 stalled readers, 1,000 resets, flash clients and fd exhaustion; a few minutes at most.
.PHONY: stress
stress: ncpv $(BUILD)/tests/stressor
	NCPV=$(abspath ncpv) STRESSOR=$(abspath $(BUILD)/tests/stressor) tests/stress/stress.sh

check: all lint-bats unit replay e2e hardening

# The end-to-end suite SOAK_RUNS times under CPU load (stress-ng): how often each test fails.
SOAK_RUNS ?= 5
.PHONY: check-loaded
check-loaded: $(BUILD)/ncpv $(BUILD)/libncpv-devtcp.so $(BUILD)/tests/stressor
	NCPV=$(abspath $(BUILD)/ncpv) STRESSOR=$(abspath $(BUILD)/tests/stressor) E2E_JOBS=$(E2E_JOBS) tests/soak -n $(SOAK_RUNS) $(E2E_TESTS)

# The release binary really is PIE, full RELRO, stack-protected and fortified (level 3).
hardening: $(BUILD)/ncpv
	tests/hardening.sh $(BUILD)/ncpv "$(CC)" "$(HARDEN)" "$(CFLAGS)"

# ---- fuzzing (fuzz/). `make fuzz` runs each libFuzzer harness for FUZZ_SECONDS (clang);
# `replay` runs the committed corpus and past crashes through the same harnesses with $(CC).
FUZZ_NAMES   := $(patsubst fuzz/fuzz_%.c,%,$(wildcard fuzz/fuzz_*.c))
FUZZ_SECONDS ?= 30
FUZZ_CC      ?= clang
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
REPLAY_BIN   := $(FUZZ_NAMES:%=$(BUILD)/fuzz/replay_%)

$(BUILD)/fuzz/replay_%: fuzz/fuzz_%.c fuzz/replay.c fuzz/fuzz.h $(BUILD)/libncpv.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ fuzz/fuzz_$*.c fuzz/replay.c $(BUILD)/libncpv.a $(LDLIBS)

replay: $(REPLAY_BIN)
	@set -e; for n in $(FUZZ_NAMES); do echo "== replay fuzz/corpus/$$n"; $(BUILD)/fuzz/replay_$$n fuzz/corpus/$$n/*; done

build/fuzz/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz.h FORCE
	$(MAKE) BUILD=build/fuzz CC=$(FUZZ_CC) HARDEN=-fPIE \
	    CFLAGS="-O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN)" build/fuzz/libncpv.a
	$(FUZZ_CC) -std=c11 -D_GNU_SOURCE $(WARN) -O1 -g -fsanitize=fuzzer $(FUZZ_SAN) \
	    -o $@ $< build/fuzz/libncpv.a $(LDLIBS)

fuzz: fuzz-harnesses fuzz-serve

# The libFuzzer harnesses alone (CI: serve's close path is already in make check's suite).
.PHONY: fuzz-harnesses
fuzz-harnesses: $(FUZZ_NAMES:%=build/fuzz/fuzz_%)
	fuzz/run.sh $(FUZZ_SECONDS) build/fuzz $(FUZZ_NAMES)

# serve's close path under generated client schedules, options and signals (make check runs
# it for 45 s in tests/e2e/serve_get/serve_close.bats); a failure prints the seed to rerun with --seed.
.PHONY: fuzz-serve
fuzz-serve: $(BUILD)/ncpv
	tests/stress/serve_close.py $(BUILD)/ncpv --seconds $(FUZZ_SECONDS)

# The end-to-end tests with every ncpv process under valgrind memcheck; VALGRIND_TESTS picks
# bats files (CI runs a subset, see docs/RELIABILITY.md); two files at a time, as valgrind is slow.
VALGRIND_TESTS ?= tests/e2e
VALGRIND_JOBS ?= 2
valgrind: $(BUILD)/ncpv $(BUILD)/libncpv-devtcp.so $(BUILD)/tests/stressor
	STRESSOR=$(abspath $(BUILD)/tests/stressor) E2E_JOBS=$(VALGRIND_JOBS) tests/valgrind/run.sh $(abspath $(BUILD)/ncpv) $(VALGRIND_TESTS)

# Static analysis: cppcheck and clang-tidy (.clang-tidy), both clean. clang-tidy runs once per
# file: clang-tidy 14 run over many files at once reports a va_list false positive in common.c.
# LINT_JOBS files are checked at a time.
LINT_JOBS ?= 2
LINT_SRC := $(SRC) $(wildcard src/devtcp/*.c) $(UNIT_SRC) tests/stress/stressor.c $(wildcard fuzz/*.c)
lint: lint-bats
	cppcheck -j $(LINT_JOBS) --enable=warning,performance,portability --std=c11 --inline-suppr --quiet \
	    --error-exitcode=1 --suppressions-list=.cppcheck-suppressions -D_GNU_SOURCE \
	    -DNCPV_VERSION='"lint"' -Isrc $(LINT_SRC)
	@printf '%s\n' $(LINT_SRC) | xargs -P $(LINT_JOBS) -I{} sh -c 'out=$$(clang-tidy --quiet {} -- -std=c11 \
	    -D_GNU_SOURCE -DNCPV_VERSION=\"lint\" -Isrc 2>&1) || { echo "$$out" | grep -v "warnings generated"; exit 1; }'
	@echo "lint: cppcheck and clang-tidy clean"

# Mutation testing: each mutant of tests/mutation/mutants.tsv built in a scratch copy of the
# tree and run against its tests; prints the score and the survivors (docs/RELIABILITY.md has
# the last score). Not part of `make check`: 10 to 15 minutes one at a time. MUTATION_JOBS
# mutants at once; `make mutation MUTANTS="id ..."` runs a few.
MUTATION_JOBS ?= 1
.PHONY: mutation
mutation:
	MUTATION_JOBS=$(MUTATION_JOBS) tools/mutation $(MUTANTS)

# Bats assertions that cannot fail (tools/lint-bats lists the shapes), after its own self-test;
# and every mutant's search string still found once (tools/mutation --check).
.PHONY: lint-bats
lint-bats:
	@tools/lint-bats --self-test tests/lint-bats
	@tools/lint-bats tests/e2e/*/*.bats tests/e2e/lib/*.bash tests/static/*.bats && echo "lint-bats: clean"
	@tools/mutation --check

# The whole suite again with AddressSanitizer and UndefinedBehaviorSanitizer.
# The time-boxed generators (serve's close path, get's server schedules, nc's close schedules)
# run a third of their native budget here, get_side_out.bats its fixed seed alone: every state
# they reach is reached in make check's full run, and ASan's job is what each visit touches
# (docs/RELIABILITY.md, CI).
ASAN_BUDGETS ?= SERVE_CLOSE_SECONDS=15 NCPV_SCHEDULE_BUDGET=15 NC_CLOSE_FUZZ_SECONDS=4 GET_OUT_NEW_SEED=0
# Two files at a time: ASan's processes are two to three times heavier, and three at once met
# three timing failures in a CI rehearsal at load 4.5 (docs/RELIABILITY.md, CI).
ASAN_JOBS ?= 2
asan:
	$(ASAN_BUDGETS) $(MAKE) BUILD=build/asan CFLAGS="-O1 -g -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	    LDFLAGS="-fsanitize=address,undefined" HARDEN="-fPIE" E2E_JOBS=$(ASAN_JOBS) unit replay e2e

$(BUILD)/bench/source-speed: bench/source-speed.c $(BUILD)/libncpv.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Isrc $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libncpv.a $(LDLIBS)

# bench/zerocopy.sh's question about MSG_ZEROCOPY (docs/BENCHMARKS.md): a standalone sender.
$(BUILD)/bench/msg-zerocopy: bench/msg-zerocopy.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $<

perf: ncpv $(BUILD)/bench/source-speed
	SOURCE_SPEED=$(abspath $(BUILD)/bench/source-speed) bench/perf.sh $(PERF_ARGS)

# One static binary to copy to a machine that has none of ncpv's libraries. musl
# (musl-tools) gives a self-contained one; STATIC_CC=gcc tries glibc, whose static
# getaddrinfo still wants the host's NSS libraries at run time.
STATIC_CC ?= musl-gcc
STATIC_LIBC = $(if $(findstring musl,$(STATIC_CC)),musl,glibc)
STATIC_KHDR = build/static-$(STATIC_LIBC)/kernel-headers
static: ncpv-static
ncpv-static: FORCE
	@command -v $(STATIC_CC) >/dev/null || { echo "make static: no $(STATIC_CC) (apt-get install" \
	    "musl-tools, or make static STATIC_CC=gcc for glibc)" >&2; exit 1; }
	@# musl-gcc leaves /usr/include out; the kernel's own headers (linux/inet_diag.h for
	@# bench) are libc-neutral, so give it just those, as Alpine's linux-headers does.
	@mkdir -p $(STATIC_KHDR) && for d in /usr/include/linux /usr/include/asm-generic \
	    /usr/include/$$($(CC) -print-multiarch)/asm; do ln -sfn $$d $(STATIC_KHDR)/; done
	$(MAKE) BUILD=build/static-$(STATIC_LIBC) CC=$(STATIC_CC) LINK=static-$(STATIC_LIBC) \
	    HARDEN="-fstack-protector-strong -isystem $(abspath $(STATIC_KHDR))" PIE_LDFLAGS= \
	    LDFLAGS=-static DEVTCP_FEATURE= TLS=no build/static-$(STATIC_LIBC)/ncpv
	cp build/static-$(STATIC_LIBC)/ncpv $@
	strip $@

static-check: static
	NCPV=$(abspath ncpv-static) tests/run-e2e tests/static

# DEVTCP_LIB: the preload library to install (tests pass the one beside their binary).
DEVTCP_LIB ?= libncpv-devtcp.so
install: $(NCPV_BIN) $(DEVTCP_LIB)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/ncpv $(DESTDIR)$(MANDIR)/man1 \
	    $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 755 $(NCPV_BIN) $(DESTDIR)$(BINDIR)/ncpv
	install -m 644 $(DEVTCP_LIB) $(DESTDIR)$(LIBDIR)/ncpv/libncpv-devtcp.so
	gzip -9n <doc/ncpv.1 >$(DESTDIR)$(MANDIR)/man1/ncpv.1.gz
	chmod 644 $(DESTDIR)$(MANDIR)/man1/ncpv.1.gz
	install -m 644 completions/ncpv.bash $(DESTDIR)$(BASHCOMPDIR)/ncpv
	install -m 644 completions/_ncpv $(DESTDIR)$(ZSHCOMPDIR)/_ncpv

# nc and pv as symlinks to ncpv (main.c picks the command from argv[0]): only on
# request, only for commands this build has, and never over somebody else's file.
install-links: $(NCPV_BIN)
	@set -e; install -d $(DESTDIR)$(BINDIR); for tool in nc pv; do \
	    link=$(DESTDIR)$(BINDIR)/$$tool; \
	    if [ -e "$$link" ] || [ -L "$$link" ]; then \
	        [ "$$(readlink "$$link")" = ncpv ] || { echo "install-links: $$link exists and is not ours" >&2; exit 1; }; \
	    fi; \
	    $(NCPV_BIN) --help | tools/options commands | grep -qx $$tool || \
	        { echo "install-links: this ncpv has no '$$tool' command" >&2; exit 1; }; \
	done; for tool in nc pv; do \
	    ln -sfn ncpv $(DESTDIR)$(BINDIR)/$$tool; echo "$(DESTDIR)$(BINDIR)/$$tool -> ncpv"; \
	done

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ncpv $(DESTDIR)$(LIBDIR)/ncpv/libncpv-devtcp.so \
	    $(DESTDIR)$(MANDIR)/man1/ncpv.1.gz $(DESTDIR)$(BASHCOMPDIR)/ncpv $(DESTDIR)$(ZSHCOMPDIR)/_ncpv
	@rmdir $(DESTDIR)$(LIBDIR)/ncpv 2>/dev/null || true
	@for tool in nc pv; do link=$(DESTDIR)$(BINDIR)/$$tool; \
	    if [ -L "$$link" ] && [ "$$(readlink "$$link")" = ncpv ]; then rm -f "$$link"; fi; done

# The Debian package, built from a scratch copy of the tree into build/deb/; deb-smoke
# also installs it, checks the installed ncpv and purges it (root).
deb:
	.ci/deb-smoke --build-only
deb-smoke:
	.ci/deb-smoke

# Shell completions are generated from the --help of every command; tests check them.
completions: ncpv
	tools/gen-completions ./ncpv

clean:
	rm -rf build ncpv ncpv-static libncpv-devtcp.so

-include $(OBJ:.o=.d) $(UNIT_BIN:%=%.d) $(DEVTCP_OBJ:.o=.d)

# The Debian packages every test needs, only the missing ones (apt-get; sudo unless root).
.PHONY: deps
deps:
	tools/deps check

# The README's first command: every download method side by side on loopback,
# interleaved and repeated (about 3 minutes; BENCH_ARGS adds options, e.g.
# BENCH_ARGS='--duration 60' for the seed's setting or '--link 94mbit' as root).
.PHONY: bench
bench: ncpv
	./ncpv bench $(BENCH_ARGS)

# Serve on loopback, measured by get for a few seconds.
.PHONY: demo
demo: ncpv
	bench/demo.sh 3
