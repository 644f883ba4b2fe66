#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Run every ```sh block of README.md after the first (the first installs the Debian
# packages and builds; CI has done that), in order, from the repository root, each in a
# fresh `bash -euo pipefail`, and fail on the first block that fails. Block 2 is the test
# command; pass --skip-tests to leave it out when the caller has just run it.
set -euo pipefail
cd "$(dirname "$0")/.."
skip_tests=0
[ "${1:-}" = "--skip-tests" ] && skip_tests=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# blocks into $work/block-N.sh
awk -v dir="$work" '
    /^```sh[[:space:]]*$/ { n++; inside = 1; file = sprintf("%s/block-%02d.sh", dir, n); next }
    /^```/ && inside      { inside = 0; close(file); next }
    inside                { print > file }
' README.md
total=$(find "$work" -name 'block-*.sh' | wc -l)
[ "$total" -ge 2 ] || { echo "README.md: fewer than two sh blocks"; exit 1; }
for f in $(find "$work" -name 'block-*.sh' | sort); do
    n=$(basename "$f" .sh)
    n=${n#block-}
    n=$((10#$n))
    [ "$n" -eq 1 ] && continue
    [ "$n" -eq 2 ] && [ "$skip_tests" -eq 1 ] && continue
    echo "-- README block $n of $total"
    sed 's/^/   > /' "$f"
    if ! bash -euo pipefail "$f" > "$work/out" 2>&1; then
        tail -n 30 "$work/out"
        echo "README block $n failed"
        exit 1
    fi
done
echo "README commands: all $((total - 1 - skip_tests)) blocks after the first ran"
