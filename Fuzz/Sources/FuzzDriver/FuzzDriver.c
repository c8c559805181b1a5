#include <stddef.h>
#include <stdint.h>

#include "FuzzDriver.h"

// Both from libFuzzer (linked by -sanitize=fuzzer); the callback is each target's @_cdecl function.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int stackmob_fuzz_run(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}
