/*
 * fuzz — shared by the libFuzzer harnesses (fuzz_*.c). Each harness defines
 * LLVMFuzzerTestOneInput; `make fuzz` links it with clang's libFuzzer under
 * ASan and UBSan, and `make check` links it with replay.c (gcc, no libFuzzer)
 * to run the saved corpus fuzz/corpus/<harness>/ as a regression test.
 */
#ifndef MOKU_FUZZ_H
#define MOKU_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The readers under test take a path: data written to a private file, its
 * path returned (the same file every time; valid until the next call). */
const char *fuzz_file(const uint8_t *data, size_t size);

#endif
