#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Rewrite the per-row baselines CI compares each accuracy set with (check.sh,
# `augur validate --baseline --max-shift`): the JSON report of every set, predicted with the
# default kernels-db. Run it in the commit that moves a row on purpose, so that the diff of
# baseline/*.json shows each row the change moved. Usage: update_baselines.sh path/to/augur
set -euo pipefail
AUGUR=${1:?usage: update_baselines.sh path/to/augur}
HERE=$(cd "$(dirname "$0")" && pwd)
for set in training inference training_moe inference_throughput; do
    "$AUGUR" validate "$HERE/$set.csv" --format json --output "$HERE/baseline/$set.json"
    echo "baseline/$set.json: $("$AUGUR" validate "$HERE/$set.csv" --summary | tail -1)"
done
