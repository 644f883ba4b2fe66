#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# profiled.sh - augur-profile's own measurements (kernels-db/<gpu>/raw/, fitted into
# curves-profiled.csv) against the public-data tables (curves.csv), on H100 and H200:
#
#   1. what the GPU reached: the best bf16 and fp8 GEMM rate, the HBM copy bandwidth and
#      cuDNN's fused attention rate, from the raw rows, against the datasheet;
#   2. kernel by kernel: every measured GEMM, attention and memory point predicted with
#      each table, median signed and absolute error per dtype and time band;
#   3. end to end: `augur validate` on every accuracy set with each table.
#
#   benchmarks/profiled.sh [AUGUR] [SHARED]     (defaults build/predictor/augur, ../shared)
#
# The two kernels-db roots are made by kernels-db/make_root.sh (public, profiled).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
augur=${1:-$here/build/predictor/augur}
shared=${2:-$here/../shared}
kdb=$here/kernels-db
[ -x "$augur" ] || { echo "profiled.sh: no augur binary at $augur" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the two kernels-db roots
for which in public profiled; do
    sh "$kdb/make_root.sh" "$which" "$tmp/$which"
done

# the data rows of raw files, header line kept, comments dropped
rows() { grep -hv '^#' "$@" | awk 'NR == 1 || !/^family,/'; }
# spec GPU COLUMN: one figure of kernels-db/gpus.csv
spec() {
    grep -v '^#' "$kdb/gpus.csv" | awk -F, -v g="$1" -v col="$2" '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next } $1 == g { print $c }'
}
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", 100 * a / b }'; }
# section TITLE HEADER...: a markdown heading and a table head
section() {
    printf '%s\n\n' "$1"; shift
    local head="|" rule="|" h
    for h in "$@"; do head="$head $h |"; rule="$rule --- |"; done
    printf '%s\n%s\n' "$head" "$rule"
}

section "## 1. What the GPU reached (raw rows, median time of each point)" \
    GPU "bf16 GEMM best" "fp8 GEMM best" "HBM copy, largest" "cuDNN fused attention fwd best"
for g in h100-80g h200-141g; do
    r=$kdb/$g/raw
    [ -f "$r/gemm.csv" ] || continue
    rows "$r/gemm.csv" "$r/gemm-full.csv" | awk -F, -v g="$g" '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { t = $c["time_us_median"]; f = 2 * $c["m"] * $c["n"] * $c["k"] / t / 1e6
          if (f > best[$c["dtype"]]) { best[$c["dtype"]] = f; at[$c["dtype"]] = $c["m"] "x" $c["n"] "x" $c["k"] } }
        END { printf "%s %.0f %s %.0f %s\n", g, best["bf16"], at["bf16"], best["fp8"], at["fp8"] }' > "$tmp/g"
    rows "$r/memory.csv" | awk -F, '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["op"] == "copy" && $c["size_bytes"] + 0 > sz { sz = $c["size_bytes"]; bw = sz / $c["time_us_median"] / 1e3 }
        END { printf "%.0f %.0f\n", bw, sz / 1073741824 }' > "$tmp/m"
    rows "$r/attention.csv" | awk -F, '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["op"] == "fused_fwd" && $c["library"] == "cudnn_sdpa" {
          f = 4.0 * $c["batch"] * $c["heads"] * $c["seq_q"] * $c["seq_kv"] * $c["head_dim"]
          if ($c["causal"] == 1) f /= 2
          f = f / $c["time_us_median"] / 1e6
          if (f > best) { best = f; d = $c["head_dim"]; s = $c["seq_q"]; cz = $c["causal"] } }
        END { printf "%.0f %s %s %s\n", best, d, s, cz }' > "$tmp/a"
    read -r _ gb gat fb fat < "$tmp/g"
    read -r bw sz < "$tmp/m"
    read -r ab ad as ac < "$tmp/a"
    # against the datasheet figures of gpus.csv: dense peaks and HBM bandwidth
    p16=$(spec "$g" peak_tflops_bf16) p8=$(spec "$g" peak_tflops_fp8) hbm=$(spec "$g" hbm_gbps)
    printf "| %s | %s TFLOP/s (%s; %s%% of %s) | %s TFLOP/s (%s; %s%% of %s) | %s GB/s (%s GiB moved; %s%% of %s) | %s TFLOP/s (d=%s, s=%s, causal=%s; %s%% of %s) |\n" \
        "$g" "$gb" "$gat" "$(pct "$gb" "$p16")" "$p16" "$fb" "$fat" "$(pct "$fb" "$p8")" "$p8" \
        "$bw" "$sz" "$(pct "$bw" "$hbm")" "$hbm" "$ab" "$ad" "$as" "$ac" "$(pct "$ab" "$p16")" "$p16"
done
echo

section "## 2. Kernel by kernel: each table against the measured points

Signed error = predicted / measured - 1 (negative: the table is too fast)." \
    GPU kernels "measured time" points \
    "public curves.csv (h200-141g: transferred): median signed, median abs" \
    "profiled: median signed, median abs"
for g in h100-80g h200-141g; do
    r=$kdb/$g/raw
    [ -f "$r/gemm.csv" ] || continue
    : > "$tmp/pts"
    # one line per distinct point: kind key measured_us augur-kernel-arguments
    rows "$r/gemm.csv" "$r/gemm-full.csv" | awk -F, '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        ($c["dtype"] == "bf16" || $c["dtype"] == "fp8") {
          key = $c["dtype"] " " $c["m"] " " $c["n"] " " $c["k"]
          if (!(key in seen)) { seen[key] = 1
            printf "gemm-%s %s gemm --dtype %s --m %s --n %s --k %s\n", $c["dtype"], $c["time_us_median"], $c["dtype"], $c["m"], $c["n"], $c["k"] } }' >> "$tmp/pts"
    rows "$r/attention.csv" | awk -F, '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["library"] == "cudnn_sdpa" {
          printf "attn-%s %s attention --dtype bf16 --batch %s --heads %s --seq %s --seq-kv %s --head-dim %s%s\n",
                 $c["op"], $c["time_us_median"], $c["batch"], $c["heads"], $c["seq_q"], $c["seq_kv"], $c["head_dim"],
                 $c["causal"] == 1 ? " --causal" : "" }' >> "$tmp/pts"
    rows "$r/memory.csv" | awk -F, '
        NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["dtype"] == "bf16" {
          printf "mem-%s %s memory --dtype bf16 --op %s --bytes %s\n", $c["op"], $c["time_us_median"], $c["op"], $c["size_bytes"] }' >> "$tmp/pts"
    for which in public profiled; do
        while read -r kind meas args; do
            # shellcheck disable=SC2086
            t=$("$augur" kernel $args --gpu "$g" --kdb "$tmp/$which" --format csv | awk -F, '
                NR == 1 { for (i = 1; i <= NF; i++) if ($i == "time_s") c = i; next } { print $c * 1e6 }')
            echo "$kind $meas $t"
        done < "$tmp/pts" > "$tmp/pred-$which"
    done
    paste -d' ' "$tmp/pred-public" "$tmp/pred-profiled" | awk -v g="$g" '
        function band(t) { return t < 10 ? "< 10 us" : t < 100 ? "10-100 us" : ">= 100 us" }
        function med(a, n,   i, j, x) { for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
                                         return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
        { k = $1 "|" band($2); n[k]++; ps[k, n[k]] = $3 / $2 - 1; qs[k, n[k]] = $6 / $2 - 1 }
        END { for (k in n) { m = n[k]
                for (i = 1; i <= m; i++) { a[i] = ps[k, i]; b[i] = (ps[k, i] < 0 ? -ps[k, i] : ps[k, i]) } s1 = med(a, m); a1 = med(b, m)
                for (i = 1; i <= m; i++) { a[i] = qs[k, i]; b[i] = (qs[k, i] < 0 ? -qs[k, i] : qs[k, i]) } s2 = med(a, m); a2 = med(b, m)
                split(k, kb, "|")
                printf "| %s | %s | %s | %d | %+.1f%%, %.1f%% | %+.1f%%, %.1f%% |\n", g, kb[1], kb[2], m, 100 * s1, 100 * a1, 100 * s2, 100 * a2 } }' | sort
done
echo

section "## 3. End to end: augur validate with each table (MAPE)" \
    set "public curves.csv (h200-141g: none, transferred from h100-80g)" profiled
sets="$here/benchmarks/accuracy/training.csv $here/benchmarks/accuracy/inference.csv $here/benchmarks/accuracy/training_moe.csv $here/benchmarks/accuracy/inference_throughput.csv"
vt=$shared/external/vtrain/data/ground_truth_single.csv
[ -f "$vt" ] && sets="$sets vtrain:$vt"
for f in $sets; do
    imp=(); p=$f
    case $f in vtrain:*) imp=(--import vtrain); p=${f#vtrain:} ;; esac
    line="| $(basename "$(dirname "$p")")/$(basename "$p")"
    for which in public profiled; do
        m=$("$augur" validate "$p" "${imp[@]}" --kdb "$tmp/$which" --summary | awk '/^rows predicted/ { sub(/,.*/, ""); print $NF }')
        line="$line | $m"
    done
    echo "$line |"
done
