# moku — build, test and benchmark.
#
#   make          build bin/moku
#   make check    build and run every test (unit, data-driven, integration)
#   make soak     the property tests on N random cases (N=1000 SEED=1), and moku on Slurm
#                 with 200 random jobs (under flock /tmp/moku-users.lock, as make check)
#   make bench    replay the benchmark traces and print jobs/s, wall time, peak memory
#   make asan     run the tests under AddressSanitizer and UBSan
#   make fuzz     run every libFuzzer harness for FUZZ_SECONDS (clang, ASan + UBSan)
#   make format   reformat the sources with clang-format
#   make install  install moku, the Maui command names, man pages, bash completion,
#                 the systemd unit (PREFIX=/usr/local, DESTDIR); make uninstall
#   make man      generate the man pages (the commands' --help, maui.cfg(5) from the
#                 parameter table, man/extra) and bash completion into build/
#   make deb      a Debian package of it (dpkg-deb)
#
# Sources are discovered: every src/**/*.c except src/cli/main.c goes into
# libmoku.a; every tests/unit/t_*.c is a test program linked against it.

# Builds use every core unless told otherwise (make -j1): a clean make check
# compiles the binary, its tests, the crash build and the fuzz replays. Each
# recipe's lines still run in order (check runs its tests after building).
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif

CC      ?= gcc
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
# -Wno-missing-field-initializers: `struct err e = {""}` and `{{0}}` leave the
# other members zero by the language's rule (struct err has more than its
# message: err.usage); that idiom is used throughout.
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter \
           -Wno-missing-field-initializers
# -O3 (issue 31): with the link's cross-file inlining (LTO below) it cuts
# HPC2N EASY's replay thread (--jobs-out) 1,266.8 M -> 1,237.7 M instructions
# and fairshare's 3,831.2 M -> 3,727.7 M, same schedules; the optimization
# level is each object's (GCC records it per function), so -O3 only at the
# link would change nothing. A clean make -j2: 54 s -> 65 s.
OPT     ?= -O3 -g
# Debian's hardening (lintian checks the .deb's binary for it): fortified
# libc calls (they need an optimized build) and stack protection, except
# under the sanitizers (which intercept the unfortified calls), and a
# read-only GOT bound at start (LDLIBS).
HARDEN  ?= $(if $(findstring -fsanitize,$(OPT)),,$(if $(filter -O1 -O2 -O3 -Os -Og,$(OPT)),-D_FORTIFY_SOURCE=2) \
           -fstack-protector-strong)
CFLAGS  += $(CSTD) $(WARN) $(OPT) $(HARDEN) -Isrc -I$(BUILD)
# Link-time optimization of bin/moku (issue 31): the replay's hot paths call
# small functions of other files at every event (elig_active, avail_origin,
# plan_free_now, cred_default, ...), which only the link can inline. HPC2N
# EASY with --jobs-out: 1,571 M -> 1,411 M instructions on the replay
# thread. GCC's optimized builds only (make LTO= for none), not under the
# sanitizers (make asan, make fuzz). The objects carry their machine code
# too (-ffat-lto-objects): the tests, tools and benchmarks link libmoku.a
# with -fno-lto (CFLAGS; GCC's driver obeys it wherever it stands, so the
# compile and bin/moku's link filter it out), that is as before. The link's
# cross-file inlining can bring false positives of GCC's uninitialized-use
# warnings (an out-parameter a parser sets on success, seen through the
# call): today's sources link clean without the options below (make
# LTO_LD=-flto=auto), each file is still checked as it compiles, and the
# options keep a new false positive at the link from failing a build.
CC_GCC  := $(shell $(CC) -v 2>&1 | grep -q '^gcc version' && echo yes)
LTO     ?= $(if $(CC_GCC),$(if $(findstring -fsanitize,$(OPT)),,$(if $(filter -O2 -O3,$(OPT)),-flto=auto)))
LTO_CC  := $(if $(LTO),-flto -ffat-lto-objects)
LTO_LD  := $(if $(LTO),$(LTO) -Wno-maybe-uninitialized -Wno-uninitialized)
CFLAGS  += $(if $(LTO),-fno-lto)
# libslurm is not linked: src/rm/slurm_dl.c loads it when the Slurm resource
# manager starts, by the soname of the libslurm.so built against.
LDLIBS  += -lz -ljansson -lsqlite3 -ldl -lm -pthread -Wl,-z,relro,-z,now
SLURM_SONAME ?= $(shell objdump -p $$($(CC) -print-file-name=libslurm.so) 2>/dev/null | awk '$$1 == "SONAME" { print $$2 }')

BUILD   ?= build
BIN     ?= bin/moku
LIB_SRC := $(filter-out src/cli/main.c,$(wildcard src/*/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
TEST_SRC:= $(wildcard tests/unit/t_*.c)
TEST_BIN:= $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: FORCE slowcheck all check soak bench asan fuzz format clean sample install uninstall crashbin man

all: $(BIN)

# Where the installed moku looks for its daemon when neither --home nor
# MOKU_HOME says: /var/spool/moku for PREFIX /usr and /usr/local, else under
# PREFIX. Compiled in through $(BUILD)/moku_config.h, which is rewritten
# only when the value changes (the objects that include it are rebuilt then).
PREFIX  ?= /usr/local
ifneq ($(filter /usr /usr/local,$(PREFIX)),)
MOKU_HOME_DEFAULT ?= /var/spool/moku
else
MOKU_HOME_DEFAULT ?= $(PREFIX)/var/spool/moku
endif
CONFIG_H := $(BUILD)/moku_config.h

$(CONFIG_H): FORCE
	@mkdir -p $(dir $@)
	@printf '/* Generated by the Makefile. */\n#define MOKU_HOME_DEFAULT "%s"\n#define MOKU_DOCDIR "%s"\n' \
		'$(MOKU_HOME_DEFAULT)' '$(DOCDIR)' >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

FORCE:

# Objects whose hot code -O3 makes slower than -O2 (issue 31), compiled -O2
# in an -O3 build (the last -O wins; LTO keeps each function's level).
# alloc: HPC2N EASY --jobs-out, replay thread 1,241.5 M -> 1,235.0 M
# instructions (alloc_job 85.5 M -> 81.5 M, alloc_release 52.3 M -> 49.1 M).
O2_OBJ  := $(BUILD)/src/policy/alloc.o
$(O2_OBJ): CFLAGS += $(if $(filter -O3,$(OPT)),-O2)

$(BUILD)/src/rm/slurm_dl.o: CFLAGS += $(if $(SLURM_SONAME),-DSLURM_SONAME='"$(SLURM_SONAME)"')

$(BUILD)/%.o: %.c | $(CONFIG_H)
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -fno-lto,$(CFLAGS)) $(LTO_CC) -MMD -MP -c $< -o $@

# The web view's files are compiled into moku (src/web/wasset.c, .incbin).
WEB_FILES := $(wildcard web/*)
$(BUILD)/src/web/wasset.o: $(WEB_FILES)

$(BUILD)/libmoku.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BIN): $(BUILD)/src/cli/main.o $(BUILD)/libmoku.a
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -fno-lto,$(CFLAGS)) $(LTO_LD) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/test.h $(BUILD)/libmoku.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit -MMD -MP -o $@ $< $(BUILD)/libmoku.a $(LDLIBS)

# Test tools: independent implementations and helpers the integration tests use.
$(BUILD)/tests/textbook: tests/tools/textbook.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT) -o $@ $<

$(BUILD)/tests/propgen: tests/tools/propgen.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT) -o $@ $<

# slowlim drives moku's engine and checks its eligibility with its own code.
$(BUILD)/tests/slowlim: tests/tools/slowlim.c $(BUILD)/libmoku.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libmoku.a $(LDLIBS)

$(BUILD)/tests/rawsock: tests/tools/rawsock.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT) -o $@ $<

$(BUILD)/sub_bench: bench/sub_bench.c $(BUILD)/libmoku.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libmoku.a $(LDLIBS)

$(BUILD)/store_fill: bench/store_fill.c $(BUILD)/libmoku.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libmoku.a $(LDLIBS)

$(BUILD)/resv_bench: bench/resv_bench.c $(BUILD)/libmoku.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libmoku.a $(LDLIBS)

$(BUILD)/depth_bench: bench/depth_bench.c $(BUILD)/libmoku.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libmoku.a $(LDLIBS)

$(BUILD)/runstat: bench/runstat.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT) -o $@ $<

# The fuzz harnesses (fuzz/fuzz_*.c). make check links each with fuzz/replay.c
# (this compiler, no libFuzzer) and replays the saved corpus fuzz/corpus/<name>/;
# make fuzz builds them with clang's libFuzzer, ASan and UBSan, apart in
# build/fuzz-clang, and runs each for FUZZ_SECONDS (fuzz/run.sh).
FUZZERS     := $(patsubst fuzz/fuzz_%.c,%,$(wildcard fuzz/fuzz_*.c))
FUZZ_REPLAY := $(FUZZERS:%=$(BUILD)/fuzz/replay_%)
FUZZ_SECONDS ?= 60
FUZZ_CC     ?= clang
FUZZ_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

# The benchmark programs, also built by make check: an engine change that
# breaks one must fail the tests, not only the next make bench.
BENCH_BIN = $(BUILD)/runstat $(BUILD)/mini_easy $(BUILD)/limits_bench $(BUILD)/prio_bench \
	$(BUILD)/store_fill $(BUILD)/sub_bench $(BUILD)/resv_bench $(BUILD)/depth_bench
check: $(BIN) $(TEST_BIN) $(BUILD)/tests/textbook $(BUILD)/tests/rawsock $(BUILD)/tests/propgen \
		$(BUILD)/tests/slowlim crashbin $(BUILD)/mkman \
		$(FUZZ_REPLAY) $(BENCH_BIN)
	@MOKU=$(BIN) MKMAN=$(BUILD)/mkman TEXTBOOK=$(BUILD)/tests/textbook RAWSOCK=$(BUILD)/tests/rawsock SLOWLIM=$(BUILD)/tests/slowlim \
		PROPGEN=$(BUILD)/tests/propgen CRASHMOKU=$(CRASH_BIN) FUZZREPLAY="$(BUILD)/fuzz $(FUZZREPLAY_MORE)" \
		sh tests/run.sh $(TEST_BIN)

$(BUILD)/fuzz/replay_%: fuzz/fuzz_%.c fuzz/replay.c fuzz/util.c fuzz/fuzz.h $(BUILD)/libmoku.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Ifuzz -o $@ $< fuzz/replay.c fuzz/util.c $(BUILD)/libmoku.a $(LDLIBS)

fuzz:
	@$(MAKE) --no-print-directory CC=$(FUZZ_CC) BUILD=build/fuzz-clang \
		OPT="-O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link" build/fuzz-clang/libmoku.a
	@for f in $(FUZZERS); do \
		$(FUZZ_CC) $(CSTD) $(WARN) -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer -Isrc -Ifuzz \
			-o build/fuzz-clang/fuzz_$$f fuzz/fuzz_$$f.c fuzz/util.c \
			build/fuzz-clang/libmoku.a $(LDLIBS) || exit 1; \
	done
	@FUZZ_SECONDS=$(FUZZ_SECONDS) sh fuzz/run.sh build/fuzz-clang $(FUZZERS)

# The crash tests' moku (tests/integration/crash.sh): the same sources with
# the crash and failure points of util/crashpt.h compiled in, built apart so
# that they never reach bin/moku.
CRASH_BIN := $(BUILD)/crash/moku
crashbin:
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/crash BIN=$(CRASH_BIN) \
		OPT="$(OPT) -DMOKU_CRASHPOINTS" $(CRASH_BIN)

# Property tests at length: N random cases from seed SEED (make soak N=10000 SEED=1),
# the same checks as make check's few hundred; failing cases are kept for reproduction.
N    ?= 1000
SEED ?= 1
soak: $(BIN) $(BUILD)/tests/propgen
	@MOKU=$(BIN) PROPGEN=$(BUILD)/tests/propgen PROP_N=$(N) PROP_SEED=$(SEED) PROP_SOAK=1 \
		sh tests/integration/property.sh
	@MOKU=$(BIN) SLURM_PROP_N=200 SLURM_PROP_SEED=$(SEED) sh tests/integration/slurm_shape.sh

sample: $(BIN)
	bin/moku simulate --config examples/maui.cfg data/KTH-SP2-1996-2.1-cln.norm.swf.gz

$(BUILD)/prio_bench: bench/prio_bench.c $(BUILD)/libmoku.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libmoku.a $(LDLIBS)

$(BUILD)/limits_bench: bench/limits_bench.c $(BUILD)/libmoku.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libmoku.a $(LDLIBS)

# The minimal textbook EASY loop moku's replay is measured against: no moku code.
$(BUILD)/mini_easy: bench/mini_easy.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< -lz

bench: $(BIN) $(BENCH_BIN) $(BUILD)/tests/rawsock
	@MINI=$(BUILD)/mini_easy sh bench/run.sh
	@RUNSTAT=$(BUILD)/runstat sh bench/growth.sh
	@RUNSTAT=$(BUILD)/runstat MINI=$(BUILD)/mini_easy sh bench/burst.sh
	@$(BUILD)/limits_bench
	@$(BUILD)/prio_bench
	@$(BUILD)/resv_bench
	@$(BUILD)/depth_bench
	@FILL=$(BUILD)/store_fill SUBBENCH=$(BUILD)/sub_bench sh bench/daemon.sh
	@RAWSOCK=$(BUILD)/tests/rawsock sh bench/dos.sh
	@sh bench/slurm.sh

# The throttling page's policy on the whole of HPC2N against the slow model
# of the limits (tests/tools/slowlim.c; make check runs KTH and HPC2N's
# first 20,000 jobs). Slow on purpose: about ten minutes.
slowcheck: $(BUILD)/tests/slowlim
	@sh tests/slowcheck.sh $(BUILD)/tests/slowlim

# Sanitizers build apart (build/asan), so they never mix objects with a normal build.
# TIME_SCALE: the tests' bounds on a hang, multiplied (sanitized code is slower).
# The fuzz corpus replays twice there: built by GCC as the rest, and built by
# clang (FUZZ_CC) with its sanitizers, as make fuzz runs it — clang's UBSan
# checks what GCC's does not (a null pointer plus zero: issue 28, where make
# fuzz stopped on a seed make asan had passed).
ASAN_CLANG := build/asan-clang
asan:
	$(MAKE) --no-print-directory CC=$(FUZZ_CC) BUILD=$(ASAN_CLANG) OPT="-O1 -g $(FUZZ_SAN)" \
		$(FUZZERS:%=$(ASAN_CLANG)/fuzz/replay_%)
	TIME_SCALE=6 $(MAKE) check BUILD=build/asan BIN=build/asan/moku \
		OPT="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
		FUZZREPLAY_MORE=$(ASAN_CLANG)/fuzz

# The sources keep .clang-format's layout: make format applies it, and
# tests/integration/format.sh (make check) fails on a file that strays.
FORMAT_FILES = $(wildcard src/*/*.c src/*/*.h tests/unit/*.c tests/unit/*.h fuzz/*.c fuzz/*.h \
		bench/*.c tools/*.c tests/tools/*.c)
format:
	clang-format -i $(FORMAT_FILES)

clean:
	rm -rf $(BUILD) bin

# Header dependencies of every object, the command's main.o included (a stale
# object compiled against an older struct layout corrupts memory silently).
-include $(LIB_OBJ:.o=.d) $(BUILD)/src/cli/main.d $(TEST_BIN:=.d) $(BUILD)/mkman.d

# What an administrator installs: the binary and the Maui command names
# (symlinks), the man pages and the bash completion (generated from the command
# table, src/cmd/cmdtab.c, and the help of moku's faces, src/cli/help_tab.c, by
# tools/mkman.c), the systemd unit, an example
# maui.cfg, and the daemon's home (MOKU_HOME_DEFAULT, kept by uninstall: it
# holds the state). PREFIX and DESTDIR as usual.
# The command names are the command table's (src/cmd/cmdtab.c): mkman links.
COMMANDS = $(shell $(BUILD)/mkman links)
BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
UNITDIR     ?= $(PREFIX)/lib/systemd/system
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DOCDIR      ?= $(PREFIX)/share/doc/moku
# The documents installed beside the examples: docs/*.md and the images they show.
DOCS        := $(wildcard docs/*.md docs/*.png)

$(BUILD)/mkman: tools/mkman.c $(BUILD)/libmoku.a | $(CONFIG_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -o $@ $< $(BUILD)/libmoku.a $(LDLIBS)

# The generated files: rebuilt with the binary (its --help), the tables
# (libmoku.a) and the hand-written sections (man/extra).
$(BUILD)/man/.stamp: $(BUILD)/mkman $(BIN) $(wildcard man/extra/*)
	@rm -rf $(BUILD)/man && mkdir -p $(BUILD)/man
	$(BUILD)/mkman man $(BIN) $(BUILD)/man
	@touch $@

$(BUILD)/moku.bash: $(BUILD)/mkman
	$(BUILD)/mkman completion $@

.PHONY: man
man: $(BUILD)/man/.stamp $(BUILD)/moku.bash

install: $(BIN) man
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(DOCDIR)/examples
	install -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/moku
	for c in $(COMMANDS); do ln -sf moku $(DESTDIR)$(BINDIR)/$$c; done
	install -m 0644 $(BUILD)/man/*.1 $(DESTDIR)$(MANDIR)/man1
	install -m 0644 $(BUILD)/man/*.5 $(DESTDIR)$(MANDIR)/man5
	install -m 0644 $(BUILD)/man/*.8 $(DESTDIR)$(MANDIR)/man8
	ln -sf moku-serve.8 $(DESTDIR)$(MANDIR)/man8/moku.8
	sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@HOME@|$(MOKU_HOME_DEFAULT)|g' \
		contrib/systemd/moku.service.in >$(DESTDIR)$(UNITDIR)/moku.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/moku.service
	install -m 0644 $(BUILD)/moku.bash $(DESTDIR)$(BASHCOMPDIR)/moku
	for c in $(COMMANDS); do ln -sf moku $(DESTDIR)$(BASHCOMPDIR)/$$c; done
	install -m 0644 examples/maui.cfg examples/maui.cfg.local examples/maui.cfg.slurm \
		$(DESTDIR)$(DOCDIR)/examples
	install -m 0644 README.md $(DESTDIR)$(DOCDIR)/README.md
	install -m 0644 $(DOCS) $(DESTDIR)$(DOCDIR)
	install -m 0644 contrib/slurm/job_submit.lua $(DESTDIR)$(DOCDIR)/examples/job_submit.lua
	install -d -m 0755 $(DESTDIR)$(MOKU_HOME_DEFAULT)

# A Debian package (build/moku_VERSION_ARCH.deb) of what install puts under
# /usr, with the unit where Debian 12 keeps units; control, maintainer
# scripts and copyright from scripts/mkdeb.sh and packaging/deb.
.PHONY: deb
deb: $(BIN) man
	rm -rf $(BUILD)/deb
	$(MAKE) --no-print-directory install DESTDIR=$(abspath $(BUILD)/deb) PREFIX=/usr UNITDIR=/lib/systemd/system
	sh scripts/mkdeb.sh $(BUILD)/deb $(BIN) $(BUILD) $(SLURM_SONAME)

uninstall: $(BUILD)/mkman
	rm -f $(DESTDIR)$(BINDIR)/moku $(DESTDIR)$(UNITDIR)/moku.service \
		$(DESTDIR)$(BASHCOMPDIR)/moku $(DESTDIR)$(DOCDIR)/README.md
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/examples/,maui.cfg maui.cfg.local maui.cfg.slurm job_submit.lua)
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOCS)))
	for c in $(COMMANDS); do rm -f $(DESTDIR)$(BINDIR)/$$c $(DESTDIR)$(BASHCOMPDIR)/$$c; done
	for p in $(notdir $(wildcard $(BUILD)/man/*.1)); do rm -f $(DESTDIR)$(MANDIR)/man1/$$p; done
	for p in $(notdir $(wildcard $(BUILD)/man/*.5)); do rm -f $(DESTDIR)$(MANDIR)/man5/$$p; done
	for p in $(notdir $(wildcard $(BUILD)/man/*.8)); do rm -f $(DESTDIR)$(MANDIR)/man8/$$p; done
	rm -f $(DESTDIR)$(MANDIR)/man8/moku.8
	-rmdir $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR) 2>/dev/null
