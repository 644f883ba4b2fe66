#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fits the gemm_scale of the Blackwell rows of kernels-db/gpus.csv (sm_arch 100: B200,
# GB200), the share of their achievable tensor-core rates the GEMM main loop holds in
# training, on the dense B200/GB200 runs of benchmarks/accuracy/training.csv, and reports
# the MoE set's B200/GB200 runs held out (no MoE row takes part in the fit) and, for each
# software release among the dense runs, its error when the share is fitted on the others.
#
#   benchmarks/blackwell_fit.sh build/predictor/augur [kernels-db]
#
# No Blackwell kernel sweep has reached augur: without this share Blackwell GEMMs run at
# the A100/H100 share (0.89) of the best-shape "Maximum Achievable Matmul FLOPS" and fp8
# at 0.65 of the datasheet peak. The fit is a grid over 0.60-1.00 in steps of 0.01 that
# minimizes the MAPE of the dense rows; every candidate is a copy of kernels-db with that
# value in the two rows.
set -euo pipefail
AUGUR=${1:?usage: blackwell_fit.sh path/to/augur [kernels-db]}
KDB=${2:-$(cd "$(dirname "$0")/.." && pwd)/kernels-db}
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# MAPE and row count of the "by group" lines of `augur validate --group-by system[,...]`
# whose system (the first cell of the key, field 9) is a Blackwell one
blackwell_mape() {
    awk '$1 == "rows" && $9 ~ /^(dgx-b200|gb200-nvl72)$/ { n += $2; gsub("%", "", $4); s += $2 * $4 }
         END { if (n) printf "%.2f %d\n", s / n, n; else print "nan 0" }' "$1"
}

scaled_kdb() { # $1: value -> $TMP/kdb with it in the sm_arch 100 rows
    rm -rf "$TMP/kdb"
    cp -R "$KDB" "$TMP/kdb"
    awk -F, -v OFS=, -v v="$1" '
        /^#/ || NF < 2 { print; next }
        $1 == "gpu_id" { for (i = 1; i <= NF; i++) { if ($i == "sm_arch") a = i; if ($i == "gemm_scale") c = i }
                         print; next }
        $a == 100 { $c = v } { print }' "$KDB/gpus.csv" > "$TMP/kdb/gpus.csv"
}

best=""
best_mape=""
printf '%-8s %16s %22s %12s\n' "scale" "dense_MAPE%(n)" "moe_blackwell_MAPE%(n)" "moe_MAPE%"
for i in $(seq 60 100); do
    v=$(awk -v i="$i" 'BEGIN { printf "%.2f", i / 100 }')
    scaled_kdb "$v"
    # one run of each set per share: the training set by system and source (the dense
    # Blackwell rows in all, and by software release below), the MoE set by system
    "$AUGUR" validate "$HERE/accuracy/training.csv" --kdb "$TMP/kdb" --group-by system,source \
        --summary > "$TMP/dense"
    "$AUGUR" validate "$HERE/accuracy/training_moe.csv" --kdb "$TMP/kdb" --group-by system \
        --summary > "$TMP/moe"
    read -r dm dn < <(blackwell_mape "$TMP/dense")
    read -r mm mn < <(blackwell_mape "$TMP/moe")
    all=$(awk '/^rows predicted/ { gsub("[%,]", "", $7); print $7 }' "$TMP/moe")
    # the dense Blackwell rows by software release (the first 'NN.NN' container or release
    # version each source names; a source naming none takes part in the fit on all only),
    # for the leave-one-release-out check below
    awk -v v="$v" '$1 == "rows" && $9 ~ /^(dgx-b200|gb200-nvl72)$/ &&
                   match($0, /[0-9][0-9]\.[0-9][0-9]/) {
        r = substr($0, RSTART, RLENGTH); gsub("%", "", $4); print v, r, $2, $2 * $4 }' \
        "$TMP/dense" >> "$TMP/by_release"
    printf '%-8s %12s (%s) %18s (%s) %12s\n' "$v" "$dm" "$dn" "$mm" "$mn" "$all"
    if [ -z "$best" ] || awk -v a="$dm" -v b="$best_mape" 'BEGIN { exit !(a < b) }'; then
        best=$v
        best_mape=$dm
    fi
done
echo "fit on the dense B200/GB200 rows: gemm_scale $best (dense MAPE $best_mape%)"

# Leave one release out: the share fitted on the dense rows of the other software releases,
# and the MAPE of the release left out at that share (in brackets: at the fit on all).
echo "leave one release out (dense B200/GB200 rows):"
awk -v all="$best" '
    { n[$1, $2] += $3; s[$1, $2] += $4; N[$1] += $3; S[$1] += $4; rel[$2] = 1; sc[$1] = 1 }
    END {
        for (r in rel) {
            b = ""
            for (v in sc) {
                m = (S[v] - s[v, r]) / (N[v] - n[v, r])
                if (b == "" || m < bm || (m == bm && v < b)) { b = v; bm = m }
            }
            printf "  release %s (%d rows): fitted on the others %s, its MAPE %.2f%% [%.2f%% at %s]\n",
                   r, n[b, r], b, s[b, r] / n[b, r], s[all, r] / n[all, r], all
        }
    }' "$TMP/by_release" | sort
