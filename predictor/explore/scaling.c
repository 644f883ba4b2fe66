/* SPDX-License-Identifier: Apache-2.0 */
/* scaling.c - technology scaling: resource factors, the table of named technology
 * generations, what-if systems, calibrated curves carried over to them, and the
 * bottleneck study (which resource bounds a workload along a path of systems).
 *
 * Generations (per stack / per GPU figures; a step multiplies by the ratio):
 * - logic: one node step gives 0.67x area and 0.54x power per unit at the same clock
 *   (DeepFlow's technology-node sweep, the base of Optimus: nanocad-lab/DeepFlow,
 *   case_study/arch_search2/tech-node-scaling.py); with die area and power held, compute
 *   grows by the binding one, 1 / 0.67 = 1.49x per step, over the nodes 12, 10, 7, 5, 3,
 *   2, 1 nm (Optimus sweeps 12 nm to 1 nm).
 * - HBM: interface width x pin rate and the largest stack of the JEDEC generation.
 * - NVLink: links per GPU x per-link bandwidth, one direction.
 * - InfiniBand: port rate, one NIC per GPU, one direction. */
#include "augur/scaling.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "augur/csvio.h"
#include "augur/progress.h"
#include "augur/status.h"
#include "augur/units.h"
#include "hw/gemm_model.h"

static const char *const res_names[] = {"compute", "hbm_bw", "hbm_cap", "nvlink_bw",
                                        "nvlink_lat", "net_bw", "net_lat"};
_Static_assert(sizeof res_names / sizeof *res_names == AUG_RES_COUNT, "resource names out of sync");

const char *aug_resource_name(enum aug_resource r) {
    return (unsigned)r < AUG_RES_COUNT ? res_names[r] : "?";
}

int aug_resource_from_name(const char *name, enum aug_resource *out) {
    static const struct {
        const char *alias;
        enum aug_resource r;
    } aliases[] = {{"hbm", AUG_RES_HBM_BW},          {"memory_bw", AUG_RES_HBM_BW},
                   {"network_bw", AUG_RES_NET_BW},   {"network_lat", AUG_RES_NET_LAT},
                   {"nvlink", AUG_RES_NVLINK_BW},    {"net", AUG_RES_NET_BW},
                   {"network", AUG_RES_NET_BW},      {"flops", AUG_RES_COMPUTE}};
    for (int i = 0; i < AUG_RES_COUNT; i++)
        if (strcasecmp(name, res_names[i]) == 0) {
            *out = (enum aug_resource)i;
            return AUG_OK;
        }
    for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
        if (strcasecmp(name, aliases[i].alias) == 0) {
            *out = aliases[i].r;
            return AUG_OK;
        }
    return aug_errorf(AUG_EUSAGE, "unknown resource '%s' (use compute, hbm_bw, hbm_cap, "
                                  "nvlink_bw, nvlink_lat, net_bw or net_lat)", name);
}

int aug_resource_is_latency(enum aug_resource r) {
    return r == AUG_RES_NVLINK_LAT || r == AUG_RES_NET_LAT;
}

void aug_scale_init(struct aug_scale *sc) {
    for (int i = 0; i < AUG_RES_COUNT; i++)
        sc->f[i] = 1.0;
}

int aug_scale_is_identity(const struct aug_scale *sc) {
    for (int i = 0; i < AUG_RES_COUNT; i++)
        if (sc->f[i] != 1.0)
            return 0;
    return 1;
}

void aug_scale_improve(struct aug_scale *sc, enum aug_resource r, double k) {
    if ((unsigned)r >= AUG_RES_COUNT)
        return;
    sc->f[r] = aug_resource_is_latency(r) ? sc->f[r] / k : sc->f[r] * k;
}

void aug_scale_describe(const struct aug_scale *sc, char *buf, size_t n) {
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < AUG_RES_COUNT && used < n; i++) {
        if (sc->f[i] == 1.0)
            continue;
        int w = snprintf(buf + used, n - used, "%s%s x%.4g", used ? ", " : "", res_names[i], sc->f[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    if (!used)
        snprintf(buf, n, "none");
}

int aug_scale_parse(const char *spec, struct aug_scale *sc) {
    if (!spec || !*spec)
        return aug_errorf(AUG_EUSAGE, "--scale: empty list (use e.g. compute=2,hbm_bw=1.5)");
    char item[128];
    const char *p = spec;
    while (*p) {
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof item)
            return aug_errorf(AUG_EUSAGE, "--scale: bad item in '%s'", spec);
        memcpy(item, p, len);
        item[len] = '\0';
        p += len + (p[len] == ',');
        char *eq = strchr(item, '=');
        if (!eq)
            return aug_errorf(AUG_EUSAGE, "--scale: '%s' is not name=factor", item);
        *eq = '\0';
        double v;
        if (aug_parse_double(eq + 1, item, &v) != AUG_OK)
            return aug_errorf(AUG_EUSAGE, "--scale: %s", aug_last_error());
        if (!(v > 0) || v > 1e6)
            return aug_errorf(AUG_EUSAGE, "--scale: factor %s=%g must be in (0, 1e6]", item, v);
        if (strcasecmp(item, "all") == 0) {
            for (int r = 0; r < AUG_RES_COUNT; r++)
                if (r != AUG_RES_HBM_CAP)
                    aug_scale_improve(sc, (enum aug_resource)r, v);
            continue;
        }
        enum aug_resource r = AUG_RES_COMPUTE;
        if (aug_resource_from_name(item, &r) != AUG_OK)
            return aug_errorf(AUG_EUSAGE, "--scale: %s", aug_last_error());
        sc->f[r] *= v;
    }
    return AUG_OK;
}

/* ---- technology generations -------------------------------------------------------- */

#define LOGIC_STEP (1.0 / 0.67)

static const struct aug_tech techs[] = {
    /* logic: relative compute at the same die area and power, 12 nm = 1 */
    {"n12", AUG_TECH_LOGIC, 1.0, 0, "12 nm class (V100 TSMC 12FFN); reference of the logic steps",
     "DeepFlow tech-node sweep: per node 0.67x area, 0.54x power, same clock"},
    {"n10", AUG_TECH_LOGIC, LOGIC_STEP, 0, "one node step: 1/0.67 = 1.49x compute at iso-area and iso-power",
     "DeepFlow tech-node sweep"},
    {"n7", AUG_TECH_LOGIC, LOGIC_STEP * LOGIC_STEP, 0, "7 nm class (A100 TSMC N7)", "DeepFlow tech-node sweep"},
    {"n5", AUG_TECH_LOGIC, LOGIC_STEP * LOGIC_STEP * LOGIC_STEP, 0,
     "5 nm class (H100/H200 TSMC 4N, B200 4NP)", "DeepFlow tech-node sweep"},
    {"n3", AUG_TECH_LOGIC, LOGIC_STEP * LOGIC_STEP * LOGIC_STEP * LOGIC_STEP, 0, "3 nm class",
     "DeepFlow tech-node sweep"},
    {"n2", AUG_TECH_LOGIC, LOGIC_STEP * LOGIC_STEP * LOGIC_STEP * LOGIC_STEP * LOGIC_STEP, 0,
     "2 nm class", "DeepFlow tech-node sweep"},
    {"n1", AUG_TECH_LOGIC, LOGIC_STEP * LOGIC_STEP * LOGIC_STEP * LOGIC_STEP * LOGIC_STEP * LOGIC_STEP,
     0, "1 nm class (end of the Optimus sweep)", "DeepFlow tech-node sweep"},
    /* HBM: GB/s and GB per stack */
    {"hbm2", AUG_TECH_HBM, 256.0, 8.0, "1024 bits x 2.0 Gb/s; 8-high x 8 Gb", "JEDEC JESD235A"},
    {"hbm2e", AUG_TECH_HBM, 409.6, 16.0, "1024 bits x 3.2 Gb/s; 8-high x 16 Gb (A100 80GB: 5 x 408 GB/s)",
     "JEDEC JESD235C"},
    {"hbm3", AUG_TECH_HBM, 819.2, 24.0, "1024 bits x 6.4 Gb/s; 12-high x 16 Gb", "JEDEC JESD238"},
    {"hbm3e", AUG_TECH_HBM, 1228.8, 36.0, "1024 bits x 9.6 Gb/s; 12-high x 24 Gb",
     "SK hynix / Micron HBM3E product briefs (9.2-9.8 Gb/s, 24-36 GB)"},
    {"hbm4", AUG_TECH_HBM, 2048.0, 64.0, "2048 bits x 8 Gb/s; 16-high x 32 Gb", "JEDEC JESD270-4 (2025)"},
    /* NVLink: GB/s per GPU, one direction */
    {"nvlink2", AUG_TECH_NVLINK, 150.0, 0, "V100: 6 links x 25 GB/s", "NVIDIA V100 whitepaper"},
    {"nvlink3", AUG_TECH_NVLINK, 300.0, 0, "A100: 12 links x 25 GB/s", "NVIDIA A100 whitepaper"},
    {"nvlink4", AUG_TECH_NVLINK, 450.0, 0, "H100: 18 links x 25 GB/s", "NVIDIA H100 whitepaper"},
    {"nvlink5", AUG_TECH_NVLINK, 900.0, 0, "B200: 18 links x 50 GB/s", "NVIDIA Blackwell datasheets"},
    {"nvlink6", AUG_TECH_NVLINK, 1800.0, 0, "Rubin: 3.6 TB/s bidirectional per GPU (announced)",
     "NVIDIA Vera Rubin NVL144 announcement (GTC 2025)"},
    /* InfiniBand: GB/s per port (one per GPU), one direction */
    {"edr", AUG_TECH_NETWORK, 12.5, 0, "EDR 100 Gb/s", "InfiniBand Trade Association roadmap"},
    {"hdr", AUG_TECH_NETWORK, 25.0, 0, "HDR 200 Gb/s (DGX A100)", "InfiniBand Trade Association roadmap"},
    {"ndr", AUG_TECH_NETWORK, 50.0, 0, "NDR 400 Gb/s (DGX H100/B200)", "InfiniBand Trade Association roadmap"},
    {"xdr", AUG_TECH_NETWORK, 100.0, 0, "XDR 800 Gb/s (Quantum-X800)", "InfiniBand Trade Association roadmap"},
};

int aug_tech_count(void) { return (int)(sizeof techs / sizeof *techs); }

const struct aug_tech *aug_tech_at(int i) {
    return i >= 0 && i < aug_tech_count() ? &techs[i] : NULL;
}

const struct aug_tech *aug_tech_find(const char *name) {
    for (int i = 0; i < aug_tech_count(); i++)
        if (strcasecmp(name, techs[i].name) == 0)
            return &techs[i];
    return NULL;
}

static const struct aug_tech *link_tech(enum aug_tech_kind kind, double bw) {
    for (int i = 0; i < aug_tech_count(); i++)
        if (techs[i].kind == kind && fabs(techs[i].value - bw) <= 0.01 * techs[i].value)
            return &techs[i];
    return NULL;
}

const struct aug_tech *aug_tech_of(const struct aug_system *s, enum aug_tech_kind kind) {
    static const struct {
        const char *gpu_prefix, *logic, *hbm;
    } gpus[] = {{"v100", "n12", "hbm2"},       {"a100-40g", "n7", "hbm2"},
                {"a100-80g", "n7", "hbm2e"},   {"h100", "n5", "hbm3"},
                {"h800", "n5", "hbm3"},        {"h200", "n5", "hbm3e"},
                {"b200", "n5", "hbm3e"},       {"gb200", "n5", "hbm3e"}};
    switch (kind) {
    case AUG_TECH_LOGIC:
    case AUG_TECH_HBM:
        for (size_t i = 0; i < sizeof gpus / sizeof *gpus; i++)
            if (strncmp(s->gpu.id, gpus[i].gpu_prefix, strlen(gpus[i].gpu_prefix)) == 0)
                return aug_tech_find(kind == AUG_TECH_LOGIC ? gpus[i].logic : gpus[i].hbm);
        return NULL;
    case AUG_TECH_NVLINK:
        return link_tech(kind, s->link[AUG_LINK_NVLINK].bw_gbps);
    case AUG_TECH_NETWORK:
        return link_tech(kind, s->link[AUG_LINK_NETWORK].bw_gbps);
    default:
        return NULL;
    }
}

static const char *const kind_names[] = {"logic node", "HBM generation", "NVLink generation",
                                         "InfiniBand generation"};
_Static_assert(sizeof kind_names / sizeof *kind_names == AUG_TECH_KIND_COUNT, "kind names");

int aug_scale_generation(const struct aug_system *s, const char *spec, struct aug_scale *sc) {
    if (!spec || !*spec)
        return aug_errorf(AUG_EUSAGE, "--generation: empty list (use e.g. hbm3:hbm4,nvlink4:nvlink5)");
    char item[96];
    const char *p = spec;
    while (*p) {
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof item)
            return aug_errorf(AUG_EUSAGE, "--generation: bad item in '%s'", spec);
        memcpy(item, p, len);
        item[len] = '\0';
        p += len + (p[len] == ',');
        char *to_name = item, *from_name = NULL;
        char *sep = strstr(item, "->");
        if (sep) {
            *sep = '\0';
            from_name = item;
            to_name = sep + 2;
        } else if ((sep = strchr(item, ':')) != NULL) {
            *sep = '\0';
            from_name = item;
            to_name = sep + 1;
        }
        const struct aug_tech *to = aug_tech_find(to_name), *from;
        if (!to)
            return aug_errorf(AUG_EUSAGE, "--generation: unknown technology '%s' (augur sweep "
                                          "--list-generations lists them)", to_name);
        if (from_name) {
            from = aug_tech_find(from_name);
            if (!from)
                return aug_errorf(AUG_EUSAGE, "--generation: unknown technology '%s'", from_name);
            if (from->kind != to->kind)
                return aug_errorf(AUG_EUSAGE, "--generation: '%s' is a %s and '%s' a %s", from->name,
                                  kind_names[from->kind], to->name, kind_names[to->kind]);
        } else {
            from = aug_tech_of(s, to->kind);
            if (!from)
                return aug_errorf(AUG_EUSAGE, "--generation: cannot tell which %s %s (%s) is "
                                              "built from; write it as from:%s",
                                  kind_names[to->kind], s->name, s->gpu.id, to->name);
        }
        double k = to->value / from->value;
        switch (to->kind) {
        case AUG_TECH_LOGIC: sc->f[AUG_RES_COMPUTE] *= k; break;
        case AUG_TECH_HBM:
            sc->f[AUG_RES_HBM_BW] *= k;
            sc->f[AUG_RES_HBM_CAP] *= to->capacity_gb / from->capacity_gb;
            break;
        case AUG_TECH_NVLINK: sc->f[AUG_RES_NVLINK_BW] *= k; break;
        case AUG_TECH_NETWORK: sc->f[AUG_RES_NET_BW] *= k; break;
        default: break;
        }
    }
    return AUG_OK;
}

/* ---- what-if systems and curves ---------------------------------------------------- */

int aug_scale_system(const struct aug_system *in, const struct aug_scale *sc,
                     struct aug_system *out) {
    for (int i = 0; i < AUG_RES_COUNT; i++)
        if (!(sc->f[i] > 0) || !isfinite(sc->f[i]))
            return aug_errorf(AUG_EUSAGE, "scale factor %s = %g must be positive", res_names[i],
                              sc->f[i]);
    if (out != in)
        *out = *in;
    if (aug_scale_is_identity(sc))
        return AUG_OK;
    struct aug_gpu *g = &out->gpu;
    for (int d = 0; d < AUG_DTYPE_COUNT; d++)
        g->peak_tflops[d] *= sc->f[AUG_RES_COMPUTE];
    g->vector_tflops *= sc->f[AUG_RES_COMPUTE];
    /* The achievable ceilings move with what they are a share of: the structural kernel
     * models of a GPU without curves run at them (hw/gemm_model.c), so a what-if that left
     * them would change nothing there. The on-chip L2 moves with compute, as the curves'
     * L2 term does below. */
    g->ach_tflops_bf16 *= sc->f[AUG_RES_COMPUTE];
    g->ach_tflops_fp8 *= sc->f[AUG_RES_COMPUTE];
    g->ach_tflops_fp32 *= sc->f[AUG_RES_COMPUTE];
    g->l2_gbps = aug_gpu_l2_gbps(g) * sc->f[AUG_RES_COMPUTE];
    g->ach_hbm_gbps *= sc->f[AUG_RES_HBM_BW];
    g->hbm_gbps *= sc->f[AUG_RES_HBM_BW];
    g->hbm_gib *= sc->f[AUG_RES_HBM_CAP];
    out->link[AUG_LINK_NVLINK].bw_gbps *= sc->f[AUG_RES_NVLINK_BW];
    out->link[AUG_LINK_NVLINK].latency_us *= sc->f[AUG_RES_NVLINK_LAT];
    out->link[AUG_LINK_NETWORK].bw_gbps *= sc->f[AUG_RES_NET_BW];
    out->link[AUG_LINK_NETWORK].latency_us *= sc->f[AUG_RES_NET_LAT];
    char desc[256], name[sizeof out->name];
    aug_scale_describe(sc, desc, sizeof desc);
    snprintf(name, sizeof name, "%.*s*", (int)sizeof name - 2, in->name);
    memcpy(out->name, name, sizeof name);
    size_t used = strlen(out->source);
    snprintf(out->source + used, sizeof out->source - used, "%swhat-if from %s: %s",
             used ? "; " : "", in->name, desc);
    return AUG_OK;
}

/* Does the scale change any calibrated time curve? */
static int touches_curves(const struct aug_scale *sc) {
    return sc->f[AUG_RES_COMPUTE] != 1.0 || sc->f[AUG_RES_HBM_BW] != 1.0 ||
           sc->f[AUG_RES_NVLINK_BW] != 1.0 || sc->f[AUG_RES_NVLINK_LAT] != 1.0 ||
           sc->f[AUG_RES_NET_BW] != 1.0 || sc->f[AUG_RES_NET_LAT] != 1.0;
}

/* Rescale one curve's parameters (curve.h gives their meaning). Efficiency forms need
 * nothing: their efficiency applies to the scaled peak. Time forms used through their
 * efficiency against the calibration peak (GEMM) already move with compute as a whole, so
 * their launch term is multiplied back and their byte term moved to HBM bandwidth. */
static void rescale(struct aug_curve *c, const struct aug_scale *sc) {
    double comp = sc->f[AUG_RES_COMPUTE], mem = sc->f[AUG_RES_HBM_BW];
    if (strcmp(c->form, "gemm_roof") == 0 && c->n_params >= 5) {
        c->p[0] *= comp;
        c->p[3] *= comp / mem;
    } else if (strcmp(c->form, "gemm_tile") == 0 && c->n_params >= 3) {
        /* p2 is a bandwidth: after the whole time divides by comp, bytes / (p2 mem / comp)
         * / comp = bytes / (p2 mem); the main loop (p1) and the on-chip L2 (p5) move with
         * compute */
        c->p[0] *= comp;
        c->p[2] *= mem / comp;
    } else if (strcmp(c->form, "gemm_time") == 0 && c->n_params >= 3) {
        c->p[0] *= comp;
        c->p[2] *= comp / mem;
    } else if (strcmp(c->form, "linear") == 0 && c->family == AUG_FAMILY_MEMORY) {
        c->p[1] /= mem;
    } else if (strcmp(c->form, "linear") == 0 && c->family == AUG_FAMILY_COLLECTIVE) {
        int net = strcmp(c->link, "network") == 0;
        c->p[0] *= sc->f[net ? AUG_RES_NET_LAT : AUG_RES_NVLINK_LAT];
        c->p[1] /= sc->f[net ? AUG_RES_NET_BW : AUG_RES_NVLINK_BW];
    }
}

static void write_num(struct aug_csv_writer *w, double v) {
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", v);
    aug_csv_write_str(w, buf);
}

static int write_curves(const char *path, const struct aug_kdb *kdb, const struct aug_scale *sc) {
    struct aug_csv_writer *w;
    int st = aug_csv_writer_open(path, 0, &w);
    if (st != AUG_OK)
        return st;
    static const char *const head[] = {"family", "op", "dtype", "ranks", "link", "form", "p0", "p1",
                                       "p2", "p3", "p4", "p5", "p6", "p7", "x_min", "x_max",
                                       "n_points", "rel_rmse", "max_rel_err", "cv_rel_err", "source"};
    _Static_assert(AUG_CURVE_MAX_PARAMS == 8, "header lists p0..p7");
    for (size_t i = 0; i < sizeof head / sizeof *head; i++)
        aug_csv_write_str(w, head[i]);
    aug_csv_end_row(w);
    for (int i = 0; i < aug_kdb_curve_count(kdb); i++) {
        struct aug_curve c = *aug_kdb_curve_at(kdb, i);
        rescale(&c, sc);
        aug_csv_write_str(w, aug_family_name(c.family));
        aug_csv_write_str(w, c.op);
        aug_csv_write_str(w, aug_dtype_name(c.dtype));
        aug_csv_write_int(w, c.ranks);
        aug_csv_write_str(w, c.link);
        aug_csv_write_str(w, c.form);
        for (int k = 0; k < AUG_CURVE_MAX_PARAMS; k++) {
            if (k < c.n_params)
                write_num(w, c.p[k]);
            else
                aug_csv_write_empty(w);
        }
        write_num(w, c.x_min);
        write_num(w, c.x_max);
        aug_csv_write_int(w, c.n_points);
        double errs[3] = {c.rel_rmse, c.max_rel_err, c.cv_rel_err};
        for (int k = 0; k < 3; k++) {
            if (errs[k] >= 0)
                write_num(w, errs[k]);
            else
                aug_csv_write_empty(w);
        }
        aug_csv_write_str(w, c.source);
        aug_csv_end_row(w);
    }
    return aug_csv_writer_commit(w);
}

int aug_scale_kdb(const char *root, const char *gpu_id, const struct aug_scale *sc,
                  struct aug_kdb **out) {
    *out = NULL;
    struct aug_kdb *base = NULL;
    int st = aug_kdb_open_predict(root, gpu_id, &base);
    if (st != AUG_OK || !touches_curves(sc) || aug_kdb_curve_count(base) == 0) {
        *out = base;
        return st;
    }
    const char *tmp = getenv("TMPDIR");
    char dir[512], sub[600], path[700];
    snprintf(dir, sizeof dir, "%s/augur-whatif-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        aug_kdb_close(base);
        return aug_errorf(AUG_EIO, "what-if curves: cannot create a folder under %s: %s",
                          tmp && *tmp ? tmp : "/tmp", strerror(errno));
    }
    snprintf(sub, sizeof sub, "%s/%s", dir, gpu_id);
    snprintf(path, sizeof path, "%s/curves.csv", sub);
    if (mkdir(sub, 0700) != 0) {
        st = aug_errorf(AUG_EIO, "what-if curves: cannot create %s: %s", sub, strerror(errno));
    } else {
        st = write_curves(path, base, sc);
        if (st == AUG_OK)
            st = aug_kdb_open(dir, gpu_id, out);
        remove(path);
        rmdir(sub);
    }
    rmdir(dir);
    aug_kdb_close(base);
    return st;
}

/* ---- bottleneck study -------------------------------------------------------------- */

/* Best plan of one what-if system. */
static int best_of(const struct aug_scaling_study *st, const struct aug_system *preset,
                   const struct aug_scale *sc, struct aug_system *sys_out,
                   struct aug_sweep_entry *best, int *found, uint64_t *evaluated) {
    struct aug_system sys;
    int rc = aug_scale_system(preset, sc, &sys);
    if (rc != AUG_OK)
        return rc;
    struct aug_kdb *kdb = NULL;
    if (st->kdb_enabled && (rc = aug_scale_kdb(st->kdb_root, preset->gpu.id, sc, &kdb)) != AUG_OK)
        return rc;
    struct aug_sweep_config cfg = st->sweep;
    cfg.system = &sys;
    cfg.options.kdb = kdb;
    cfg.top_k = 1;
    cfg.progress = NULL;
    cfg.part = 0;
    cfg.n_parts = 1;
    struct aug_sweep_result r;
    rc = aug_sweep_train(&cfg, &r);
    aug_kdb_close(kdb);
    if (rc != AUG_OK)
        return rc;
    *found = r.n_top > 0;
    if (*found)
        *best = r.top[0];
    if (evaluated)
        *evaluated = r.plans_evaluated;
    if (sys_out)
        *sys_out = sys;
    aug_sweep_result_free(&r);
    return AUG_OK;
}

int aug_scaling_run(const struct aug_scaling_study *st, struct aug_scaling_point *pts, int n) {
    double k = st->improve > 1.0 ? st->improve : 2.0;
    double ref = 0.0;
    for (int i = 0; i < n; i++) {
        struct aug_scaling_point *pt = &pts[i];
        int rc = best_of(st, &pt->preset, &pt->scale, &pt->system, &pt->best, &pt->found,
                         &pt->plans_evaluated);
        if (rc != AUG_OK)
            return rc;
        aug_progress("sweep scaling: searches", (long)i * (1 + AUG_RES_COUNT) + 1,
                     (long)n * (1 + AUG_RES_COUNT));
        double t = pt->found ? pt->best.result.step_time_s : INFINITY;
        if (i == 0)
            ref = t;
        pt->speedup = pt->found && isfinite(ref) ? ref / t : 0.0;
        pt->bound = AUG_RES_COMPUTE;
        double top = -1.0;
        for (int r = 0; r < AUG_RES_COUNT; r++) {
            struct aug_scale sc = pt->scale;
            aug_scale_improve(&sc, (enum aug_resource)r, k);
            struct aug_sweep_entry b;
            int found;
            if ((rc = best_of(st, &pt->preset, &sc, NULL, &b, &found, NULL)) != AUG_OK)
                return rc;
            aug_progress("sweep scaling: searches", (long)i * (1 + AUG_RES_COUNT) + r + 2,
                         (long)n * (1 + AUG_RES_COUNT));
            double s = !found ? (pt->found ? 0.0 : 1.0)
                              : (pt->found ? t / b.result.step_time_s : INFINITY);
            pt->sensitivity[r] = s;
            if (s > top) {
                top = s;
                pt->bound = (enum aug_resource)r;
            }
        }
    }
    return AUG_OK;
}
