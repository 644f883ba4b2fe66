#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# fuzz.sh - run every libFuzzer target (tests/fuzz/fuzz_*.c) to FUZZ_RUNS executions
# (default 10^7) from the seed corpora of tests/fuzz/make_corpus.sh, and record per
# target the executions done, executions per second, coverage (edges, features), corpus
# size and crashes in benchmarks/FUZZ.md (the table between the RESULTS markers).
# Not part of CI (CI runs each target 15 s in .ci/run).
#
#   bash benchmarks/fuzz.sh                     # 10^7 executions each
#   FUZZ_RUNS=100000 FUZZ_TIME=60 bash benchmarks/fuzz.sh   # shorter: whichever ends first
#   FUZZ_TARGETS="fuzz_csv fuzz_numbers" bash benchmarks/fuzz.sh
#
# Needs clang (libFuzzer). Builds build-fuzz/ when missing. Crash inputs are kept under
# build-fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${FUZZ_RUNS:-10000000}
max_time=${FUZZ_TIME:-0}
shared=${AUG_SHARED_DIR:-$PWD/../shared}

if [ ! -d build-fuzz ]; then
    CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DAUG_FUZZ=ON -DAUG_PROFILER=OFF >/dev/null
fi
cmake --build build-fuzz -j"${FUZZ_JOBS:-2}" >/dev/null
AUG_SHARED_DIR=$shared bash tests/fuzz/make_corpus.sh build-fuzz/seeds >/dev/null

targets=${FUZZ_TARGETS:-$(cd build-fuzz/tests && ls fuzz_* | grep -v '\.' | sort)}
rows=""
for t in $targets; do
    bin=build-fuzz/tests/$t
    [ -x "$bin" ] || continue
    corpus=build-fuzz/corpus/$t
    art=build-fuzz/artifacts/$t
    mkdir -p "$corpus" "$art" "build-fuzz/seeds/$t"
    log=build-fuzz/artifacts/$t.log
    start=$SECONDS
    set +e
    "$bin" -runs="$runs" -max_total_time="$max_time" -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$art/" "$corpus" "build-fuzz/seeds/$t" >"$log" 2>&1
    rc=$?
    set -e
    secs=$((SECONDS - start))
    done_line=$(grep -E '^#[0-9]+[[:space:]]+(DONE|NEW|REDUCE|pulse|INITED)' "$log" | tail -1 || true)
    execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
    execs=${execs:-$(echo "$done_line" | sed -E 's/^#([0-9]+).*/\1/')}
    eps=$(grep -E '^stat::average_exec_per_sec' "$log" | awk '{print $2}' || true)
    cov=$(echo "$done_line" | sed -nE 's/.*cov: ([0-9]+).*/\1/p')
    ft=$(echo "$done_line" | sed -nE 's/.*ft: ([0-9]+).*/\1/p')
    corp=$(echo "$done_line" | sed -nE 's/.*corp: ([0-9]+\/[0-9]+[a-zA-Z]*).*/\1/p')
    crashes=$(ls "$art" | grep -cE '^(crash|leak|timeout|oom)-' || true)
    [ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ] && crashes="exit $rc"
    printf '%-28s %12s execs %8s/s  cov %5s  ft %6s  corpus %-12s crashes %s  (%ss)\n' \
        "$t" "$execs" "$eps" "$cov" "$ft" "$corp" "$crashes" "$secs"
    rows+="| $t | $execs | $eps | $cov | $ft | $corp | $crashes | $secs |"$'\n'
done

md=benchmarks/FUZZ.md
table="<!-- RESULTS BEGIN -->"$'\n'
table+="Run $(date -u +%Y-%m-%d) on $(nproc) cores, FUZZ_RUNS=$runs FUZZ_TIME=$max_time, clang $(clang -dumpversion), ASan+UBSan:"$'\n\n'
table+="| target | executions | exec/s | edges | features | corpus | crashes | seconds |"$'\n'
table+="|---|---:|---:|---:|---:|---|---|---:|"$'\n'
table+="$rows<!-- RESULTS END -->"
if [ -f "$md" ] && grep -q 'RESULTS BEGIN' "$md"; then
    awk -v t="$table" '/RESULTS BEGIN/ { print t; skip = 1 } /RESULTS END/ { skip = 0; next } !skip' \
        "$md" > "$md.tmp.$$" && mv "$md.tmp.$$" "$md"
else
    printf '%s\n' "$table" >> "$md"
fi
