# moku — build, test and benchmark.
#
#   make          build bin/moku
#   make check    build and run every test (unit, data-driven, integration)
#   make bench    replay the benchmark traces and print jobs/s, wall time, peak memory
#   make asan     run the tests under AddressSanitizer and UBSan
#   make format   reformat the sources with clang-format
#
# Sources are discovered: every src/**/*.c except src/cli/main.c goes into
# libmoku.a; every tests/unit/t_*.c is a test program linked against it.

CC      ?= gcc
CSTD    := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
OPT     ?= -O2 -g
CFLAGS  += $(CSTD) $(WARN) $(OPT) -Isrc
LDLIBS  += -lz -lm

BUILD   := build
LIB_SRC := $(filter-out src/cli/main.c,$(wildcard src/*/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
TEST_SRC:= $(wildcard tests/unit/t_*.c)
TEST_BIN:= $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all check bench asan format clean sample

all: bin/moku

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libmoku.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

bin/moku: $(BUILD)/src/cli/main.o $(BUILD)/libmoku.a
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/test.h $(BUILD)/libmoku.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< $(BUILD)/libmoku.a $(LDLIBS)

# Test tools: independent implementations and helpers the integration tests use.
$(BUILD)/tests/textbook: tests/tools/textbook.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT) -o $@ $<

$(BUILD)/runstat: bench/runstat.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) $(OPT) -o $@ $<

check: bin/moku $(TEST_BIN) $(BUILD)/tests/textbook
	@sh tests/run.sh $(TEST_BIN)

sample: bin/moku
	bin/moku simulate --config examples/maui.cfg data/KTH-SP2-1996-2.1-cln.norm.swf.gz

bench: bin/moku $(BUILD)/runstat
	@sh bench/run.sh

asan:
	$(MAKE) clean
	$(MAKE) check OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" \
		LDFLAGS="-fsanitize=address,undefined"
	$(MAKE) clean

format:
	clang-format -i src/*/*.c src/*/*.h tests/unit/*.c tests/unit/*.h

clean:
	rm -rf $(BUILD) bin

-include $(LIB_OBJ:.o=.d)
