/* SPDX-License-Identifier: Apache-2.0 */
/* test_grid.c - the sweep grids of every family (bench_*.c): point counts per preset and
 * dtype selection, shapes that must be there (skinny decode GEMMs, decode attention),
 * collective size rounding and group sizes, identity keys without duplicates, device
 * support checks and the reference estimates. Counts are derived by hand in comments. */
#include "../aug_test.h"

#include "augur/status.h"
#include "bench.h"

static size_t count(enum aug_family f, enum aug_prof_preset preset, unsigned dtypes, int gpus,
                    int nodes) {
    struct aug_prof_grid_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.preset = preset;
    cfg.dtypes = dtypes;
    cfg.gpus = gpus;
    cfg.nodes = nodes;
    struct aug_prof_points pts;
    aug_prof_points_init(&pts);
    assert_int_equal(aug_prof_bench_points(f, &cfg, &pts), AUG_OK);
    size_t n = pts.n;
    aug_prof_points_release(&pts);
    return n;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every point of a grid has a distinct identity key. */
static void assert_unique(enum aug_family f, enum aug_prof_preset preset, unsigned dtypes) {
    struct aug_prof_grid_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.preset = preset;
    cfg.dtypes = dtypes;
    cfg.gpus = 8;
    cfg.nodes = 1;
    struct aug_prof_points pts;
    aug_prof_points_init(&pts);
    assert_int_equal(aug_prof_bench_points(f, &cfg, &pts), AUG_OK);
    char **keys = calloc(pts.n, sizeof *keys);
    assert_non_null(keys);
    for (size_t i = 0; i < pts.n; i++) {
        keys[i] = malloc(256);
        assert_int_equal(aug_prof_point_key(&pts.v[i], keys[i], 256), AUG_OK);
    }
    qsort(keys, pts.n, sizeof *keys, cmp_str);
    for (size_t i = 1; i < pts.n; i++)
        if (strcmp(keys[i - 1], keys[i]) == 0)
            fail_msg("duplicate point %s", keys[i]);
    for (size_t i = 0; i < pts.n; i++)
        free(keys[i]);
    free(keys);
    aug_prof_points_release(&pts);
}

#define BIT(d) AUG_PROF_DTYPE_BIT(d)

static void gemm_counts(void **state) {
    (void)state;
    /* quick: 6 squares (not 4096, a layer shape) + 3 (n, k) layer shapes x (9 decode m +
     * 3 prefill m) = 42 per dtype */
    assert_int_equal(count(AUG_FAMILY_GEMM, AUG_PROF_PRESET_QUICK, BIT(AUG_DTYPE_BF16), 8, 1), 42);
    /* default dtypes: fp32, tf32, bf16, fp16, and fp8 twice (fast and split accumulator) */
    assert_int_equal(count(AUG_FAMILY_GEMM, AUG_PROF_PRESET_QUICK, 0, 8, 1), 6 * 42);
    /* full: m in 1..16384 (15 powers of two) x n, k in 256..16384 (7 each) = 735 */
    assert_int_equal(count(AUG_FAMILY_GEMM, AUG_PROF_PRESET_FULL, BIT(AUG_DTYPE_BF16), 8, 1), 735);
    assert_int_equal(count(AUG_FAMILY_GEMM, AUG_PROF_PRESET_FULL, BIT(AUG_DTYPE_FP8), 8, 1),
                     2 * 735);
    assert_int_equal(count(AUG_FAMILY_GEMM, AUG_PROF_PRESET_FULL, 0, 8, 1), 6 * 735);
    /* a dtype the family does not implement selects nothing */
    assert_int_equal(count(AUG_FAMILY_GEMM, AUG_PROF_PRESET_QUICK, BIT(AUG_DTYPE_INT4), 8, 1), 0);
    assert_unique(AUG_FAMILY_GEMM, AUG_PROF_PRESET_FULL, 0);
    assert_unique(AUG_FAMILY_GEMM, AUG_PROF_PRESET_QUICK, 0);
}

/* fp8 shapes come twice, op "gemm" (fast accumulation) and "gemm_split_acc" (the split
 * accumulator of Transformer Engine's backward GEMMs); no other dtype has the second. */
static void gemm_fp8_split_accumulator(void **state) {
    (void)state;
    struct aug_prof_grid_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.dtypes = BIT(AUG_DTYPE_FP8) | BIT(AUG_DTYPE_BF16);
    struct aug_prof_points pts;
    aug_prof_points_init(&pts);
    assert_int_equal(aug_prof_bench_points(AUG_FAMILY_GEMM, &cfg, &pts), AUG_OK);
    size_t fast = 0, split = 0, bf16 = 0;
    for (size_t i = 0; i < pts.n; i++) {
        const struct aug_prof_point *p = &pts.v[i];
        if (p->dtype == AUG_DTYPE_BF16) {
            assert_string_equal(p->op, "gemm");
            bf16++;
        } else if (strcmp(p->op, "gemm_split_acc") == 0) {
            split++;
        } else {
            assert_string_equal(p->op, "gemm");
            fast++;
        }
    }
    assert_int_equal(fast, 42);
    assert_int_equal(split, 42);
    assert_int_equal(bf16, 42);
    aug_prof_points_release(&pts);
    struct aug_prof_device h100;
    memset(&h100, 0, sizeof h100);
    h100.cc_major = 9;
    h100.device_count = 1;
    h100.nodes = 1;
    char why[256];
    struct aug_prof_point p = aug_prof_point_make(AUG_FAMILY_GEMM, "gemm_split_acc",
                                                  AUG_DTYPE_FP8);
    p.m = p.n = p.k = 4096;
    const struct aug_prof_bench *g = aug_prof_bench_get(AUG_FAMILY_GEMM);
    assert_int_equal(g->supported(&p, &h100, why, sizeof why), 1);
    p.dtype = AUG_DTYPE_BF16;
    assert_int_equal(g->supported(&p, &h100, why, sizeof why), 0);
    assert_non_null(strstr(why, "fp8"));
}

static void gemm_has_decode_shapes(void **state) {
    (void)state;
    struct aug_prof_grid_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.dtypes = BIT(AUG_DTYPE_BF16);
    struct aug_prof_points pts;
    aug_prof_points_init(&pts);
    assert_int_equal(aug_prof_bench_points(AUG_FAMILY_GEMM, &cfg, &pts), AUG_OK);
    int seen[9] = {0};
    for (size_t i = 0; i < pts.n; i++) {
        const struct aug_prof_point *p = &pts.v[i];
        assert_int_equal(p->family, AUG_FAMILY_GEMM);
        assert_string_equal(p->op, "gemm");
        assert_int_equal(p->dtype, AUG_DTYPE_BF16);
        for (int b = 0; b < 9; b++)
            if (p->m == (1L << b) && p->n == 4096 && p->k == 4096)
                seen[b] = 1;
        assert_int_equal(p->batch, 0); /* unused shape columns stay empty */
        assert_int_equal(p->causal, -1);
    }
    for (int b = 0; b < 9; b++)
        if (!seen[b])
            fail_msg("no decode GEMM with m = %d", 1 << b);
    aug_prof_points_release(&pts);
}

static void attention_counts(void **state) {
    (void)state;
    /* quick: 2 ops x 2 head dims x 2 causal x 7 lengths (256..16384) = 56 prefill, plus
     * 2 head dims x 7 KV lengths (512..32768) of decoding = 70 */
    assert_int_equal(count(AUG_FAMILY_ATTENTION, AUG_PROF_PRESET_QUICK, 0, 8, 1), 70);
    /* full: 8 lengths (128..16384), each also with batch 1 except 16384 (batch already 1):
     * 15 per (op, d, causal) x 8 = 120; decoding 7 KV lengths x 3 batches x 2 dims = 42 */
    assert_int_equal(count(AUG_FAMILY_ATTENTION, AUG_PROF_PRESET_FULL, 0, 8, 1), 162);
    assert_int_equal(count(AUG_FAMILY_ATTENTION, AUG_PROF_PRESET_QUICK,
                           BIT(AUG_DTYPE_BF16) | BIT(AUG_DTYPE_FP16), 8, 1), 140); /* 2 x 70 */
    assert_unique(AUG_FAMILY_ATTENTION, AUG_PROF_PRESET_FULL,
                  BIT(AUG_DTYPE_BF16) | BIT(AUG_DTYPE_FP16));
    assert_unique(AUG_FAMILY_ATTENTION, AUG_PROF_PRESET_QUICK, 0);

    struct aug_prof_grid_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    struct aug_prof_points pts;
    aug_prof_points_init(&pts);
    assert_int_equal(aug_prof_bench_points(AUG_FAMILY_ATTENTION, &cfg, &pts), AUG_OK);
    int found_prefill = 0, found_decode = 0;
    for (size_t i = 0; i < pts.n; i++) {
        const struct aug_prof_point *p = &pts.v[i];
        assert_true(p->causal == 0 || p->causal == 1);
        assert_int_equal(p->heads * p->head_dim, 4096); /* a 4096-wide model */
        if (strcmp(p->op, "fused_fwd") == 0 && p->seq_q == 2048 && p->seq_kv == 2048 &&
            p->head_dim == 128 && p->causal == 1) {
            assert_int_equal(p->batch, 8); /* 16384 tokens */
            found_prefill = 1;
        }
        if (p->seq_q == 1 && p->seq_kv == 4096 && p->head_dim == 64) {
            /* decode points are their own op: never fitted with prefill points */
            assert_string_equal(p->op, "fused_decode_fwd");
            assert_int_equal(p->batch, 16);
            found_decode = 1;
        }
    }
    assert_true(found_prefill && found_decode);
    aug_prof_points_release(&pts);
}

static void memory_counts(void **state) {
    (void)state;
    /* quick: 7 sizes (1 MiB .. 4 GiB moved, x4) x (2 flat ops + 3 row ops at 4096
     * columns) = 35 per dtype; defaults bf16 and fp32 */
    assert_int_equal(count(AUG_FAMILY_MEMORY, AUG_PROF_PRESET_QUICK, 0, 8, 1), 70);
    /* full: 13 sizes x (2 + 3 ops x 3 widths) = 143 per dtype */
    assert_int_equal(count(AUG_FAMILY_MEMORY, AUG_PROF_PRESET_FULL, BIT(AUG_DTYPE_FP16), 8, 1),
                     143);
    assert_unique(AUG_FAMILY_MEMORY, AUG_PROF_PRESET_FULL, 0);
    assert_unique(AUG_FAMILY_MEMORY, AUG_PROF_PRESET_QUICK, 0);

    struct aug_prof_grid_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.dtypes = BIT(AUG_DTYPE_BF16);
    struct aug_prof_points pts;
    aug_prof_points_init(&pts);
    assert_int_equal(aug_prof_bench_points(AUG_FAMILY_MEMORY, &cfg, &pts), AUG_OK);
    int checked = 0;
    for (size_t i = 0; i < pts.n; i++) {
        const struct aug_prof_point *p = &pts.v[i];
        if (strcmp(p->op, "elementwise") == 0 && p->size_bytes < 1.1e6) {
            /* 1 MiB moved by z = x + y in bf16: floor(2^20 / 6) = 174762 elements */
            assert_near(p->size_bytes, 174762.0 * 6.0, 0);
            checked++;
        }
        if (strcmp(p->op, "rmsnorm") == 0 && p->m == 64) {
            /* 1 MiB moved = 2 x 64 rows x 4096 columns x 2 bytes */
            assert_int_equal(p->n, 4096);
            assert_near(p->size_bytes, 1048576.0, 0);
            checked++;
        }
    }
    assert_int_equal(checked, 2);
    aug_prof_points_release(&pts);
}

static void collective_counts_and_sizes(void **state) {
    (void)state;
    /* quick on 8 GPUs: groups {2, 8}, 11 sizes (1 KiB .. 1 GiB, x4), 5 collectives */
    assert_int_equal(count(AUG_FAMILY_COLLECTIVE, AUG_PROF_PRESET_QUICK, 0, 8, 1), 110);
    /* full: groups {2, 4, 8}, 21 sizes (x2) */
    assert_int_equal(count(AUG_FAMILY_COLLECTIVE, AUG_PROF_PRESET_FULL, 0, 8, 1), 315);
    /* 6 GPUs: groups {2, 4, 6} */
    assert_int_equal(count(AUG_FAMILY_COLLECTIVE, AUG_PROF_PRESET_QUICK, 0, 6, 1), 165);
    /* one GPU: nothing to measure */
    assert_int_equal(count(AUG_FAMILY_COLLECTIVE, AUG_PROF_PRESET_QUICK, 0, 1, 1), 0);
    /* MPI over 2 nodes of 8: the 16-rank world only */
    assert_int_equal(count(AUG_FAMILY_COLLECTIVE, AUG_PROF_PRESET_QUICK, 0, 8, 2), 55);
    assert_unique(AUG_FAMILY_COLLECTIVE, AUG_PROF_PRESET_FULL, 0);
    assert_unique(AUG_FAMILY_COLLECTIVE, AUG_PROF_PRESET_QUICK, 0);

    struct aug_prof_grid_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gpus = 6;
    cfg.nodes = 1;
    snprintf(cfg.algo, sizeof cfg.algo, "ring/ll128");
    struct aug_prof_points pts;
    aug_prof_points_init(&pts);
    assert_int_equal(aug_prof_bench_points(AUG_FAMILY_COLLECTIVE, &cfg, &pts), AUG_OK);
    int checked = 0;
    for (size_t i = 0; i < pts.n; i++) {
        const struct aug_prof_point *p = &pts.v[i];
        assert_string_equal(p->algo, "ring/ll128");
        assert_true(p->ranks_per_node == p->ranks); /* one node */
        if (p->ranks == 6 && strcmp(p->op, "all_gather") == 0 && p->size_bytes < 1100) {
            /* 1024 bytes over 6 ranks of bf16: whole 12-byte granules, 85 of them */
            assert_near(p->size_bytes, 1020.0, 0);
            checked++;
        }
        if (p->ranks == 6 && strcmp(p->op, "all_reduce") == 0 && p->size_bytes < 1100) {
            assert_near(p->size_bytes, 1024.0, 0);
            checked++;
        }
    }
    assert_int_equal(checked, 2);
    aug_prof_points_release(&pts);

    memset(&cfg, 0, sizeof cfg);
    cfg.gpus = 8;
    cfg.nodes = 2;
    aug_prof_points_init(&pts);
    assert_int_equal(aug_prof_bench_points(AUG_FAMILY_COLLECTIVE, &cfg, &pts), AUG_OK);
    assert_int_equal(pts.v[0].ranks, 16);
    assert_int_equal(pts.v[0].ranks_per_node, 8);
    aug_prof_points_release(&pts);
}

static void device_support(void **state) {
    (void)state;
    struct aug_prof_device a100, h100;
    memset(&a100, 0, sizeof a100);
    a100.cc_major = 8;
    a100.device_count = 8;
    a100.nodes = 1;
    h100 = a100;
    h100.cc_major = 9;
    char why[256];
    struct aug_prof_point p = aug_prof_point_make(AUG_FAMILY_GEMM, "gemm", AUG_DTYPE_FP8);
    p.m = p.n = p.k = 4096;
    const struct aug_prof_bench *g = aug_prof_bench_get(AUG_FAMILY_GEMM);
    assert_int_equal(g->supported(&p, &a100, why, sizeof why), 0);
    assert_non_null(strstr(why, "8.9"));
    assert_int_equal(g->supported(&p, &h100, why, sizeof why), 1);
    p.dtype = AUG_DTYPE_BF16;
    assert_int_equal(g->supported(&p, &a100, why, sizeof why), 1);

    struct aug_prof_point c = aug_prof_point_make(AUG_FAMILY_COLLECTIVE, "all_reduce",
                                                  AUG_DTYPE_BF16);
    c.ranks = 16;
    c.ranks_per_node = 8;
    c.size_bytes = 1024;
    const struct aug_prof_bench *coll = aug_prof_bench_get(AUG_FAMILY_COLLECTIVE);
    assert_int_equal(coll->supported(&c, &h100, why, sizeof why), 0);
    h100.nodes = 2;
    assert_int_equal(coll->supported(&c, &h100, why, sizeof why), 1);
}

static void estimates_and_work(void **state) {
    (void)state;
    struct aug_prof_point p = aug_prof_point_make(AUG_FAMILY_GEMM, "gemm", AUG_DTYPE_BF16);
    p.m = p.n = p.k = 8192;
    /* 2 * 8192^3 = 1.0995e12 FLOP at 0.7 x 989.4 TFLOP/s = 1587.6 us, + 5 us launch */
    assert_near(aug_prof_point_flops(&p), 2.0 * 8192.0 * 8192.0 * 8192.0, 0);
    double expect = 2.0 * 8192.0 * 8192.0 * 8192.0 / (989.4e12 * 0.7) * 1e6 + 5.0;
    assert_rel(aug_prof_bench_get(AUG_FAMILY_GEMM)->estimate_us(&p), expect, 1e-12);
    /* HBM bytes: 3 * 8192^2 * 2 */
    assert_near(aug_prof_point_bytes(&p), 3.0 * 8192 * 8192 * 2, 0);

    struct aug_prof_point c = aug_prof_point_make(AUG_FAMILY_COLLECTIVE, "all_reduce",
                                                  AUG_DTYPE_BF16);
    c.size_bytes = 1048576;
    c.ranks = 8;
    c.ranks_per_node = 8;
    /* bus bytes = S * 2 (n - 1) / n = 1835008 */
    assert_near(aug_prof_point_bytes(&c), 1835008.0, 1e-6);
    /* 15 us + 1835008 B / 350 GB/s = 15 + 5.2429 us */
    assert_near(aug_prof_bench_get(AUG_FAMILY_COLLECTIVE)->estimate_us(&c),
                15.0 + 1835008.0 / 350e3, 1e-9);

    struct aug_prof_point a = aug_prof_point_make(AUG_FAMILY_ATTENTION, "fused_fwd",
                                                  AUG_DTYPE_BF16);
    a.batch = 2;
    a.heads = 3;
    a.seq_q = a.seq_kv = 100;
    a.head_dim = 64;
    a.causal = 1;
    /* causal pairs 100*100 - 100^2/2 = 5000; 4 * 6 * 5000 * 64 */
    assert_near(aug_prof_point_flops(&a), 4.0 * 6 * 5000 * 64, 0);

    long v[8];
    assert_int_equal(aug_prof_pow2_range(256, 16384, 4, v, 8), 4); /* 256 1024 4096 16384 */
    assert_int_equal(v[3], 16384);
    assert_int_equal(aug_prof_pow2_range(1, 8, 2, v, 2), 2);       /* capped by cap */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gemm_counts),
        cmocka_unit_test(gemm_has_decode_shapes),
        cmocka_unit_test(gemm_fp8_split_accumulator),
        cmocka_unit_test(attention_counts),
        cmocka_unit_test(memory_counts),
        cmocka_unit_test(collective_counts_and_sizes),
        cmocka_unit_test(device_support),
        cmocka_unit_test(estimates_and_work),
    };
    return cmocka_run_group_tests_name("profiler grids", tests, NULL, NULL);
}
