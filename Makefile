# moku — build, test and benchmark.
#
#   make          build bin/moku
#   make check    build and run every test (unit, data-driven, integration)
#   make soak     the property tests on N random cases (N=1000 SEED=1)
#   make bench    replay the benchmark traces and print jobs/s, wall time, peak memory
#   make asan     run the tests under AddressSanitizer and UBSan
#   make fuzz     run every libFuzzer harness for FUZZ_SECONDS (clang, ASan + UBSan)
#   make format   reformat the sources with clang-format
#   make install  install bin/moku and the Maui command names (PREFIX=/usr/local)
#
# Sources are discovered: every src/**/*.c except src/cli/main.c goes into
# libmoku.a; every tests/unit/t_*.c is a test program linked against it.

CC      ?= gcc
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
OPT     ?= -O2 -g
CFLAGS  += $(CSTD) $(WARN) $(OPT) -Isrc
LDLIBS  += -lz -ljansson -lsqlite3 -lslurm -lmicrohttpd -lm -pthread

BUILD   ?= build
BIN     ?= bin/moku
LIB_SRC := $(filter-out src/cli/main.c,$(wildcard src/*/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
TEST_SRC:= $(wildcard tests/unit/t_*.c)
TEST_BIN:= $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: slowcheck all check soak bench asan fuzz format clean sample install uninstall crashbin

all: $(BIN)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# The web view's files are compiled into moku (src/web/wasset.c, .incbin).
WEB_FILES := $(wildcard web/*)
$(BUILD)/src/web/wasset.o: $(WEB_FILES)

$(BUILD)/libmoku.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BIN): $(BUILD)/src/cli/main.o $(BUILD)/libmoku.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

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

check: $(BIN) $(TEST_BIN) $(BUILD)/tests/textbook $(BUILD)/tests/rawsock $(BUILD)/tests/propgen \
		$(BUILD)/tests/slowlim crashbin \
		$(FUZZ_REPLAY)
	@MOKU=$(BIN) TEXTBOOK=$(BUILD)/tests/textbook RAWSOCK=$(BUILD)/tests/rawsock SLOWLIM=$(BUILD)/tests/slowlim \
		PROPGEN=$(BUILD)/tests/propgen CRASHMOKU=$(CRASH_BIN) FUZZREPLAY=$(BUILD)/fuzz \
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

bench: $(BIN) $(BUILD)/runstat $(BUILD)/mini_easy $(BUILD)/limits_bench $(BUILD)/prio_bench $(BUILD)/store_fill $(BUILD)/sub_bench $(BUILD)/resv_bench $(BUILD)/depth_bench $(BUILD)/tests/rawsock
	@MINI=$(BUILD)/mini_easy sh bench/run.sh
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
asan:
	TIME_SCALE=6 $(MAKE) check BUILD=build/asan BIN=build/asan/moku \
		OPT="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"

format:
	clang-format -i src/*/*.c src/*/*.h tests/unit/*.c tests/unit/*.h

clean:
	rm -rf $(BUILD) bin

# Header dependencies of every object, the command's main.o included (a stale
# object compiled against an older struct layout corrupts memory silently).
-include $(LIB_OBJ:.o=.d) $(BUILD)/src/cli/main.d $(TEST_BIN:=.d)

# The Maui commands are the one binary under the names users know.
PREFIX  ?= /usr/local
COMMANDS := showq checkjob checknode showstats diagnose showconfig canceljob sethold \
            releasehold setspri setqos runjob schedctl mjobctl showres setres releaseres \
            showbf showstart qsub msub

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/moku
	for c in $(COMMANDS); do ln -sf moku $(DESTDIR)$(PREFIX)/bin/$$c; done

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/moku
	for c in $(COMMANDS); do rm -f $(DESTDIR)$(PREFIX)/bin/$$c; done
