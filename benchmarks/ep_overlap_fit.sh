#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fits moe_overlap_realized (predictor/hw/efficiency.c), the share of the time Megatron-Core's
# EP all-to-all overlap schedule hides that a run shows, on the one published pair of runs
# that differ only in that overlap, and reports the accuracy rows that use the overlap, held
# out (none of them takes part in the fit).
#
#   benchmarks/ep_overlap_fit.sh build/predictor/augur
#
# The pair: Qwen3-235B-A22B on 256 H100 with DeepEP, TP 2 (sequence parallel), EP 32, ETP 1,
# PP 8, VPP 4, micro-batch 1, global batch 2048 of 4096 tokens, selective recompute of
# layernorm and moe_act, 19.7 s per step without and 17.6 s with "+1f1b overlap"
# (yanring/Megatron-MoE-ModelZoo e865051, best_practice/qwen3/readme.md, H100 table,
# "Cross-node EP strategy"; the repository's model config: embedding and loss in the
# pipeline split, TE cross-entropy; bf16 runs add --tp-comm-overlap). The measured share it
# saves, applied to augur's step without the overlap, over what augur's full schedule hides:
#   realized = (1 - 17.6 / 19.7) x T_none / (T_none - T_full).
set -euo pipefail
AUGUR=${1:?usage: ep_overlap_fit.sh path/to/augur}
HERE=$(cd "$(dirname "$0")" && pwd)
plan=(train --model qwen3-235b-a22b --system dgx-h100 --gpus 256 --tp 2 --sp --pp 8
      --interleave 4 --ep 32 --etp 1 --micro-batch 1 --global-batch 2048 --seq 4096 --zero 1
      --recompute-modules layernorm,moe_act --pp-embed-loss-slots --moe-dispatcher deepep
      --tp-overlap --cross-entropy te --dp-overlap --format json)
step() { "$AUGUR" "${plan[@]}" "$@" | awk -F'[:,]' '/"step_time_s"/ { gsub(/ /, "", $2); print $2; exit }'; }
t_none=$(step --moe-overlap none)
t_full=$(step --moe-overlap batch --moe-overlap-realized 1)
awk -v n="$t_none" -v f="$t_full" 'BEGIN {
    saved = 1 - 17.6 / 19.7
    printf "augur: %.2f s without the overlap, %.2f s with its full schedule (%.1f%% saved)\n", n, f, 100 * (1 - f / n)
    printf "measured: 19.7 s -> 17.6 s (%.2f%% saved)\n", 100 * saved
    printf "realized = %.4f x %.3f / %.3f = %.3f\n", saved, n, n - f, saved * n / (n - f)
}'
echo "held out (rows of benchmarks/accuracy/training_moe.csv with moe_overlap batch), error now:"
"$AUGUR" validate "$HERE/accuracy/training_moe.csv" --format csv |
    awk -F, 'NR > 1 && $1 ~ /qwen3/ { printf "  %s %+.1f%%\n", $1, $(NF - 4) }'
