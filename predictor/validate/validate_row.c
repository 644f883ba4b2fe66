/* SPDX-License-Identifier: Apache-2.0 */
/* validate_row.c - what every accuracy-set reader takes from a row the same way: cells,
 * optional numbers, the model (preset and/or GPT-style dimensions, MoE columns), the
 * attention column and the system (preset or JSON path relative to the CSV, cached).
 *
 * Optional architecture columns (empty or absent: the preset's value or the default):
 * head_dim, moe_ffn_hidden (expert FFN; ffn_hidden is the per-expert size too),
 * dense_ffn_hidden, moe_shared_experts, moe_dense_layers, moe_layer_freq, moe_groups,
 * moe_topk_groups, attention_kind (gqa|mha|mqa|mla) with q_lora_rank, kv_lora_rank,
 * qk_nope_head_dim, qk_rope_head_dim, v_head_dim, sliding_window, global_attn_every,
 * attn_chunked (0|1: the local layers attend within chunks, Llama 4), parallel_block and
 * mtp_layers. A model given by its dimensions takes its FP8 checkpoint recipe from the
 * preset of the same architecture (preset_recipe). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "augur/augur.h"
#include "validate_internal.h"

const char *aug_vrow_cell(const struct aug_csv *t, size_t i, const char *col) {
    return aug_csv_cell(t, i, aug_csv_col(t, col));
}

int aug_vrow_long(const struct aug_csv *t, size_t i, const char *col, int flags, long *out) {
    int st = aug_csv_get_long(t, i, col, flags, out);
    return st == AUG_ENOTFOUND ? AUG_OK : st;
}

int aug_vrow_unit(const struct aug_csv *t, size_t i, const char *metric,
                  const char *const *units, int n) {
    const char *unit = aug_vrow_cell(t, i, "unit");
    if (!unit[0])
        return AUG_OK;
    size_t len = strlen(unit);
    const char *paren = strstr(unit, " (");
    if (paren && paren > unit && unit[len - 1] == ')')
        len = (size_t)(paren - unit); /* "UNIT (remark)" */
    for (int u = 0; u < n && units[u]; u++)
        if (strlen(units[u]) == len && strncmp(unit, units[u], len) == 0)
            return AUG_OK;
    return aug_csv_cell_error(t, i, "unit", "'%s' is not a unit of %s", unit, metric);
}

/* DeepSeek-V2 (arXiv 2405.04434, sec. 3.1.2) and V3 (arXiv 2412.19437, sec. 4.2) share
 * these latent-attention widths; a row that says "mla" without them gets these, and its
 * model's source says so. */
#define MLA_KV_LORA 512
#define MLA_Q_LORA 1536
#define MLA_ROPE 64
#define MLA_V 128

static int vrow_arch(const struct aug_csv *t, size_t i, struct aug_model *m) {
    static const struct {
        const char *col;
        size_t off;
        int flags;
    } cols[] = {
        {"head_dim", offsetof(struct aug_model, head_dim), AUG_CSV_POSITIVE},
        {"moe_ffn_hidden", offsetof(struct aug_model, ffn_hidden), AUG_CSV_POSITIVE},
        {"dense_ffn_hidden", offsetof(struct aug_model, dense_ffn_hidden), AUG_CSV_POSITIVE},
        {"moe_shared_experts", offsetof(struct aug_model, moe_shared_experts), AUG_CSV_NONNEG},
        {"moe_dense_layers", offsetof(struct aug_model, moe_dense_layers), AUG_CSV_NONNEG},
        {"moe_layer_freq", offsetof(struct aug_model, moe_layer_freq), AUG_CSV_POSITIVE},
        {"moe_groups", offsetof(struct aug_model, moe_groups), AUG_CSV_NONNEG},
        {"moe_topk_groups", offsetof(struct aug_model, moe_topk_groups), AUG_CSV_NONNEG},
        {"q_lora_rank", offsetof(struct aug_model, q_lora_rank), AUG_CSV_NONNEG},
        {"kv_lora_rank", offsetof(struct aug_model, kv_lora_rank), AUG_CSV_POSITIVE},
        {"qk_nope_head_dim", offsetof(struct aug_model, qk_nope_head_dim), AUG_CSV_POSITIVE},
        {"qk_rope_head_dim", offsetof(struct aug_model, qk_rope_head_dim), AUG_CSV_POSITIVE},
        {"v_head_dim", offsetof(struct aug_model, v_head_dim), AUG_CSV_POSITIVE},
        {"sliding_window", offsetof(struct aug_model, sliding_window), AUG_CSV_NONNEG},
        {"global_attn_every", offsetof(struct aug_model, global_attn_every), AUG_CSV_NONNEG},
        {"mtp_layers", offsetof(struct aug_model, mtp_layers), AUG_CSV_NONNEG},
        {"parallel_block", offsetof(struct aug_model, parallel_block), AUG_CSV_NONNEG},
    };
    int st;
    for (size_t k = 0; k < sizeof cols / sizeof *cols; k++) {
        if (!aug_vrow_cell(t, i, cols[k].col)[0])
            continue;
        long v = 0;
        if ((st = aug_vrow_long(t, i, cols[k].col, cols[k].flags, &v)) != AUG_OK)
            return st;
        memcpy((char *)m + cols[k].off, &v, sizeof v);
    }
    const char *chunked = aug_vrow_cell(t, i, "attn_chunked");
    if (chunked[0]) {
        if (strcmp(chunked, "0") != 0 && strcmp(chunked, "1") != 0)
            return aug_csv_cell_error(t, i, "attn_chunked", "'%s' is not 0 or 1", chunked);
        m->attn_chunked = chunked[0] == '1';
    }
    const char *kind = aug_vrow_cell(t, i, "attention_kind");
    if (!kind[0])
        return AUG_OK;
    if (strcasecmp(kind, "gqa") == 0 || strcasecmp(kind, "mha") == 0 ||
        strcasecmp(kind, "mqa") == 0) {
        if (m->attention == AUG_ATTN_MLA)
            return aug_csv_cell_error(t, i, "attention_kind", "'%s' but the model preset uses "
                                      "latent attention (mla)", kind);
        if (strcasecmp(kind, "mqa") == 0)
            m->kv_heads = 1;
        return AUG_OK;
    }
    if (strcasecmp(kind, "mla") != 0)
        return aug_csv_cell_error(t, i, "attention_kind", "'%s' is not gqa, mha, mqa or mla", kind);
    if (m->attention == AUG_ATTN_MLA)
        return AUG_OK; /* from the preset or the columns above */
    m->attention = AUG_ATTN_MLA;
    m->kv_heads = m->heads;
    int defaulted = 0;
    if (!m->kv_lora_rank) {
        m->kv_lora_rank = MLA_KV_LORA;
        defaulted = 1;
    }
    if (!aug_vrow_cell(t, i, "q_lora_rank")[0]) {
        m->q_lora_rank = MLA_Q_LORA;
        defaulted = 1;
    }
    if (!m->qk_rope_head_dim) {
        m->qk_rope_head_dim = MLA_ROPE;
        defaulted = 1;
    }
    if (!m->v_head_dim) {
        m->v_head_dim = MLA_V;
        defaulted = 1;
    }
    if (!m->qk_nope_head_dim) {
        if (m->head_dim <= m->qk_rope_head_dim)
            return aug_csv_cell_error(t, i, "head_dim",
                                      "latent attention needs head_dim = qk_nope_head_dim + "
                                      "qk_rope_head_dim, or qk_nope_head_dim");
        m->qk_nope_head_dim = m->head_dim - m->qk_rope_head_dim;
    }
    m->head_dim = 0; /* qk_nope + qk_rope */
    if (defaulted) {
        char note[200];
        snprintf(note, sizeof note, "latent-attention widths not in the row: DeepSeek-V2/V3's "
                 "kv_lora_rank %ld, q_lora_rank %ld, qk_rope_head_dim %ld, v_head_dim %ld",
                 m->kv_lora_rank, m->q_lora_rank, m->qk_rope_head_dim, m->v_head_dim);
        size_t len = strlen(m->source);
        snprintf(m->source + len, sizeof m->source - len, "%s%s", len ? "; " : "", note);
        len = strlen(m->caveats);
        snprintf(m->caveats + len, sizeof m->caveats - len, "%s%s", len ? "; " : "", note);
    }
    return AUG_OK;
}

/* The presets whose architecture is the row's (every dimension that sets cost). */
struct arch_match {
    const struct aug_model *m;
    int n;                    /* presets found */
    int agree;                /* they all give the same recipe */
    enum aug_fp8_recipe recipe;
    char name[64];
};

static void match_preset(const struct aug_model *p, void *user) {
    struct arch_match *a = user;
    const struct aug_model *m = a->m;
    if (p->arch != m->arch || p->layers != m->layers || p->hidden != m->hidden ||
        p->heads != m->heads || p->kv_heads != m->kv_heads || p->head_dim != m->head_dim ||
        p->ffn_hidden != m->ffn_hidden || p->vocab != m->vocab || p->mlp != m->mlp ||
        p->attention != m->attention || p->moe_experts != m->moe_experts ||
        p->moe_topk != m->moe_topk || p->moe_shared_experts != m->moe_shared_experts ||
        p->moe_layer_freq != m->moe_layer_freq || p->moe_dense_layers != m->moe_dense_layers ||
        p->dense_ffn_hidden != m->dense_ffn_hidden)
        return;
    if (a->n == 0) {
        a->recipe = p->fp8_recipe;
        snprintf(a->name, sizeof a->name, "%s", p->name);
    } else if (p->fp8_recipe != a->recipe) {
        a->agree = 0;
    }
    a->n++;
}

/* A model given by its dimensions takes what the schema has no column for from the preset
 * of the same architecture: how its published FP8 checkpoint is quantized (model.h), which
 * sets the KV cache an engine serves it with (aug_engine_kv_dtype). Nothing else changes:
 * the row's cells stay the model. Presets that share an architecture but not a recipe give
 * none. */
static void preset_recipe(struct aug_model *m) {
    struct arch_match a = {m, 0, 1, AUG_FP8_PER_TENSOR, ""};
    if (aug_model_foreach(NULL, match_preset, &a) != AUG_OK || a.n == 0 || !a.agree ||
        a.recipe == m->fp8_recipe)
        return;
    m->fp8_recipe = a.recipe;
    char note[160];
    snprintf(note, sizeof note, "FP8 checkpoint recipe %s from preset '%s' (same architecture)",
             aug_fp8_recipe_name(a.recipe), a.name);
    size_t len = strlen(m->source);
    snprintf(m->source + len, sizeof m->source - len, "%s%s", len ? "; " : "", note);
}

int aug_vrow_model(const struct aug_csv *t, size_t i, struct aug_model *m) {
    const char *preset = aug_vrow_cell(t, i, "model");
    int st;
    if (preset[0]) {
        if ((st = aug_model_load(NULL, preset, m)) != AUG_OK)
            return aug_csv_cell_error(t, i, "model", "%s", aug_last_error());
    } else {
        aug_model_init(m);
        snprintf(m->name, sizeof m->name, "%s", aug_vrow_cell(t, i, "id"));
        m->vocab = 50257;
    }
    long v = 0;
    int dims = 0;
    static const char *const cols[] = {"layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab"};
    long *fields[] = {&m->layers, &m->hidden, &m->heads, &m->kv_heads, &m->ffn_hidden, &m->vocab};
    for (size_t k = 0; k < sizeof cols / sizeof *cols; k++) {
        v = 0;
        if ((st = aug_vrow_long(t, i, cols[k], AUG_CSV_POSITIVE, &v)) != AUG_OK)
            return st;
        if (v > 0) {
            *fields[k] = v;
            dims = 1;
            if (k == 1 || k == 2)
                m->head_dim = 0; /* re-derive from hidden / heads */
        }
    }
    if (!preset[0] && aug_vrow_cell(t, i, "kv_heads")[0] == '\0')
        m->kv_heads = m->heads;
    if (!preset[0] && aug_vrow_cell(t, i, "ffn_hidden")[0] == '\0')
        m->ffn_hidden = 0; /* 4 x hidden */
    const char *mlp = aug_vrow_cell(t, i, "mlp");
    if (mlp[0]) {
        if (strcasecmp(mlp, "gelu") == 0)
            m->mlp = AUG_MLP_GELU;
        else if (strcasecmp(mlp, "swiglu") == 0 || strcasecmp(mlp, "silu") == 0) {
            m->mlp = AUG_MLP_SWIGLU;
            if (!preset[0]) { /* Llama-style block when described by dimensions */
                m->norm = AUG_NORM_RMSNORM;
                m->pos = AUG_POS_ROPE;
                m->linear_bias = 0;
            }
        } else
            return aug_csv_cell_error(t, i, "mlp", "'%s' is not gelu or swiglu", mlp);
    }
    long experts = 0, topk = 0;
    if ((st = aug_vrow_long(t, i, "moe_experts", AUG_CSV_NONNEG, &experts)) != AUG_OK ||
        (st = aug_vrow_long(t, i, "moe_topk", AUG_CSV_NONNEG, &topk)) != AUG_OK)
        return st;
    if (experts > 1) {
        m->arch = AUG_ARCH_MOE;
        m->moe_experts = experts;
        m->moe_topk = topk > 0 ? topk : 2;
    }
    (void)dims;
    if ((st = vrow_arch(t, i, m)) != AUG_OK)
        return st;
    if ((st = aug_model_finish(m, aug_csv_name(t))) != AUG_OK)
        return aug_csv_cell_error(t, i, "model", "%s", aug_last_error());
    if (!preset[0])
        preset_recipe(m);
    return AUG_OK;
}

int aug_vrow_attention(const struct aug_csv *t, size_t i, int *flash_attention) {
    const char *att = aug_vrow_cell(t, i, "attention");
    if (!att[0])
        return AUG_OK;
    if (strcasecmp(att, "unfused") == 0)
        *flash_attention = 0;
    else if (strcasecmp(att, "fused") == 0 || strcasecmp(att, "flash") == 0)
        *flash_attention = 1;
    else
        return aug_csv_cell_error(t, i, "attention", "'%s' is not fused or unfused", att);
    return AUG_OK;
}

int aug_vrow_framework(const struct aug_csv *t, size_t i, struct aug_validate_case *vc) {
    const char *fw = aug_vrow_cell(t, i, "framework");
    vc->framework = AUG_FW_NONE;
    vc->fw_set = 0;
    if (!fw[0])
        return AUG_OK;
    if (aug_framework_from_name(fw, &vc->framework) != AUG_OK)
        return aug_csv_cell_error(t, i, "framework", "%s", aug_last_error());
    static const struct {
        const char *col;
        unsigned bit;
    } given[] = {{"sp", AUG_FWSET_SP},           {"attention", AUG_FWSET_ATTENTION},
                 {"dp_overlap", AUG_FWSET_DP_OVERLAP}, {"tp_overlap", AUG_FWSET_TP_OVERLAP},
                 {"pp_overlap", AUG_FWSET_PP_OVERLAP}, {"zero_stage", AUG_FWSET_SHARDING},
                 {"attention_kernel", AUG_FWSET_ATTN_KERNEL}, {"main_grads", AUG_FWSET_GRADS},
                 {"cross_entropy", AUG_FWSET_CROSS_ENTROPY},
                 {"tp_async_allreduce", AUG_FWSET_TP_ASYNC},
                 {"zero3_gather", AUG_FWSET_ZERO3_GATHER},
                 {"grad_reduce", AUG_FWSET_GRAD_REDUCE},
                 {"cuda_graphs", AUG_FWSET_CUDA_GRAPHS},
                 {"fp8_params", AUG_FWSET_FP8_PARAMS},
                 {"param_gather_overlap", AUG_FWSET_PARAM_GATHER}};
    for (size_t k = 0; k < sizeof given / sizeof *given; k++)
        if (aug_vrow_cell(t, i, given[k].col)[0])
            vc->fw_set |= given[k].bit;
    return AUG_OK;
}

int aug_vrow_system(struct aug_validate_reader *rd, size_t i, struct aug_system *s) {
    const struct aug_csv *t = rd->t;
    const char *name = aug_vrow_cell(t, i, "system");
    if (!name[0])
        return aug_csv_cell_error(t, i, "system", "empty, a system preset or JSON path is required");
    char key[1100];
    int is_path = strchr(name, '/') || (strlen(name) > 5 && strcmp(name + strlen(name) - 5, ".json") == 0);
    if (is_path && name[0] != '/')
        snprintf(key, sizeof key, "%s/%s", rd->dir, name);
    else
        snprintf(key, sizeof key, "%s", name);
    if (rd->have_system && strcmp(rd->system_key, key) == 0) {
        *s = rd->system;
        return AUG_OK;
    }
    if (aug_system_load(rd->kdb_root, key, s) != AUG_OK)
        return aug_csv_cell_error(t, i, "system", "%s", aug_last_error());
    rd->system = *s;
    snprintf(rd->system_key, sizeof rd->system_key, "%s", key);
    rd->have_system = 1;
    return AUG_OK;
}
