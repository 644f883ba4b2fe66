#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# check_make_root.sh AUGUR: kernels-db/make_root.sh builds roots that augur predicts with.
# public: h100-80g/curves.csv is the shipped file byte for byte. profiled: it is
# h100-80g/curves-profiled.csv plus the shipped collective rows, and h200-141g gets its
# own table; a GPU without curves-profiled.csv (a100-80g) keeps curves.csv. A kernel
# prediction through each root says 'curve'. Usage errors exit 2.
set -eu
augur=$1
src=$(cd "$(dirname "$0")/.." && pwd)
kdb=$src/kernels-db
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "check_make_root: $*" >&2; exit 1; }

sh "$kdb/make_root.sh" public "$tmp/pub"
cmp "$kdb/h100-80g/curves.csv" "$tmp/pub/h100-80g/curves.csv" || fail "public h100 table differs"
[ ! -f "$tmp/pub/h200-141g/curves.csv" ] || fail "public h200 has a table"

sh "$kdb/make_root.sh" profiled "$tmp/prof"
n_own=$(grep -c '^gemm,\|^attention,\|^memory,' "$kdb/h100-80g/curves-profiled.csv")
n_coll=$(grep -c '^collective,' "$kdb/h100-80g/curves.csv")
[ "$n_coll" -gt 0 ] || fail "no collective rows in the shipped h100 table"
[ "$(grep -c '^gemm,\|^attention,\|^memory,' "$tmp/prof/h100-80g/curves.csv")" -eq "$n_own" ] ||
    fail "profiled h100: kernel rows are not those of curves-profiled.csv"
[ "$(grep -c '^collective,' "$tmp/prof/h100-80g/curves.csv")" -eq "$n_coll" ] ||
    fail "profiled h100: collective rows are not those of curves.csv"
cmp "$kdb/h200-141g/curves-profiled.csv" "$tmp/prof/h200-141g/curves.csv" ||
    fail "profiled h200 table differs"
cmp "$kdb/a100-80g/curves.csv" "$tmp/prof/a100-80g/curves.csv" || fail "a100 table changed"

for root in pub prof; do
    "$augur" kernel gemm --gpu h100-80g --m 4096 --n 4096 --k 4096 --dtype bf16 \
        --kdb "$tmp/$root" --format csv | grep -q ',curve,' || fail "$root: no curve used"
done

# a non-empty folder and a wrong table name are refused
if sh "$kdb/make_root.sh" profiled "$tmp/prof" 2>/dev/null; then fail "non-empty DIR taken"; fi
set +e
sh "$kdb/make_root.sh" other "$tmp/x" 2>/dev/null
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "a wrong table name exited $rc, not 2"
echo "check_make_root: ok"
