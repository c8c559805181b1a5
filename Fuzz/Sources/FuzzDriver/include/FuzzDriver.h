#ifndef STACKMOB_FUZZ_DRIVER_H
#define STACKMOB_FUZZ_DRIVER_H

/// Runs libFuzzer's driver over the target's `LLVMFuzzerTestOneInput`, with libFuzzer's own
/// command-line flags. SwiftPM links an executable's `main` to the Swift entry point, which hides
/// the `main` libFuzzer would bring; each target's `main.swift` calls this instead.
int stackmob_fuzz_run(int argc, char **argv);

#endif
