#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# fuzz.sh - the fuzzing campaign: every libFuzzer target (tests/fuzz/fuzz_*.c) to
# FUZZ_RUNS executions in all (default 10^7) from the seed corpora of
# tests/fuzz/make_corpus.sh, and per target the executions done, executions per second,
# coverage (edges, features), corpus size and crashes in benchmarks/FUZZ.md (the table
# between the RESULTS markers). Not part of CI (CI runs each target 15 s in .ci/run).
#
# The campaign resumes: each target keeps its corpus (build-fuzz-campaign/corpus/, not
# committed) and a ledger of the chunks it has run (benchmarks/fuzz-ledger/<target>.tsv,
# committed: date, executions, seconds, edges, features, corpus, crashes), and a run only
# does what is left of FUZZ_RUNS, so a 2-core machine can reach 10^7 over several
# sittings and clones, the way continuous fuzzing services run in chunks over a growing
# corpus. A fresh clone starts again from the seeds, with the ledger's counts.
#
#   bash benchmarks/fuzz.sh                              # until 10^7 executions each
#   FUZZ_TIME=600 bash benchmarks/fuzz.sh                # at most 600 s per target now
#   FUZZ_TARGETS="fuzz_csv fuzz_numbers" bash benchmarks/fuzz.sh
#   FUZZ_REPORT_ONLY=1 bash benchmarks/fuzz.sh           # rewrite the table from the ledgers
#
# Build: clang, ASan+UBSan, -O2 -g (RelWithDebInfo) in build-fuzz-campaign/: sanitizers
# keep their checks at -O2, and it runs 3-10x faster than CI's -O0 build. Inputs are at
# most FUZZ_MAX_LEN bytes (default 4096, libFuzzer's own default without a corpus): longer
# seeds are cut, which keeps the header and first rows of every real file. Crash, leak,
# timeout (FUZZ_TIMEOUT s per input, default 25) and out-of-memory inputs are kept under
# build-fuzz-campaign/artifacts/<target>/ and counted.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${FUZZ_RUNS:-10000000}
max_time=${FUZZ_TIME:-0}
max_len=${FUZZ_MAX_LEN:-4096}
timeout=${FUZZ_TIMEOUT:-25}
shared=${AUG_SHARED_DIR:-$PWD/../shared}
dir=build-fuzz-campaign

if [ -z "${FUZZ_REPORT_ONLY:-}" ]; then
    if [ ! -f "$dir/CMakeCache.txt" ]; then
        CC=clang cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAUG_FUZZ=ON \
            -DAUG_PROFILER=OFF >/dev/null
    fi
    cmake --build "$dir" -j"${FUZZ_JOBS:-2}" >/dev/null
    AUG_SHARED_DIR=$shared bash tests/fuzz/make_corpus.sh "$dir/seeds" >/dev/null
fi
ledger=${FUZZ_LEDGER:-benchmarks/fuzz-ledger}
mkdir -p "$ledger"

targets=${FUZZ_TARGETS:-$(cd "$dir/tests" && ls fuzz_* | grep -v '\.' | sort)}

# executions already in a target's ledger (column 2 of every chunk)
done_so_far() {
    local f=$ledger/$1.tsv
    [ -f "$f" ] && awk -F'\t' '{s += $2} END {printf "%d", s}' "$f" || echo 0
}

for t in $targets; do
    [ -n "${FUZZ_REPORT_ONLY:-}" ] && break
    bin=$dir/tests/$t
    [ -x "$bin" ] || continue
    left=$((runs - $(done_so_far "$t")))
    if [ "$left" -le 0 ]; then
        echo "$t: $runs executions reached"
        continue
    fi
    corpus=$dir/corpus/$t
    art=$dir/artifacts/$t
    mkdir -p "$corpus" "$art" "$dir/seeds/$t"
    # one log per chunk: chunks of one target may run side by side on separate cores
    log=$dir/artifacts/$t.$(date -u +%Y%m%dT%H%M%S).$$.log
    before=$(ls "$art" | grep -cE '^(crash|leak|timeout|oom|slow-unit)-' || true)
    start=$SECONDS
    set +e
    "$bin" -runs="$left" -max_total_time="$max_time" -max_len="$max_len" -timeout="$timeout" \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$art/" "$corpus" \
        "$dir/seeds/$t" >"$log" 2>&1
    rc=$?
    set -e
    secs=$((SECONDS - start))
    execs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
    if [ -z "$execs" ]; then # killed before its final stats: the last status line
        execs=$(grep -E '^#[0-9]+' "$log" | tail -1 | sed -E 's/^#([0-9]+).*/\1/' || true)
    fi
    execs=${execs:-0}
    last=$(grep -E '^#[0-9]+[[:space:]]+(DONE|NEW|REDUCE|pulse|INITED)' "$log" | tail -1 || true)
    cov=$(echo "$last" | sed -nE 's/.*cov: ([0-9]+).*/\1/p')
    ft=$(echo "$last" | sed -nE 's/.*ft: ([0-9]+).*/\1/p')
    corp=$(echo "$last" | sed -nE 's/.*corp: ([0-9]+\/[0-9]+[a-zA-Z]*).*/\1/p')
    after=$(ls "$art" | grep -cE '^(crash|leak|timeout|oom)-' || true)
    crashes=$((after - before))
    [ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ] && crashes=1 && echo "$t: exit $rc, see $log"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" "$execs" "$secs" \
        "${cov:-0}" "${ft:-0}" "${corp:-0}" "$crashes" >>"$ledger/$t.tsv"
    printf '%-28s +%10s execs in %5ss  (total %s)  cov %5s  ft %6s  crashes %s\n' \
        "$t" "$execs" "$secs" "$(done_so_far "$t")" "${cov:-0}" "${ft:-0}" "$crashes"
done

# the table: totals over every chunk of the ledger; coverage and corpus of the last chunk
rows=""
for t in $targets; do
    f=$ledger/$t.tsv
    [ -f "$f" ] || continue
    rows+=$(awk -F'\t' -v t="$t" -v goal="$runs" '
        { e += $2; s += $3; c += $7; n++; cov = $4; ft = $5; corp = $6; last = $1 }
        END { printf "| %s | %d | %s | %d | %d | %d | %d | %s | %d | %s |\n", t, e,
                     (e >= goal ? "yes" : "no"), (s > 0 ? e / s : 0), cov, ft, n, corp, c, last }' "$f")
    rows+=$'\n'
done
md=benchmarks/FUZZ.md
table="<!-- RESULTS BEGIN -->"$'\n'
table+="Campaign ledger as of $(date -u +%Y-%m-%d) ($(nproc) cores, clang $(clang -dumpversion), ASan+UBSan, -O2, max_len $max_len, goal $runs executions per target):"$'\n\n'
table+="| target | executions | goal reached | exec/s | edges | features | chunks | corpus | crashes | last chunk |"$'\n'
table+="|---|---:|---|---:|---:|---:|---:|---|---:|---|"$'\n'
table+="$rows<!-- RESULTS END -->"
if [ -f "$md" ] && grep -q 'RESULTS BEGIN' "$md"; then
    awk -v t="$table" '/RESULTS BEGIN/ { print t; skip = 1 } /RESULTS END/ { skip = 0; next } !skip' \
        "$md" > "$md.tmp.$$" && mv "$md.tmp.$$" "$md"
else
    printf '%s\n' "$table" >> "$md"
fi
