#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Install a built tree into a fresh prefix, then build tests/install/consumer.c with
# nothing but `pkg-config --cflags --libs augur` and run it and the installed `augur`
# without AUGUR_DATA_DIR / AUGUR_KDB, from outside the source and build trees.
#   check_install.sh BUILD_DIR PREFIX [EXPECT_DATADIR]
# EXPECT_DATADIR: the data folder the consumer must report (default PREFIX/share/augur
# is only checked for the installed augur, which finds it beside its executable).
set -eu
build=$1
prefix=$2
expect=${3:-}
src=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name augur.pc -print -quit)")/..
# the shared library carries a SONAME with the major version
soname=$(readelf -d "$libdir"/libaugur.so | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libaugur.so.0" ] || { echo "SONAME is '$soname', expected libaugur.so.0"; exit 1; }
[ -f "$libdir/libaugur.a" ] || { echo "no static libaugur.a in $libdir"; exit 1; }
export PKG_CONFIG_PATH="$libdir/pkgconfig"
unset AUGUR_DATA_DIR AUGUR_KDB
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
# shellcheck disable=SC2046 # word splitting of the flags is what is wanted
${CC:-cc} -o consumer "$src/tests/install/consumer.c" $(pkg-config --cflags --libs augur)
out=$(LD_LIBRARY_PATH="$libdir" ./consumer)
echo "consumer: $out"
if [ -n "$expect" ]; then
    case "$out" in
    "$expect "*) ;;
    *) echo "consumer found its data in '${out%% *}', expected '$expect'"; exit 1 ;;
    esac
fi
# the installed augur finds presets and kernels-db beside itself
"$prefix/bin/augur" train --model gpt3-175b --system dgx-a100-80g --gpus 1024 --tp 8 --pp 16 \
    --interleave 2 --micro-batch 1 --global-batch 1536 --recompute full --format json \
    > train.json
# the library gives the program the same iteration time as the installed augur
cli=$(sed -n 's/^  "step_time_s": *\([^,]*\),*$/\1/p' train.json)
lib=$(echo "$out" | cut -d' ' -f3)
awk -v a="$cli" -v b="$lib" 'BEGIN { d = a - b; if (d < 0) d = -d;
    if (!(a > 0) || d > 1e-6 * a) { print "augur says " a " s, the library " b " s"; exit 1 } }'
"$prefix/bin/augur" models | grep -q llama2-70b
# man pages, when help2man was there at build time
if command -v help2man >/dev/null 2>&1; then
    mandir=$(dirname "$(find "$prefix" -name augur-train.1 -print -quit)")
    [ -f "$mandir/augur.1" ] || { echo "no man pages installed under $prefix"; exit 1; }
fi
echo "install check passed: $prefix"
