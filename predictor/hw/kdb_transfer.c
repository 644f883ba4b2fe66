/* SPDX-License-Identifier: Apache-2.0 */
/* kdb_transfer.c - curves for a GPU that was never profiled, from the profiled GPUs of the
 * same SM architecture.
 *
 * GPUs of one compute capability run the same cuBLAS/CUTLASS kernels (the same tiles, the
 * same instruction mix, the same launch path), so what a calibrated curve measured beyond
 * the datasheet - tile and wave waste, the fraction of peak the main loop reaches, fixed
 * per-kernel costs, the share of HBM bandwidth a memory-bound kernel streams at - carries
 * over; what differs is set by the spec rows (A100 SXM 40 GB vs 80 GB: HBM 1555 vs 2039
 * GB/s, same SMs and clocks; H100 vs H200: 3350 vs 4800 GB/s). A transferred curve keeps
 * its fixed terms and rescales the rest:
 *   gemm_roof  t = p0 + max(p1 F/W + p2 F, p3 bytes + p4 F) (curve.c): p1, p2 and p4 times
 *              peak_donor / peak_target of the curve's dtype, p3 times hbm_donor /
 *              hbm_target; the wave count W takes the target's SMs (p5) and p7 its peak;
 *   gemm_tile  the structural model of gemm_model.c with fitted overhead p0, main-loop rate
 *              p1 (TFLOP/s) and HBM bandwidth p2 (GB/s): p1 times peak_target / peak_donor
 *              (the fitted fraction of peak carries over), p2 times hbm_target / hbm_donor;
 *              the fixed p3 SMs, p4 L2 MiB, p5 L2 bandwidth and p7 peak are the target's
 *              (gemm_model.c's ceiling of its gpus.csv row), and so is p6, the kernel
 *              family (aug_gemm_tile_family): the donor's for tables fitted by the current
 *              model, as the architecture is the same, but not for older ones;
 *   linear     t = p0 + p1 bytes (memory-bound kernels): p1 times hbm_donor / hbm_target.
 * Other forms (efficiency curves, the older GEMM forms) and collectives are not transferred:
 * a collective's curve belongs to the interconnect it was measured on, not to the GPU.
 *
 * Donors: every GPU of gpus.csv with the target's sm_arch and a curves.csv, nearest first
 * (same SM count, then the closest HBM bandwidth, then gpu_id); each (family, op, dtype)
 * takes all its pieces from the nearest donor that has it. With no donor the kdb is empty
 * and the documented fallbacks apply, as for any GPU without curves. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur/kdb.h"
#include "augur/status.h"
#include "augur/system.h"
#include "core/jsonutil.h"
#include "hw/gemm_model.h"
#include "hw/kdb_build.h"

struct donor {
    struct aug_gpu gpu;
    struct aug_kdb *kdb;
    double distance; /* from the target: SM count first, then HBM bandwidth */
};

struct donor_scan {
    const char *root;
    const struct aug_gpu *target;
    struct donor *d; /* every GPU of the target's sm_arch that has curves */
    int n, cap;
};

static int collect_donor(const struct aug_gpu *g, void *ctx) {
    struct donor_scan *s = ctx;
    if (g->sm_arch != s->target->sm_arch || strcmp(g->id, s->target->id) == 0)
        return AUG_OK;
    struct aug_kdb *k = NULL;
    int st = aug_kdb_open(s->root, g->id, &k); /* an unreadable donor table is an error */
    if (st != AUG_OK)
        return st;
    if (aug_kdb_curve_count(k) == 0) {
        aug_kdb_close(k);
        return AUG_OK;
    }
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 8;
        struct donor *nd = realloc(s->d, (size_t)cap * sizeof *nd);
        if (!nd) {
            aug_kdb_close(k);
            return aug_errorf(AUG_ENOMEM, "kdb: out of memory");
        }
        s->d = nd;
        s->cap = cap;
    }
    s->d[s->n].gpu = *g;
    s->d[s->n].kdb = k;
    s->d[s->n].distance = (g->sm_count == s->target->sm_count ? 0.0 : 100.0) +
                          fabs(log(g->hbm_gbps / s->target->hbm_gbps));
    s->n++;
    return AUG_OK;
}

/* Nearest donor first: same SM count, then the closest HBM bandwidth, then the id. */
static int donor_cmp(const void *a, const void *b) {
    const struct donor *x = a, *y = b;
    if (x->distance != y->distance)
        return x->distance < y->distance ? -1 : 1;
    return strcmp(x->gpu.id, y->gpu.id);
}

static double dtype_peak(const struct aug_gpu *g, enum aug_dtype dt) {
    return (int)dt >= 0 && dt < AUG_DTYPE_COUNT ? g->peak_tflops[dt] : 0.0;
}

/* The donor curve rescaled to the target; 0 when its form is not transferred. */
static int rescale(const struct aug_curve *c, const struct aug_gpu *from, const struct aug_gpu *to,
                   struct aug_curve *out) {
    *out = *c;
    double hbm = from->hbm_gbps / to->hbm_gbps;
    if (c->family == AUG_FAMILY_MEMORY && strcmp(c->form, "linear") == 0) {
        out->p[1] = c->p[1] * hbm;
    } else if (c->family == AUG_FAMILY_GEMM && strcmp(c->form, "gemm_roof") == 0) {
        double pf = dtype_peak(from, c->dtype), pt = dtype_peak(to, c->dtype);
        if (!(pf > 0) || !(pt > 0))
            return 0; /* no tensor path for this dtype on one of them */
        double comp = pf / pt;
        out->p[1] = c->p[1] * comp;
        out->p[2] = c->p[2] * comp;
        out->p[3] = c->p[3] * hbm;
        out->p[4] = c->p[4] * comp;
        out->p[5] = (double)to->sm_count;
        out->p[7] = pt;
    } else if (c->family == AUG_FAMILY_GEMM && strcmp(c->form, "gemm_tile") == 0) {
        double pf = dtype_peak(from, c->dtype), pt = dtype_peak(to, c->dtype);
        struct aug_gemm_ceiling ceil_to;
        if (!(pf > 0) || !(pt > 0) || !aug_gemm_ceiling_of(to, c->dtype, &ceil_to))
            return 0;
        out->p[1] = c->p[1] * pt / pf;
        out->p[2] = c->p[2] / hbm;
        out->p[3] = (double)to->sm_count;
        out->p[4] = to->l2_mib;
        out->p[5] = ceil_to.l2_gbps;
        out->p[6] = aug_gemm_tile_family(&ceil_to); /* the target's kernels, not the donor's */
        out->p[7] = pt;
    } else {
        return 0;
    }
    /* the donor's source after the rescaling note, cut to the field (the note first) */
    double comp = c->family == AUG_FAMILY_GEMM
                      ? dtype_peak(from, c->dtype) / dtype_peak(to, c->dtype) : 1.0;
    aug_fmt_trunc(out->source, sizeof out->source, "%s rescaled (HBM x%.3g, compute x%.3g): %s",
                  from->id, hbm, comp, c->source);
    return 1;
}

static int same_key(const struct aug_curve *a, const struct aug_curve *b) {
    return a->family == b->family && a->dtype == b->dtype && strcmp(a->op, b->op) == 0;
}

/* Does one of the first n curves of k (nearer donors' curves) have c's key? */
static int has_key(const struct aug_kdb *k, int n, const struct aug_curve *c) {
    for (int i = 0; i < n; i++)
        if (same_key(aug_kdb_curve_at(k, i), c))
            return 1;
    return 0;
}

static int build(struct donor_scan *s, struct aug_kdb **out) {
    char origin[192];
    int w = snprintf(origin, sizeof origin, "transferred from");
    for (int j = 0; j < s->n && w > 0 && (size_t)w < sizeof origin; j++)
        w += snprintf(origin + w, sizeof origin - (size_t)w, "%s kernels-db/%s", j ? "," : "",
                      s->d[j].gpu.id);
    if (w > 0 && (size_t)w < sizeof origin)
        snprintf(origin + w, sizeof origin - (size_t)w, " (sm_%d, rescaled by gpus.csv)",
                 s->target->sm_arch);
    struct aug_kdb *k = NULL;
    int st = aug_kdb_new(s->target->id, origin, &k);
    for (int j = 0; j < s->n && st == AUG_OK; j++) {
        int nearer = aug_kdb_curve_count(k); /* taken from the donors before this one */
        for (int i = 0; i < aug_kdb_curve_count(s->d[j].kdb) && st == AUG_OK; i++) {
            const struct aug_curve *c = aug_kdb_curve_at(s->d[j].kdb, i);
            struct aug_curve r;
            if (!has_key(k, nearer, c) && rescale(c, &s->d[j].gpu, s->target, &r))
                st = aug_kdb_add_curve(k, &r);
        }
    }
    if (st != AUG_OK) {
        aug_kdb_close(k);
        return st;
    }
    *out = k;
    return AUG_OK;
}

int aug_kdb_open_predict(const char *root, const char *gpu_id, struct aug_kdb **out) {
    *out = NULL;
    struct aug_kdb *own = NULL;
    int st = aug_kdb_open(root, gpu_id, &own);
    if (st != AUG_OK || aug_kdb_curve_count(own) > 0) {
        *out = own;
        return st;
    }
    struct aug_gpu target;
    st = aug_gpu_lookup(root, gpu_id, &target);
    if (st == AUG_ENOTFOUND || (st == AUG_OK && target.sm_arch <= 0)) {
        *out = own; /* a GPU only a system JSON describes, or of unknown architecture */
        return AUG_OK;
    }
    if (st != AUG_OK) {
        aug_kdb_close(own);
        return st;
    }
    struct donor_scan s;
    memset(&s, 0, sizeof s);
    s.root = root;
    s.target = &target;
    st = aug_gpu_foreach(root, collect_donor, &s);
    if (st == AUG_OK && s.n > 0) {
        qsort(s.d, (size_t)s.n, sizeof s.d[0], donor_cmp);
        struct aug_kdb *k = NULL;
        st = build(&s, &k);
        if (st == AUG_OK && aug_kdb_curve_count(k) > 0) {
            aug_kdb_close(own);
            own = k;
        } else {
            aug_kdb_close(k);
        }
    }
    for (int j = 0; j < s.n; j++)
        aug_kdb_close(s.d[j].kdb);
    free(s.d);
    if (st != AUG_OK) {
        aug_kdb_close(own);
        return st;
    }
    *out = own;
    return AUG_OK;
}
