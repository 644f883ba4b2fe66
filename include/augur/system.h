/* SPDX-License-Identifier: Apache-2.0 */
/* system.h - GPUs and the systems built from them.
 *
 * A GPU is one row of kernels-db/gpus.csv (peaks per dtype, HBM, SMs, ...). A system is
 * GPUs plus how they are wired: GPUs per node, the NVLink domain, and per-GPU link
 * bandwidth and latency inside the domain and across the network. Presets live in
 * presets/systems.json; users describe their own cluster in the same JSON format. */
#ifndef AUG_SYSTEM_H
#define AUG_SYSTEM_H

#include "augur/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

struct aug_gpu {
    char id[32];    /* kernels-db folder name, e.g. "h100-80g" */
    char name[64];  /* marketing name, e.g. "H100 SXM5 80GB" */
    int sm_count;
    double clock_mhz;                        /* boost clock the peaks assume */
    double peak_tflops[AUG_DTYPE_COUNT];     /* dense tensor-core peaks; fp32 = non-tensor;
                                                0 = the GPU cannot run that dtype */
    double vector_tflops;                    /* non-tensor fp32 FMA peak (CUDA cores) */
    double hbm_gib;                          /* capacity */
    double hbm_gbps;                         /* bandwidth, 1e9 B/s */
    double l2_mib;
    double smem_kib_per_sm;                  /* shared memory (SRAM) usable per SM */
    double launch_us;                        /* per-kernel launch + tail overhead */
    /* achievable ceilings (0 = not given: hw/gemm_model.c uses documented fractions) */
    double ach_tflops_bf16;                  /* dense bf16/fp16 rate cuBLAS reaches */
    double ach_tflops_fp8;                   /* the same for fp8 (fp32 accumulation) */
    double ach_tflops_fp32;                  /* SGEMM on the CUDA cores */
    double ach_hbm_gbps;                     /* STREAM-like copy bandwidth, 1e9 B/s */
    double l2_gbps;                          /* L2 -> SM bandwidth, 1e9 B/s */
    double gemm_scale;                       /* (0, 1]: share of the achievable tensor-core
                                                rates the GEMM main loop holds in training
                                                where no GEMM sweep of this GPU exists
                                                (fitted on published runs); 0 = not given: 1 */
    int sm_arch;                             /* CUDA compute capability x 10 (90: sm_90); 0 = not given */
    char source[1024];
};

enum aug_link {
    AUG_LINK_NVLINK,  /* inside the NVLink (scale-up) domain */
    AUG_LINK_NETWORK, /* across nodes: InfiniBand / RoCE, one NIC per GPU */
    AUG_LINK_COUNT
};

/* "nvlink", "network". */
const char *aug_link_name(enum aug_link l);

struct aug_link_spec {
    double bw_gbps;    /* per GPU, per direction, 1e9 B/s */
    double latency_us; /* per message step (one hop of a ring / tree) */
};

struct aug_system {
    char name[64];
    struct aug_gpu gpu;
    int gpus_per_node;
    int nvlink_domain; /* GPUs that share one NVLink domain (8 for DGX, 72 for NVL72) */
    struct aug_link_spec link[AUG_LINK_COUNT];
    /* host CPU time to issue one kernel relative to the x86 DGX hosts the frameworks' host
     * costs were fitted on (train/framework.c): 1 there; Grace hosts (GB200) about 1.9 */
    double host_issue_scale;
    char source[1024];
};

/* The system's host_issue_scale, 1 where none was set (a system built field by field). */
double aug_system_host_issue_scale(const struct aug_system *s);

/* Load a GPU row from <kernels-db>/gpus.csv by id. kdb_root NULL: default data dir. */
int aug_gpu_lookup(const char *kdb_root, const char *gpu_id, struct aug_gpu *out);
/* Call fn on every row of <kdb_root>/gpus.csv in file order; stops at the first non-zero
 * return of fn and returns it. A row that does not parse, or a repeated gpu_id, is an
 * error naming its line (the checks of aug_gpu_lookup). */
int aug_gpu_foreach(const char *kdb_root, int (*fn)(const struct aug_gpu *, void *), void *ctx);

/* Load a system by preset name or by path to a system JSON (anything with '/' or
 * ending in .json is a path). Unknown names list the close ones in the message. */
int aug_system_load(const char *kdb_root, const char *name_or_path, struct aug_system *out);

/* Parse a system JSON text (`origin` names it in messages). */
int aug_system_from_json(const char *kdb_root, const char *origin, const char *text,
                         struct aug_system *out);

/* Call fn for every preset system (for `augur systems`). */
int aug_system_foreach(const char *kdb_root, void (*fn)(const struct aug_system *, void *),
                       void *user);

#ifdef __cplusplus
}
#endif
#endif
