/* SPDX-License-Identifier: Apache-2.0 */
/* import_neusight.c - NeuSight's operator measurements (sitar-lab/NeuSight, ASPLOS'25;
 * scripts/asplos/data/dataset/train/collect/<op>/p2.1.0/<Device>.csv).
 *
 * One file per operator and GPU, one row per shape: `OPName, Latency, Device, ...` and the
 * shape in the last columns. How the rows were taken (neusight/Dataset/collect.py at
 * 6945927; ../shared/external/PROVENANCE.md section 5): PyTorch 2.1 eager, fp32 (default
 * dtype, TF32 off: every GEMM kernel is an *sgemm*), forward only, a CUDA event pair around
 * one call of the op, 25 calls, Latency = the mean of the 5 fastest in milliseconds. The
 * events enclose the framework's dispatch, so the rows are `host_event` times: the fitter
 * takes the per-call host overhead off (calibrate/fit.c, predictor/hw/host_time.c).
 *
 * Shapes (dims columns as NeuSight names them):
 *   linear   B, M, N, K: nn.Linear(N, K) (bias) on a (B, M, N) input: GEMM m = B M, k = N,
 *            n = K, unbatched (PyTorch folds the leading dims into rows; B is 1 in every
 *            published row)
 *   bmm      B, M, N, K: torch.bmm of (B, M, N) and (B, N, K): batch B, m = M, k = N, n = K
 *   add      B, H: torch.add of two (B, H) tensors: memory "elementwise", 4 x 3 B H bytes
 *   gelu     B, H: nn.GELU:        memory "activation", 4 x 2 B H bytes
 *   softmax  B, H: nn.Softmax:     memory "softmax",    4 x 2 B H bytes
 *   ln       B, H: nn.LayerNorm(H): memory "norm",      4 x 2 B H bytes (weights ignored)
 * with the byte conventions of kernels-db/README.md (one read per input, one write per
 * output; the same counts as benchmarks/bench_kernels.c).
 *
 * The Device column names the GPU; the five NeuSight measured are mapped to their
 * gpus.csv ids, and a file of another GPU than --gpu is refused unless --force. A device
 * outside that table is left to the generic name check of `augur calibrate`
 * (calibrate/device_match.c). Every row of one file must name the same device. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "augur/csvio.h"
#include "augur/status.h"
#include "importer.h"

enum ns_kind { NS_LINEAR, NS_BMM, NS_ADD, NS_GELU, NS_SOFTMAX, NS_LN };

static const struct {
    const char *name; /* OPName */
    enum ns_kind kind;
    const char *op;   /* augur op */
    double tensors;   /* memory-bound: tensors read + written */
} ns_ops[] = {
    {"linear", NS_LINEAR, "gemm", 0},     {"bmm", NS_BMM, "gemm", 0},
    {"add", NS_ADD, "elementwise", 3},    {"gelu", NS_GELU, "activation", 2},
    {"softmax", NS_SOFTMAX, "softmax", 2}, {"ln", NS_LN, "norm", 2},
};
#define N_NS_OPS (sizeof ns_ops / sizeof ns_ops[0])

/* The GPUs of NeuSight's published split (`Device` as torch.cuda.get_device_name gives it). */
static const struct {
    const char *device, *gpu_id;
} ns_devices[] = {
    {"NVIDIA A100-PCIE-40GB", "a100-pcie-40g"}, {"Tesla V100-PCIE-32GB", "v100-pcie-32g"},
    {"Tesla T4", "t4-16g"},                     {"Tesla P100-PCIE-16GB", "p100-pcie-16g"},
    {"Tesla P4", "p4-8g"},
};

/* Sizes beyond these are not a measurement: a dimension above cuBLAS's int range, or one
 * operand above 1 TiB (no GPU holds that; the largest NeuSight operand is 1 GiB). */
#define NS_MAX_DIM 2147483647.0
#define NS_MAX_BYTES 1099511627776.0
/* A latency above one hour is not one op call. */
#define NS_MAX_LATENCY_MS 3.6e6

static const char *gpu_of_device(const char *dev)
{
    for (size_t i = 0; i < sizeof ns_devices / sizeof ns_devices[0]; i++)
        if (strcmp(ns_devices[i].device, dev) == 0)
            return ns_devices[i].gpu_id;
    return NULL;
}

/* A whole, positive dimension no larger than NS_MAX_DIM. */
static int get_dim(const struct aug_csv *t, size_t r, const char *col, double *v)
{
    int rc = aug_csv_get_double(t, r, col, AUG_CSV_REQUIRED | AUG_CSV_POSITIVE, v);
    if (rc != AUG_OK)
        return rc;
    if (*v != floor(*v) || *v > NS_MAX_DIM)
        return aug_csv_cell_error(t, r, col, "%g is not a whole dimension in 1..%.0f", *v,
                                  NS_MAX_DIM);
    return AUG_OK;
}

static int check_bytes(const struct aug_csv *t, size_t r, const char *col, double elems)
{
    if (elems * 4.0 > NS_MAX_BYTES)
        return aug_csv_cell_error(t, r, col, "a tensor of %.4g fp32 elements (over 1 TiB) is "
                                  "not a measured shape", elems);
    return AUG_OK;
}

static int shape_of(const struct aug_csv *t, size_t r, enum ns_kind kind, double tensors,
                    struct aug_sample *x)
{
    int rc;
    double b, m, n, k;
    if ((rc = get_dim(t, r, "B", &b)) != AUG_OK)
        return rc;
    if (kind == NS_LINEAR || kind == NS_BMM) {
        if ((rc = get_dim(t, r, "M", &m)) || (rc = get_dim(t, r, "N", &n)) ||
            (rc = get_dim(t, r, "K", &k)))
            return rc;
        /* NeuSight's (B, M, N) x (N, K): the reduction is over N, the output is M x K */
        if ((rc = check_bytes(t, r, "M", b * m * n)) || (rc = check_bytes(t, r, "K", b * m * k)) ||
            (rc = check_bytes(t, r, "N", (kind == NS_BMM ? b : 1) * n * k)))
            return rc;
        x->family = AUG_FAMILY_GEMM;
        if (kind == NS_LINEAR) {
            x->m = b * m, x->batch = 1;
            if (x->m > NS_MAX_DIM)
                return aug_csv_cell_error(t, r, "M", "B x M = %.0f rows exceed %.0f", x->m,
                                          NS_MAX_DIM);
        } else {
            x->m = m, x->batch = b;
        }
        x->k = n, x->n = k;
        return AUG_OK;
    }
    double h;
    if ((rc = get_dim(t, r, "H", &h)) != AUG_OK)
        return rc;
    if ((rc = check_bytes(t, r, "H", b * h)) != AUG_OK)
        return rc;
    x->family = AUG_FAMILY_MEMORY;
    x->size_bytes = 4.0 * tensors * b * h; /* fp32 */
    return AUG_OK;
}

/* The GPU the row names: the first row fixes the file's device, which must fit --gpu. */
static int check_device(const struct aug_csv *t, size_t r, const struct aug_import_opts *o, struct aug_samples *out,
                        char *file_dev, size_t cap)
{
    const char *dev = aug_csv_cell(t, r, aug_csv_col(t, "Device"));
    if (!*dev)
        return aug_csv_cell_error(t, r, "Device", "empty: the GPU of the row is unknown");
    if (file_dev[0]) {
        if (strcmp(file_dev, dev) != 0)
            return aug_csv_cell_error(t, r, "Device", "'%s', but earlier rows say '%s': one "
                                      "file per GPU", dev, file_dev);
        return AUG_OK;
    }
    snprintf(file_dev, cap, "%s", dev);
    const char *id = gpu_of_device(dev);
    if (!id) {
        /* a GPU NeuSight did not publish: every file of the run must agree, and
         * `augur calibrate` compares it with --gpu by name (device_match.c) */
        if (out->device[0] && strcmp(out->device, dev) != 0)
            return aug_csv_cell_error(t, r, "Device", "'%s', but another input says '%s'", dev,
                                      out->device);
        snprintf(out->device, sizeof out->device, "%s", dev);
        return AUG_OK;
    }
    if (o && o->gpu && !o->force && strcmp(id, o->gpu) != 0)
        return aug_csv_cell_error(t, r, "Device", "measured on '%s' (GPU '%s'), not '%s': its "
                                  "curves would describe another GPU (calibrate it with --gpu "
                                  "%s, or pass --force to mix them on purpose)", dev, id,
                                  o->gpu, id);
    char prov[300];
    snprintf(prov, sizeof prov, "device: %.120s (gpus.csv %s)", dev, id);
    return aug_samples_prov(out, prov);
}

int aug_import_neusight(const char *name, const char *buf, size_t len,
                        const struct aug_import_opts *o, struct aug_samples *out)
{
    struct aug_csv *t = NULL;
    int rc = aug_csv_load_mem(name, buf, len, &t);
    if (rc != AUG_OK)
        return rc;
    long hline = (long)aug_csv_comments(t) + 1;
    static const char *const need[] = {"OPName", "Latency", "Device", "B"};
    if ((rc = aug_csv_need_cols(t, need, sizeof need / sizeof need[0],
                                " (not a NeuSight operator CSV?)")) != AUG_OK)
        goto out;
    int src[N_NS_OPS];
    for (size_t i = 0; i < N_NS_OPS; i++)
        src[i] = -1;
    int fidx = aug_samples_file(out, name);
    if (fidx < 0) {
        rc = fidx;
        goto out;
    }
    char prov[600];
    snprintf(prov, sizeof prov, "import: neusight %.500s (CUDA events around one PyTorch "
             "call, fp32, ms)", name);
    if ((rc = aug_samples_prov(out, prov)) != AUG_OK)
        goto out;
    char file_dev[128] = "";
    for (size_t r = 0; r < aug_csv_rows(t); r++) {
        const char *opname = aug_csv_cell(t, r, aug_csv_col(t, "OPName"));
        size_t oi = 0;
        while (oi < N_NS_OPS && strcmp(ns_ops[oi].name, opname) != 0)
            oi++;
        if (oi == N_NS_OPS) {
            rc = aug_csv_cell_error(t, r, "OPName", "'%.64s' is not an operator augur imports "
                                    "(linear, bmm, add, gelu, softmax, ln)", opname);
            goto out;
        }
        /* the shape columns of this operator */
        const char *dims[] = {"M", "N", "K", "H"};
        int gemm = ns_ops[oi].kind == NS_LINEAR || ns_ops[oi].kind == NS_BMM;
        for (size_t d = gemm ? 0 : 3; d < (gemm ? 3u : 4u); d++) {
            if (aug_csv_col(t, dims[d]) < 0) {
                rc = aug_errorf(AUG_EDATA, "%s:%ld: column '%s': missing (NeuSight's %s rows "
                                "give %s)", name, hline, dims[d], ns_ops[oi].name,
                                gemm ? "B, M, N, K" : "B, H");
                goto out;
            }
        }
        if ((rc = check_device(t, r, o, out, file_dev, sizeof file_dev)) != AUG_OK)
            goto out;
        struct aug_sample x = aug_sample_blank();
        snprintf(x.op, sizeof x.op, "%s", ns_ops[oi].op);
        x.dtype = AUG_DTYPE_FP32;
        if ((rc = shape_of(t, r, ns_ops[oi].kind, ns_ops[oi].tensors, &x)) != AUG_OK)
            goto out;
        double ms;
        if ((rc = aug_csv_get_double(t, r, "Latency", AUG_CSV_REQUIRED | AUG_CSV_POSITIVE, &ms)))
            goto out;
        if (ms > NS_MAX_LATENCY_MS) {
            rc = aug_csv_cell_error(t, r, "Latency", "%g ms (over an hour) is not one op call",
                                    ms);
            goto out;
        }
        x.time_us = ms * 1e3;
        x.reps = 25; /* collect.py: 25 timed calls, Latency the mean of the 5 fastest */
        snprintf(x.timing, sizeof x.timing, "host_event");
        if (src[oi] < 0) {
            char sbuf[512];
            src[oi] = aug_samples_source(out, aug_import_source(o, name, ns_ops[oi].name, sbuf,
                                                                 sizeof sbuf));
            if (src[oi] < 0) {
                rc = src[oi];
                goto out;
            }
        }
        x.file = fidx;
        x.line = aug_csv_line(t, r);
        x.source = src[oi];
        if ((rc = aug_samples_add(out, &x)) != AUG_OK)
            goto out;
    }
    rc = AUG_OK;
out:
    aug_csv_free(t);
    return rc;
}
