#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Man pages from `--help`: augur(1) and one augur-<command>(1) per command, written by
# help2man into OUTDIR. The command list and one-line names are fixed here; nothing from
# the outside reaches the shell.
#   make_man.sh AUGUR_BINARY OUTDIR
set -eu
augur=$1
out=$2
mkdir -p "$out"
page() { # page NAME "one line" [HELP-OPTION]
    name=$1
    what=$2
    opt=${3:---help}
    help2man --no-info --no-discard-stderr --version-option=--version --help-option="$opt" \
        --name="$what" --section=1 --manual="augur manual" "$augur" > "$out/$name.1.tmp"
    if [ "$name" != augur ]; then
        up=$(echo "$name" | tr 'a-z' 'A-Z')
        # help2man titles every page after the binary: retitle the command's page
        sed -e "s/^\.TH AUGUR /.TH $up /" -e "s/^augur \\\\- /$name \\\\- /" \
            "$out/$name.1.tmp" > "$out/$name.1"
        rm -f "$out/$name.1.tmp"
    else
        mv "$out/$name.1.tmp" "$out/$name.1"
    fi
}
page augur "predict LLM training and serving time and memory on GPU systems"
page augur-train "predict one training iteration (time, MFU, memory)" "train --help"
page augur-infer "predict serving latency and throughput (TTFT, TPOT)" "infer --help"
page augur-sweep "search every parallelization plan; Pareto front; what-if hardware" "sweep --help"
page augur-validate "score predictions against measured runs" "validate --help"
page augur-kernel "predict one kernel's time and say where it came from" "kernel --help"
page augur-calibrate "fit efficiency curves from measurements into kernels-db" "calibrate --help"
page augur-models "list model presets; show how a model file is read" "models --help"
page augur-systems "list system presets" "systems --help"
