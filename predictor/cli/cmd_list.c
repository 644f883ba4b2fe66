/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_list.c - `augur models` and `augur systems`: the presets, one line each. */
#include <stdio.h>
#include <string.h>

#include "augur/augur.h"
#include "cli.h"
#include "commands.h"

static void model_line(const struct aug_model *m, void *user) {
    (void)user;
    char extra[64] = "";
    if (m->arch == AUG_ARCH_MOE)
        snprintf(extra, sizeof extra, " experts %ld top-%ld", m->moe_experts, m->moe_topk);
    printf("%-18s %-10s %8.2fB  layers %3ld  hidden %6ld  heads %3ld/%-3ld ffn %6ld  vocab %6ld  "
           "%s%s\n",
           m->name, aug_arch_name(m->arch), aug_model_params(m) / 1e9, m->layers, m->hidden,
           m->heads, m->kv_heads, m->ffn_hidden, m->vocab, aug_mlp_name(m->mlp), extra);
}

static void system_line(const struct aug_system *s, void *user) {
    (void)user;
    double cpu = aug_system_host_issue_scale(s);
    char host[48] = "";
    if (cpu != 1.0)
        snprintf(host, sizeof host, "  host issue x%.2f", cpu);
    printf("%-14s %-10s %-24s %2d GPUs/node  NVLink domain %3d  nvlink %6.0f GB/s  network "
           "%5.0f GB/s per GPU  bf16 %6.1f TFLOP/s  HBM %6.1f GiB %6.0f GB/s%s\n",
           s->name, s->gpu.id, s->gpu.name, s->gpus_per_node, s->nvlink_domain,
           s->link[AUG_LINK_NVLINK].bw_gbps, s->link[AUG_LINK_NETWORK].bw_gbps,
           s->gpu.peak_tflops[AUG_DTYPE_BF16], s->gpu.hbm_gib, s->gpu.hbm_gbps, host);
}

/* `augur models --show NAME`: the model as augur reads it, and every key of its file. */
static int show_model_json(const struct aug_model *m, const struct aug_model_record *rec) {
    json_t *o = json_object(), *f = json_object(), *keys = json_array();
    json_object_set_new(o, "name", json_string(m->name));
    json_object_set_new(o, "path", json_string(rec->path));
    json_object_set_new(o, "format", json_string(rec->format));
    json_object_set_new(o, "source", json_string(m->source));
    json_object_set_new(f, "arch", json_string(aug_arch_name(m->arch)));
    json_object_set_new(f, "layers", json_integer(m->layers));
    json_object_set_new(f, "hidden", json_integer(m->hidden));
    json_object_set_new(f, "heads", json_integer(m->heads));
    json_object_set_new(f, "kv_heads", json_integer(m->kv_heads));
    json_object_set_new(f, "head_dim", json_integer(m->head_dim));
    json_object_set_new(f, "ffn_hidden", json_integer(m->ffn_hidden));
    json_object_set_new(f, "vocab", json_integer(m->vocab));
    json_object_set_new(f, "max_seq", json_integer(m->max_seq));
    json_object_set_new(f, "mlp", json_string(aug_mlp_name(m->mlp)));
    json_object_set_new(f, "norm", json_string(m->norm == AUG_NORM_RMSNORM ? "rmsnorm" : "layernorm"));
    json_object_set_new(f, "pos", json_string(m->pos == AUG_POS_ROPE ? "rope" : "learned"));
    json_object_set_new(f, "tied_embeddings", json_boolean(m->tied_embeddings));
    json_object_set_new(f, "linear_bias", json_boolean(m->linear_bias));
    json_object_set_new(f, "moe_experts", json_integer(m->moe_experts));
    json_object_set_new(f, "moe_topk", json_integer(m->moe_topk));
    json_object_set_new(f, "moe_shared_experts", json_integer(m->moe_shared_experts));
    json_object_set_new(f, "parallel_block", json_integer(m->parallel_block));
    json_object_set_new(o, "fields", f);
    json_object_set_new(o, "params", json_real(aug_model_params(m)));
    for (int i = 0; i < rec->n; i++)
        json_array_append_new(keys, json_pack("{s:s,s:s,s:s}", "key", rec->keys[i].key, "read",
                                              aug_key_use_name(rec->keys[i].use), "why",
                                              rec->keys[i].why));
    json_object_set_new(o, "keys", keys);
    json_object_set_new(o, "keys_not_listed", json_integer(rec->n_more));
    int rc = aug_cli_write(stdout, AUG_FORMAT_JSON, o);
    json_decref(o);
    return rc;
}

static int show_model(const char *name, int json) {
    struct aug_model m;
    static struct aug_model_record rec;
    int st = aug_model_load_record(NULL, name, &m, &rec);
    if (st != AUG_OK)
        return aug_cli_fail(st, NULL);
    if (json)
        return show_model_json(&m, &rec);
    printf("# %s read from %s (%s)\n", m.name, rec.path, rec.format);
    printf("# source: %s\n", m.source);
    model_line(&m, NULL);
    printf("# fields: head_dim %ld, max_seq %ld, norm %s, pos %s, tied_embeddings %d, "
           "linear_bias %d, moe_shared_experts %ld, parallel_block %ld\n",
           m.head_dim, m.max_seq, m.norm == AUG_NORM_RMSNORM ? "rmsnorm" : "layernorm",
           m.pos == AUG_POS_ROPE ? "rope" : "learned", m.tied_embeddings, m.linear_bias,
           m.moe_shared_experts, m.parallel_block);
    if (m.attention == AUG_ATTN_MLA)
        printf("# latent attention: q_lora_rank %ld, kv_lora_rank %ld, qk_nope_head_dim %ld, "
               "qk_rope_head_dim %ld, v_head_dim %ld\n", m.q_lora_rank, m.kv_lora_rank,
               m.qk_nope_head_dim, m.qk_rope_head_dim, m.v_head_dim);
    if (m.sliding_window > 0)
        printf("# sliding_window %ld%s on %ld of %ld layers (global_attn_every %ld)\n",
               m.sliding_window, m.attn_chunked ? " (chunked)" : "",
               aug_model_window_layers(&m), m.layers, m.global_attn_every);
    if (m.arch == AUG_ARCH_MOE)
        printf("# moe: dense first layers %ld, moe_layer_freq %ld, dense_ffn_hidden %ld, "
               "groups %ld (top %ld), mtp_layers %ld\n", m.moe_dense_layers, m.moe_layer_freq,
               m.dense_ffn_hidden, m.moe_groups, m.moe_topk_groups, m.mtp_layers);
    printf("%-34s %-13s %s\n", "key", "read", "into / why");
    for (int u = AUG_KEY_USED; u <= AUG_KEY_UNMODELED; u++)
        for (int i = 0; i < rec.n; i++)
            if ((int)rec.keys[i].use == u)
                printf("%-34s %-13s %s\n", rec.keys[i].key, aug_key_use_name(rec.keys[i].use),
                       rec.keys[i].why);
    if (rec.n_more)
        printf("# ... and %d more keys\n", rec.n_more);
    return 0;
}

static int list(int argc, char **argv, int models) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: augur %s%s\n\nLists the %s presets (names usable with --%s).\n",
                   argv[0], models ? " [--show NAME [--format table|json]]" : "",
                   models ? "model" : "system",
                   models ? "model" : "system");
            if (models)
                printf("\n  --show NAME   how a model is read: its fields, and every key of its "
                       "file (a Hugging\n                Face config.json, a cached 'org/name', "
                       "an augur model JSON) as used,\n                ignored (and why) or not "
                       "modelled\n");
            return 0;
        }
        if (models && strcmp(argv[i], "--show") == 0) {
            if (i + 1 >= argc)
                return aug_cli_usage(argv[0], "option '--show' needs a model name or path");
            const char *name = argv[i + 1];
            enum aug_format fmt = AUG_FORMAT_TABLE;
            for (int j = i + 2; j < argc; j++) {
                if (strcmp(argv[j], "--format") == 0 && j + 1 < argc) {
                    int rc = aug_cli_format(argv[0], argv[++j], &fmt);
                    if (rc)
                        return rc;
                    if (fmt == AUG_FORMAT_CSV)
                        return aug_cli_usage(argv[0], "--show prints table or json, not csv");
                } else {
                    return aug_cli_usage(argv[0], "unexpected argument '%s'", argv[j]);
                }
            }
            return show_model(name, fmt == AUG_FORMAT_JSON);
        }
        return aug_cli_usage(argv[0], "unexpected argument '%s'", argv[i]);
    }
    if (models)
        printf("# model presets from %s/presets/models.json (each cites its paper or config);\n"
               "# parameter counts computed by augur from the shapes\n", aug_data_dir());
    else
        printf("# system presets from %s/presets/systems.json, GPU specs from %s/gpus.csv "
               "(each row cites its datasheet)\n", aug_data_dir(), aug_kdb_dir());
    int st = models ? aug_model_foreach(NULL, model_line, NULL)
                    : aug_system_foreach(NULL, system_line, NULL);
    return st == AUG_OK ? 0 : aug_cli_fail(st, NULL);
}

int aug_cmd_models(int argc, char **argv) { return list(argc, argv, 1); }
int aug_cmd_systems(int argc, char **argv) { return list(argc, argv, 0); }
