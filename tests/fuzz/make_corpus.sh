#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make_corpus.sh OUT - seed corpora for the fuzz targets (tests/fuzz/fuzz_<t>.c), one
# folder per target under OUT, from real files read where they live: kernels-db/, the
# presets, benchmarks/accuracy/ and, when present, ../shared (vTrain LUTs, Vidur profiles,
# validation sets). Nothing is copied into the repository. Large CSV files are cut into
# pieces of their comment lines, header and SEED_ROWS rows, so that every seed is a real
# file's shape but small enough for thousands of executions per second.
set -euo pipefail
out=${1:?usage: make_corpus.sh OUT}
src=$(cd "$(dirname "$0")/../.." && pwd)
shared=${AUG_SHARED_DIR:-$src/../shared}
rows=${SEED_ROWS:-16}
mkdir -p "$out"

# cut FILE DIR PREFIX [ROWS [PIECES]]: comment lines + header + ROWS data rows per piece
# (default $rows), at most PIECES pieces (default: all)
cut_csv() {
    awk -v dir="$2" -v pre="$3" -v rows="${4:-$rows}" -v pieces="${5:-0}" '
        /^#/ && !seen { head = head $0 "\n"; next }
        !seen { head = head $0 "\n"; seen = 1; next }
        pieces > 0 && n >= rows * pieces { next }
        { if (n % rows == 0) { k++; f = sprintf("%s/%s_%03d.csv", dir, pre, k); printf "%s", head > f }
          print >> f; n++; if (n % rows == 0) close(f) }
        END { if (!n) { f = sprintf("%s/%s_000.csv", dir, pre); printf "%s", head > f } }
    ' "$1"
}

# split_json FILE DIR PREFIX: each object of the presets' top-level array, one file each
split_json() {
    awk -v dir="$2" -v pre="$3" '
        /^    \{/ { k++; f = sprintf("%s/%s_%03d.json", dir, pre, k); inobj = 1 }
        inobj { sub(/^    /, ""); line = $0; if (line ~ /^\},?$/) { print "}" > f; close(f); inobj = 0 } else print line > f }
    ' "$1"
}

t() { mkdir -p "$out/$1"; echo "$out/$1"; }

# CSV reader: every kind of CSV augur reads
d=$(t fuzz_csv)
for g in "$src"/kernels-db/*/; do
    id=$(basename "$g")
    [ -f "$g/curves.csv" ] && cut_csv "$g/curves.csv" "$d" "curves_$id"
    for r in "$g"/raw/*.csv; do [ -f "$r" ] && cut_csv "$r" "$d" "raw_${id}_$(basename "$r" .csv)"; done
done
cut_csv "$src/kernels-db/gpus.csv" "$d" gpus
for a in "$src"/benchmarks/accuracy/*.csv; do cut_csv "$a" "$d" "acc_$(basename "$a" .csv)"; done

# curves.csv rows, gpus.csv rows
d=$(t fuzz_curves_csv)
for g in "$src"/kernels-db/*/; do
    [ -f "$g/curves.csv" ] && cut_csv "$g/curves.csv" "$d" "curves_$(basename "$g")"
done
d=$(t fuzz_gpus_csv)
cp "$src/kernels-db/gpus.csv" "$d/gpus.csv"
cut_csv "$src/kernels-db/gpus.csv" "$d" gpus

# numbers and sizes: every distinct numeric cell of kernels-db, and the size spellings
d=$(t fuzz_numbers)
{ cat "$src"/kernels-db/*/curves.csv "$src/kernels-db/gpus.csv" | grep -v '^#' | tr ',' '\n'
  printf '%s\n' 64Mi 1Gi 2GiB 512K 1.5Ki 1e3 8.0 -1 0 4096 1T 0.25; } |
    grep -E '^[-+0-9.eE]+[KMGTiB]*$' | sort -u | awk 'NR <= 400' |
    awk -v dir="$d" '{ f = sprintf("%s/n_%04d", dir, NR); printf "%s", $0 > f; close(f) }'

# profiler raw files (resume reader) and calibrate's raw importer: the same schema
for target in fuzz_profiler_rawcsv fuzz_import_raw; do
    d=$(t $target)
    for g in "$src"/kernels-db/*/; do
        for r in "$g"/raw/*.csv; do
            [ -f "$r" ] && cut_csv "$r" "$d" "raw_$(basename "$g")_$(basename "$r" .csv)"
        done
    done
done

# augur-profile --shapes: raw GEMM files (every row a GEMM with m, n, k and dtype), an
# --ops listing's layout (kinds, empty shape cells, fractional means, batches) and a bare list
d=$(t fuzz_gemm_shapes)
for g in "$src"/kernels-db/*/; do
    [ -f "$g/raw/gemm.csv" ] && cut_csv "$g/raw/gemm.csv" "$d" "raw_$(basename "$g")_gemm"
done
printf '%s\n' 'list,op,kind,count,source,dtype,m,n,k,batch' \
    'fwd,qkv,gemm,256,curve,bf16,4096,6144,4096,1' 'fwd,attn_fwd,attention,256,fallback,bf16,,,,' \
    'fwd,expert_up,gemm,256,fallback,fp8,4236.4,28672,4096,2' \
    'iteration,optimizer,schedule,1,schedule,,,,,' > "$d/ops_listing"
printf '%s\n' 'm,n,k' '648,6144,4096' '640,6144,4096' > "$d/bare_list"

# nccl-tests: the vTrain all-reduce tables (nccl-tests runs in the LUT layout), and one
# text log and one -J JSON file in the layouts nccl-tests prints (src/common.cu and
# src/util.cu of nccl-tests 2.15; the same shapes tests/test_import_nccl_tests.c checks)
d=$(t fuzz_import_nccl_tests)
if [ -d "$shared/external/vtrain/trace" ]; then
    for l in "$shared"/external/vtrain/trace/*/*_LUT; do
        cut_csv "$l" "$d" "$(basename "$(dirname "$l")")_$(basename "$l")"
    done
fi
cat > "$d/text_all_reduce.txt" <<'EOF'
# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid  41 on     node-a device  0 [0x07] NVIDIA A100-SXM4-80GB
#  Rank  1 Group  0 Pid  42 on     node-a device  1 [0x0f] NVIDIA A100-SXM4-80GB
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
           8             2     float     sum      -1    30.00    0.00    0.00      0    34.00    0.00    0.00      0
     1048576        262144     float     sum      -1    100.0   10.49   10.49      0    110.0    9.53    9.53      0
   134217728      33554432     float     sum      -1   2000.0   67.11   67.11      0   2010.0   66.78   66.78      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 25.9
EOF
cat > "$d/json_reduce_scatter.json" <<'EOF'
{"version":2,"start_time":"2025-06-01 10:00:00","args":["./build/reduce_scatter_perf","-b","0","-e","64M","-g","4","-J","rs.json"],"env":["NCCL_DEBUG=WARN"],"nccl_version":22703,"config":{"nthreads":1,"ngpus":4,"minimum_bytes":0,"maximum_bytes":67108864,"step_factor":2,"warmup_iters":5,"iterations":20,"aggregated_iterations":1,"validation":1,"graph":0,"blocking_collectives":"false","per_iter_timing":"false","parallel_init":"false","devices":[{"rank":0,"group":0,"pid":10,"hostname":"n1","device":0,"device_hex":"0000:07:00","device_info":"NVIDIA H100 80GB HBM3"}]},"results":[{"size":0,"count":0,"type":"bfloat16","redop":"sum","root":"    -1","out_of_place":{"time":0.3,"alg_bw":0,"bus_bw":0,"nwrong":0},"in_place":{"time":0.2,"alg_bw":0,"bus_bw":0,"nwrong":0},"actual_iterations":20,"experiment_name":""},{"size":67108864,"count":4194304,"type":"bfloat16","redop":"sum","root":"    -1","out_of_place":{"time":1200.0,"alg_bw":55.9,"bus_bw":41.9,"nwrong":0},"in_place":{"time":1300.0,"alg_bw":51.6,"bus_bw":38.7,"nwrong":0},"actual_iterations":20,"experiment_name":""}],"out_of_bounds":{"count":0,"okay":"true"},"average_bus_bandwidth":{"bandwidth":20.1,"okay":"unchecked"},"errors":[],"end_time":"2025-06-01 10:00:05"}
EOF

# Vidur profiles
if [ -d "$shared/external/vidur/data" ]; then
    d=$(t fuzz_import_vidur_mlp)
    i=0
    while IFS= read -r f; do
        i=$((i + 1)); cut_csv "$f" "$d" "mlp_$i"
    done < <(find "$shared/external/vidur/data" -name 'mlp.csv' | sort | awk 'NR <= 8')
    d=$(t fuzz_import_vidur_network)
    i=0
    while IFS= read -r f; do
        i=$((i + 1)); cut_csv "$f" "$d" "net_$i"
    done < <(find "$shared/external/vidur/data/profiling/network" -name '*.csv' | sort | awk 'NR <= 8')
fi

# NeuSight operator CSVs: two pieces of 6 rows of every operator on every GPU (file names
# hold spaces; their rows carry long quoted kernel names, so fewer rows per seed)
if [ -d "$shared/external/neusight/scripts/asplos/data/dataset/train/collect" ]; then
    d=$(t fuzz_import_neusight)
    while IFS= read -r f; do
        op=$(basename "$(dirname "$(dirname "$f")")")
        dev=$(basename "$f" .csv | tr -c 'A-Za-z0-9\n' '_')
        cut_csv "$f" "$d" "${op}_${dev}" 6 2
    done < <(find "$shared/external/neusight/scripts/asplos/data/dataset/train/collect" \
                  -name '*.csv' -path '*/p2.1.0/*' | sort)
fi

# model and system JSON: the presets, one object per file
d=$(t fuzz_model_json)
split_json "$src/predictor/presets/models.json" "$d" model
d=$(t fuzz_system_json)
split_json "$src/predictor/presets/systems.json" "$d" system

# saved validate reports (baselines): the MoE set's, and a short one with a skipped row
d=$(t fuzz_validate_baseline)
cp "$src/benchmarks/accuracy/baseline/training_moe.json" "$d/training_moe.json"
cat > "$d/short.json" <<'EOF'
{"schema_version": 1, "mape_pct": 12.5, "predicted_rows": 2,
 "rows": [{"id": "a", "error_pct": -10.0}, {"id": "b", "error_pct": 15}],
 "skipped": [{"id": "c", "reason": "no plan"}]}
EOF

# Hugging Face config.json files, as published on the Hub (transformers' own keys)
d=$(t fuzz_hf_config)
cat > "$d/llama-2-7b-hf.json" <<'EOF'
{
  "_name_or_path": "meta-llama/Llama-2-7b-hf",
  "architectures": ["LlamaForCausalLM"],
  "bos_token_id": 1,
  "eos_token_id": 2,
  "hidden_act": "silu",
  "hidden_size": 4096,
  "initializer_range": 0.02,
  "intermediate_size": 11008,
  "max_position_embeddings": 4096,
  "model_type": "llama",
  "num_attention_heads": 32,
  "num_hidden_layers": 32,
  "num_key_value_heads": 32,
  "pretraining_tp": 1,
  "rms_norm_eps": 1e-05,
  "rope_scaling": null,
  "tie_word_embeddings": false,
  "torch_dtype": "float16",
  "transformers_version": "4.31.0.dev0",
  "use_cache": true,
  "vocab_size": 32000
}
EOF
cat > "$d/gpt2.json" <<'EOF'
{
  "activation_function": "gelu_new",
  "architectures": ["GPT2LMHeadModel"],
  "attn_pdrop": 0.1,
  "bos_token_id": 50256,
  "embd_pdrop": 0.1,
  "eos_token_id": 50256,
  "initializer_range": 0.02,
  "layer_norm_epsilon": 1e-05,
  "model_type": "gpt2",
  "n_ctx": 1024,
  "n_embd": 768,
  "n_head": 12,
  "n_layer": 12,
  "n_positions": 1024,
  "resid_pdrop": 0.1,
  "summary_activation": null,
  "summary_first_dropout": 0.1,
  "summary_proj_to_labels": true,
  "summary_type": "cls_index",
  "summary_use_proj": true,
  "task_specific_params": {"text-generation": {"do_sample": true, "max_length": 50}},
  "vocab_size": 50257
}
EOF
cat > "$d/mixtral-8x7b.json" <<'EOF'
{
  "architectures": ["MixtralForCausalLM"],
  "attention_dropout": 0.0,
  "bos_token_id": 1,
  "eos_token_id": 2,
  "hidden_act": "silu",
  "hidden_size": 4096,
  "initializer_range": 0.02,
  "intermediate_size": 14336,
  "max_position_embeddings": 32768,
  "model_type": "mixtral",
  "num_attention_heads": 32,
  "num_experts_per_tok": 2,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "num_local_experts": 8,
  "output_router_logits": false,
  "rms_norm_eps": 1e-05,
  "rope_theta": 1000000.0,
  "router_aux_loss_coef": 0.02,
  "sliding_window": null,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.36.0.dev0",
  "use_cache": true,
  "vocab_size": 32000
}
EOF
cp "$out"/fuzz_model_json/model_00[1-3].json "$d/" 2>/dev/null || true

# validation rows: the first byte picks the header validate_row_input.h prepends (0: none).
# fuzz_validate_row only reads and resolves rows: 16-row pieces, 4 per file. For
# fuzz_validate_predict every row is a whole prediction (an offline-serving row simulates
# its request list, about 2 s under the fuzzers' sanitizers), so its seeds are 2 rows each
# and 4 pieces per file: every schema's shape, and libFuzzer's first pass stays short.
for target_rows in fuzz_validate_row:16 fuzz_validate_predict:2; do
    d=$(t "${target_rows%%:*}")
    tmp=$(mktemp -d)
    for a in "$src"/benchmarks/accuracy/*.csv "$shared"/validation/*.csv \
             "$shared"/external/vtrain/data/ground_truth_single.csv; do
        [ -f "$a" ] && cut_csv "$a" "$tmp" "$(basename "$(dirname "$a")")_$(basename "$a" .csv)" \
            "${target_rows##*:}" 4
    done
    for f in "$tmp"/*.csv; do { printf '\0'; cat "$f"; } > "$d/$(basename "$f")"; done
    rm -rf "$tmp"
done

for d in "$out"/*/; do printf '%-28s %5d seeds\n' "$(basename "$d")" "$(ls "$d" | wc -l)"; done
