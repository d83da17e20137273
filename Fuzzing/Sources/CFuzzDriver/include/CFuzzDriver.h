#ifndef CFUZZDRIVER_H
#define CFUZZDRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (in the runtime `-sanitize=fuzzer` links): parses libFuzzer's command
/// line and calls `callback` with each input. A fuzz target's entry point calls it.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
