#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make_root.sh - a kernels-db root for `--kdb` that predicts with another set of tables:
#
#   kernels-db/make_root.sh public|profiled DIR
#
# public:   every GPU's curves.csv, as shipped (the default tables).
# profiled: each GPU's curves-profiled.csv (augur-profile's own runs) where it has one,
#           plus the collective rows of its curves.csv (one GPU measures no collective);
#           every other GPU keeps its curves.csv.
# DIR gets gpus.csv and <gpu>/curves.csv; it must not exist yet or be empty.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ne 2 ] || { [ "$1" != public ] && [ "$1" != profiled ]; }; then
    echo "usage: kernels-db/make_root.sh public|profiled DIR" >&2
    exit 2
fi
which=$1 dir=$2
if [ -e "$dir" ] && [ -n "$(ls -A "$dir")" ]; then
    echo "make_root.sh: '$dir' exists and is not empty" >&2
    exit 2
fi
mkdir -p "$dir"
cp "$here/gpus.csv" "$dir/"
for d in "$here"/*/; do
    g=$(basename "$d")
    mkdir -p "$dir/$g"
    if [ "$which" = profiled ] && [ -f "$d/curves-profiled.csv" ]; then
        cp "$d/curves-profiled.csv" "$dir/$g/curves.csv"
        if [ -f "$d/curves.csv" ]; then
            grep '^collective,' "$d/curves.csv" >> "$dir/$g/curves.csv" || true
        fi
    elif [ -f "$d/curves.csv" ]; then
        cp "$d/curves.csv" "$dir/$g/curves.csv"
    fi
done
