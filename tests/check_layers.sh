#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# check_layers.sh - the library's layers use only the layers below them (predictor/README.md):
# every undefined symbol of an object file of layer L must not be defined by an object file
# of a layer above L. Usage: check_layers.sh OBJECT_DIR (the augur_objs.dir of a build).
set -euo pipefail
dir=${1:?usage: check_layers.sh path/to/augur_objs.dir}
# no object files is a wrong folder, not a clean layering
if ! compgen -G "$dir/core/*.o" >/dev/null; then
    echo "layering: no object files under $dir/core" >&2
    exit 1
fi
layers=(core hw model train infer explore validate)
# train and infer share a rank: neither may use the other
declare -A rank=([core]=0 [hw]=1 [model]=2 [train]=3 [infer]=3 [explore]=4 [validate]=5)
defs=$(mktemp)
trap 'rm -f "$defs"' EXIT
for l in "${layers[@]}"; do
    for o in "$dir/$l"/*.o; do
        [ -e "$o" ] || continue
        nm --defined-only "$o" | awk -v l="$l" -v f="$(basename "$o")" \
            '$2 ~ /^[TDBR]$/ {print $3, l, f}'
    done
done >"$defs"
bad=0
for l in "${layers[@]}"; do
    for o in "$dir/$l"/*.o; do
        [ -e "$o" ] || continue
        while read -r sym dl df; do
            if [ "${rank[$dl]}" -gt "${rank[$l]}" ] || { [ "$dl" != "$l" ] && [ "${rank[$dl]}" -eq "${rank[$l]}" ]; }; then
                echo "layering: $l/$(basename "$o" .o) uses $sym from $dl/${df%.o}" >&2
                bad=1
            fi
        done < <(nm -u "$o" | awk '{print $2}' | sort -u | join - <(sort "$defs"))
    done
done
[ "$bad" -eq 0 ] && echo "layering: every layer uses only the layers below it"
exit "$bad"
