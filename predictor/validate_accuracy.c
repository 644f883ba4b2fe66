/* validate_accuracy.c - rows of an accuracy set in the DESIGN section 6 training schema.
 * Inference-schema rows (batch, input_len, output_len) are recognized and skipped until
 * an inference predictor scores them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "augur/augur.h"
#include "validate_internal.h"

static const struct {
    const char *name;
    enum aug_metric metric;
    const char *units[4];
} metrics[] = {
    {"step_time_s", AUG_METRIC_STEP_TIME, {"s", "s/iteration", "seconds", NULL}},
    {"tokens_per_s", AUG_METRIC_TOKENS, {"tokens/s", "tokens/s (whole 8-GPU node)", NULL, NULL}},
    {"tokens_per_s_per_gpu", AUG_METRIC_TOKENS_PER_GPU,
     {"tokens/s/GPU", "tokens/s per GPU", "tokens/s", NULL}},
    {"mfu", AUG_METRIC_MFU, {"fraction", "fraction of peak", NULL, NULL}},
    {"memory_gib", AUG_METRIC_MEMORY, {"GiB", NULL, NULL, NULL}},
};

static int get_long(const struct aug_csv *t, size_t i, const char *col, long *out) {
    int st = aug_csv_get_long(t, i, col, AUG_CSV_POSITIVE, out);
    return st == AUG_ENOTFOUND ? AUG_OK : st;
}

static int get_long0(const struct aug_csv *t, size_t i, const char *col, long *out) {
    int st = aug_csv_get_long(t, i, col, AUG_CSV_NONNEG, out);
    return st == AUG_ENOTFOUND ? AUG_OK : st;
}

static const char *cell(const struct aug_csv *t, size_t i, const char *col) {
    return aug_csv_cell(t, i, aug_csv_col(t, col));
}

static int read_model(const struct aug_csv *t, size_t i, struct aug_model *m) {
    const char *preset = cell(t, i, "model");
    int st;
    if (preset[0]) {
        if ((st = aug_model_load(NULL, preset, m)) != AUG_OK)
            return aug_csv_cell_error(t, i, "model", "%s", aug_last_error());
    } else {
        aug_model_init(m);
        snprintf(m->name, sizeof m->name, "%s", cell(t, i, "id"));
        m->vocab = 50257;
    }
    long v = 0;
    int dims = 0;
    static const char *const cols[] = {"layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab"};
    long *fields[] = {&m->layers, &m->hidden, &m->heads, &m->kv_heads, &m->ffn_hidden, &m->vocab};
    for (size_t k = 0; k < sizeof cols / sizeof *cols; k++) {
        v = 0;
        if ((st = get_long(t, i, cols[k], &v)) != AUG_OK)
            return st;
        if (v > 0) {
            *fields[k] = v;
            dims = 1;
            if (k <= 2)
                m->head_dim = 0; /* re-derive from hidden / heads */
        }
    }
    if (!preset[0] && aug_csv_cell(t, i, aug_csv_col(t, "kv_heads"))[0] == '\0')
        m->kv_heads = m->heads;
    if (!preset[0] && aug_csv_cell(t, i, aug_csv_col(t, "ffn_hidden"))[0] == '\0')
        m->ffn_hidden = 0; /* 4 x hidden */
    const char *mlp = cell(t, i, "mlp");
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
    if ((st = get_long0(t, i, "moe_experts", &experts)) != AUG_OK ||
        (st = get_long0(t, i, "moe_topk", &topk)) != AUG_OK)
        return st;
    if (experts > 1) {
        m->arch = AUG_ARCH_MOE;
        m->moe_experts = experts;
        m->moe_topk = topk > 0 ? topk : 2;
    }
    (void)dims;
    if ((st = aug_model_finish(m, aug_csv_name(t))) != AUG_OK)
        return aug_csv_cell_error(t, i, "model", "%s", aug_last_error());
    return AUG_OK;
}

/* Optional columns beyond the DESIGN section 6 schema, for runs whose setup augur can
 * model more precisely: etp, ep_placement (inner|outer), cp_algo (ring|ulysses|allgather),
 * moe_capacity_factor, moe_imbalance, tp_overlap, pp_overlap (0|1), ternary_kernel. */
static int read_extra(const struct aug_csv *t, size_t i, struct aug_plan *p) {
    int st;
    long v;
    double d;
    if ((st = get_long(t, i, "etp", &p->etp)) != AUG_OK)
        return st;
    const char *s = cell(t, i, "ep_placement");
    if (s[0]) {
        if (strcasecmp(s, "outer") != 0 && strcasecmp(s, "inner") != 0)
            return aug_csv_cell_error(t, i, "ep_placement", "'%s' is not inner or outer", s);
        p->ep_outer = strcasecmp(s, "outer") == 0;
    }
    s = cell(t, i, "cp_algo");
    if (s[0] && aug_cp_algo_from_name(s, &p->cp_algo) != AUG_OK)
        return aug_csv_cell_error(t, i, "cp_algo", "'%s' is not ring, ulysses or allgather", s);
    s = cell(t, i, "ternary_kernel");
    if (s[0] && aug_ternary_kernel_from_name(s, &p->ternary) != AUG_OK)
        return aug_csv_cell_error(t, i, "ternary_kernel", "'%s' is not accumulate or tensor", s);
    st = aug_csv_get_double(t, i, "moe_capacity_factor", AUG_CSV_NONNEG, &d);
    if (st == AUG_OK)
        p->moe_capacity_factor = d;
    else if (st != AUG_ENOTFOUND)
        return st;
    st = aug_csv_get_double(t, i, "moe_imbalance", AUG_CSV_POSITIVE, &d);
    if (st == AUG_OK)
        p->moe_imbalance = d;
    else if (st != AUG_ENOTFOUND)
        return st;
    static const char *const flags[] = {"tp_overlap", "pp_overlap"};
    int *dst[] = {&p->tp_overlap, &p->pp_overlap};
    for (int k = 0; k < 2; k++) {
        v = -1;
        if ((st = get_long0(t, i, flags[k], &v)) != AUG_OK)
            return st;
        if (v > 1)
            return aug_csv_cell_error(t, i, flags[k], "%ld is not 0 or 1", v);
        if (v >= 0)
            *dst[k] = (int)v;
    }
    return AUG_OK;
}

static int read_plan(const struct aug_csv *t, size_t i, struct aug_plan *p) {
    int st;
    aug_plan_init(p);
    if ((st = aug_csv_get_long(t, i, "num_gpus", AUG_CSV_REQUIRED | AUG_CSV_POSITIVE, &p->gpus)) ||
        (st = get_long(t, i, "tp", &p->tp)) || (st = get_long(t, i, "pp", &p->pp)) ||
        (st = get_long(t, i, "cp", &p->cp)) || (st = get_long(t, i, "ep", &p->ep)) ||
        (st = get_long(t, i, "interleave", &p->interleave)) ||
        (st = get_long(t, i, "microbatch", &p->micro_batch)) ||
        (st = aug_csv_get_long(t, i, "global_batch", AUG_CSV_REQUIRED | AUG_CSV_POSITIVE,
                               &p->global_batch)) ||
        (st = get_long(t, i, "seq_len", &p->seq)))
        return st;
    long dp = 0, sp = 0, zero = 0, overlap = 1;
    if ((st = get_long(t, i, "dp", &dp)) || (st = get_long0(t, i, "sp", &sp)) ||
        (st = get_long0(t, i, "zero_stage", &zero)) || (st = get_long0(t, i, "dp_overlap", &overlap)))
        return st;
    p->dp = dp;
    if (sp > 1)
        return aug_csv_cell_error(t, i, "sp", "%ld is not 0 or 1", sp);
    p->sp = (int)sp;
    if (zero > 3)
        return aug_csv_cell_error(t, i, "zero_stage", "%ld is not 0-3", zero);
    p->zero = (int)zero;
    p->dp_overlap = overlap != 0;
    p->uneven_pp = 1; /* published runs split layers unevenly (e.g. BLOOM 70 on 12 stages) */
    if ((st = read_extra(t, i, p)) != AUG_OK)
        return st;
    const char *rc = cell(t, i, "recompute");
    if (rc[0] && aug_recompute_from_name(rc, &p->recompute) != AUG_OK)
        return aug_csv_cell_error(t, i, "recompute", "'%s' is not none, selective or full", rc);
    const char *dt = cell(t, i, "dtype");
    if (dt[0] && aug_dtype_from_name(dt, &p->dtype) != AUG_OK)
        return aug_csv_cell_error(t, i, "dtype", "unknown dtype '%s'", dt);
    const char *att = cell(t, i, "attention");
    if (att[0]) {
        if (strcasecmp(att, "unfused") == 0)
            p->flash_attention = 0;
        else if (strcasecmp(att, "fused") == 0 || strcasecmp(att, "flash") == 0)
            p->flash_attention = 1;
        else
            return aug_csv_cell_error(t, i, "attention", "'%s' is not fused or unfused", att);
    }
    return AUG_OK;
}

static int read_system(struct aug_validate_reader *rd, size_t i, struct aug_system *s) {
    const struct aug_csv *t = rd->t;
    const char *name = cell(t, i, "system");
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

static int read_row(struct aug_validate_reader *rd, size_t i, struct aug_validate_row *row,
                    struct aug_validate_case *vc) {
    const struct aug_csv *t = rd->t;
    snprintf(row->id, sizeof row->id, "%s", cell(t, i, "id"));
    snprintf(row->source, sizeof row->source, "%s", cell(t, i, "source"));
    if (!row->id[0])
        return aug_csv_cell_error(t, i, "id", "empty, every row needs an id");
    const char *metric = cell(t, i, "metric");
    snprintf(row->metric, sizeof row->metric, "%s", metric);
    int st = aug_csv_get_double(t, i, "value", AUG_CSV_REQUIRED | AUG_CSV_POSITIVE, &row->measured);
    if (st != AUG_OK)
        return st;
    if (aug_csv_col(t, "input_len") >= 0 || aug_csv_col(t, "output_len") >= 0)
        return aug_errorf(AUG_EUNSUPPORTED, "inference rows are not scored by this build "
                                            "(no inference predictor)");
    size_t k;
    for (k = 0; k < sizeof metrics / sizeof *metrics; k++)
        if (strcmp(metric, metrics[k].name) == 0)
            break;
    if (k == sizeof metrics / sizeof *metrics)
        return aug_csv_cell_error(t, i, "metric", "unknown metric '%s' (use step_time_s, "
                                  "tokens_per_s, tokens_per_s_per_gpu, mfu, memory_gib)", metric);
    vc->metric = metrics[k].metric;
    const char *unit = cell(t, i, "unit");
    if (unit[0]) {
        int ok = 0;
        for (int u = 0; u < 4 && metrics[k].units[u]; u++)
            ok |= strcmp(unit, metrics[k].units[u]) == 0;
        if (!ok)
            return aug_csv_cell_error(t, i, "unit", "'%s' is not a unit of %s", unit, metric);
    }
    if ((st = read_model(t, i, &vc->model)) != AUG_OK || (st = read_plan(t, i, &vc->plan)) != AUG_OK ||
        (st = read_system(rd, i, &vc->system)) != AUG_OK)
        return st;
    /* a model described by its dimensions was trained at the row's sequence length */
    if (!cell(t, i, "model")[0] && vc->plan.seq > vc->model.max_seq)
        vc->model.max_seq = vc->plan.seq;
    return AUG_OK;
}

int aug_validate_accuracy_open(const struct aug_csv *t, const char *path, const char *kdb_root,
                               struct aug_validate_reader *rd) {
    memset(rd, 0, sizeof *rd);
    rd->t = t;
    rd->kdb_root = kdb_root;
    rd->read = read_row;
    snprintf(rd->dir, sizeof rd->dir, "%s", path);
    char *slash = strrchr(rd->dir, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(rd->dir, sizeof rd->dir, ".");
    static const char *const required[] = {"id", "metric", "value", "system", "num_gpus"};
    for (size_t k = 0; k < sizeof required / sizeof *required; k++)
        if (aug_csv_col(t, required[k]) < 0)
            return aug_errorf(AUG_EDATA, "%s: missing column '%s' (accuracy sets use the schema of "
                                         "DESIGN section 6)", aug_csv_name(t), required[k]);
    return AUG_OK;
}
