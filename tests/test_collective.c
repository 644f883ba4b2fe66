/* SPDX-License-Identifier: Apache-2.0 */
/* test_collective.c - collective times against the alpha-beta formulas computed by hand.
 *
 * nccl-tests (doc/PERFORMANCE.md) bus-bandwidth factors for n ranks: all-reduce 2(n-1)/n;
 * all-gather, reduce-scatter and all-to-all (n-1)/n; send/recv and broadcast 1. A ring
 * all-reduce of S bytes takes 2(n-1) latency steps and moves S * 2(n-1)/n bytes through
 * each rank's link: t = 2(n-1) lat + S 2(n-1)/n / (bw eff); all-gather and reduce-scatter
 * take n-1 steps. The link numbers come from the dgx-h100 preset (NVLink 450 GB/s per
 * direction, 1.9 us per step; one 50 GB/s NIC per GPU, 4.0 us) and the efficiencies from
 * the documented default table (predictor/hw/efficiency.c: NVLink 0.77, network 0.90). */
#include "aug_test.h"

#include <sys/stat.h>
#include <unistd.h>

#include "augur/collective.h"
#include "augur/kdb.h"
#include "augur/op.h"
#include "augur/status.h"
#include "augur/system.h"

#include "hw/efficiency.h"

#define KDB AUG_TEST_SOURCE_DIR "/kernels-db"

static struct aug_system h100;
static char tmp_root[64];
static char gpu_dir[300], curves_path[340];

static int group_setup(void **state) {
    (void)state;
    if (aug_system_load(KDB, "dgx-h100", &h100) != AUG_OK)
        return -1;
    snprintf(tmp_root, sizeof tmp_root, "/tmp/aug_coll_test_XXXXXX");
    if (!mkdtemp(tmp_root))
        return -1;
    snprintf(gpu_dir, sizeof gpu_dir, "%s/h100-80g", tmp_root);
    snprintf(curves_path, sizeof curves_path, "%s/curves.csv", gpu_dir);
    return mkdir(gpu_dir, 0700);
}

static int group_teardown(void **state) {
    (void)state;
    remove(curves_path);
    rmdir(gpu_dir);
    rmdir(tmp_root);
    return 0;
}

static double nv_busbw(void) {
    return h100.link[AUG_LINK_NVLINK].bw_gbps * 1e9 * aug_eff_defaults()->coll_eff[AUG_LINK_NVLINK];
}
static double nv_lat(void) { return h100.link[AUG_LINK_NVLINK].latency_us * 1e-6; }
static double net_lat(void) { return h100.link[AUG_LINK_NETWORK].latency_us * 1e-6; }
static double nic_busbw(void) {
    return h100.link[AUG_LINK_NETWORK].bw_gbps * 1e9 *
           aug_eff_defaults()->coll_eff[AUG_LINK_NETWORK];
}

static struct aug_coll_time ctime_ok(const struct aug_kdb *kdb, enum aug_coll c, double size,
                                     int ranks, int per_domain, enum aug_coll_algo algo) {
    struct aug_coll_time t;
    int st = aug_coll_time(&h100, kdb, c, size, ranks, per_domain, algo, &t);
    if (st != AUG_OK)
        fail_msg("aug_coll_time: %s", aug_last_error());
    return t;
}

static void test_system_numbers(void **state) {
    (void)state;
    /* the numbers every expectation below is built from */
    assert_near(h100.link[AUG_LINK_NVLINK].bw_gbps, 450, 0);
    assert_near(h100.link[AUG_LINK_NVLINK].latency_us, 1.9, 1e-12);
    assert_near(h100.link[AUG_LINK_NETWORK].bw_gbps, 50, 0);
    assert_near(h100.link[AUG_LINK_NETWORK].latency_us, 4.0, 1e-12);
    assert_near(aug_eff_defaults()->coll_eff[AUG_LINK_NVLINK], 0.77, 1e-12);
    assert_near(aug_eff_defaults()->coll_eff[AUG_LINK_NETWORK], 0.90, 1e-12);
}

static void test_busbw_factors(void **state) {
    (void)state;
    for (int n = 2; n <= 64; n++) {
        double dn = n;
        assert_rel(aug_coll_busbw_factor(AUG_COLL_ALL_REDUCE, n), 2.0 * (dn - 1.0) / dn, 1e-15);
        assert_rel(aug_coll_busbw_factor(AUG_COLL_ALL_GATHER, n), (dn - 1.0) / dn, 1e-15);
        assert_rel(aug_coll_busbw_factor(AUG_COLL_REDUCE_SCATTER, n), (dn - 1.0) / dn, 1e-15);
        assert_rel(aug_coll_busbw_factor(AUG_COLL_ALL_TO_ALL, n), (dn - 1.0) / dn, 1e-15);
        assert_near(aug_coll_busbw_factor(AUG_COLL_SEND_RECV, n), 1.0, 0);
        assert_near(aug_coll_busbw_factor(AUG_COLL_BROADCAST, n), 1.0, 0);
    }
    assert_near(aug_coll_busbw_factor(AUG_COLL_ALL_REDUCE, 8), 1.75, 0);
    assert_near(aug_coll_busbw_factor(AUG_COLL_ALL_GATHER, 8), 0.875, 0);
    for (int c = 0; c < AUG_COLL_COUNT; c++) {
        assert_near(aug_coll_busbw_factor((enum aug_coll)c, 1), 1.0, 0);
        assert_near(aug_coll_busbw_factor((enum aug_coll)c, 0), 1.0, 0);
    }
}

static void test_names(void **state) {
    (void)state;
    enum aug_coll c;
    for (int i = 0; i < AUG_COLL_COUNT; i++) {
        assert_int_equal(aug_coll_from_name(aug_coll_name((enum aug_coll)i), &c), AUG_OK);
        assert_int_equal(c, i);
    }
    assert_string_equal(aug_coll_name(AUG_COLL_ALL_REDUCE), "all_reduce");
    assert_int_equal(aug_coll_from_name("allreduce", &c), AUG_OK);
    assert_int_equal(c, AUG_COLL_ALL_REDUCE);
    assert_int_equal(aug_coll_from_name("SendRecv", &c), AUG_OK);
    assert_int_equal(c, AUG_COLL_SEND_RECV);
    assert_int_equal(aug_coll_from_name("allsum", &c), AUG_ENOTFOUND);
    assert_non_null(strstr(aug_last_error(), "allsum"));
    assert_string_equal(aug_algo_name(AUG_ALGO_HIER), "hierarchical");
    assert_string_equal(aug_source_name(AUG_SOURCE_ROOFLINE), "roofline");
}

static void test_ring_all_reduce_nvlink(void **state) {
    (void)state;
    static const double sizes[] = {1024.0, 1048576.0, 1073741824.0};
    for (int n = 2; n <= 8; n++) {
        for (size_t i = 0; i < 3; i++) {
            double S = sizes[i];
            struct aug_coll_time t = ctime_ok(NULL, AUG_COLL_ALL_REDUCE, S, n, 8, AUG_ALGO_RING);
            double expect = 2.0 * (n - 1) * nv_lat() + S * 2.0 * (n - 1) / n / nv_busbw();
            assert_rel(t.time_s, expect, 1e-12);
            assert_int_equal(t.algo, AUG_ALGO_RING);
            assert_int_equal(t.source, AUG_SOURCE_FALLBACK);
            assert_int_equal(t.crosses_network, 0);
            assert_rel(t.busbw_gbps, S * 2.0 * (n - 1) / n / expect / 1e9, 1e-12);
        }
    }
    /* the literal case: 1 GiB over 8 H100s = 14 x 1.9 us + 2^30 x 1.75 / (450e9 x 0.77) */
    struct aug_coll_time t = ctime_ok(NULL, AUG_COLL_ALL_REDUCE, 1073741824.0, 8, 8, AUG_ALGO_RING);
    assert_rel(t.time_s, 26.6e-6 + 1879048192.0 / 346.5e9, 1e-12);
    assert_rel(t.time_s, 5.4495e-3, 1e-4);
}

static void test_ring_gather_scatter_alltoall(void **state) {
    (void)state;
    double S = 64.0 * 1048576.0;
    static const enum aug_coll cs[] = {AUG_COLL_ALL_GATHER, AUG_COLL_REDUCE_SCATTER,
                                       AUG_COLL_ALL_TO_ALL};
    for (size_t k = 0; k < 3; k++)
        for (int n = 2; n <= 8; n *= 2) {
            struct aug_coll_time t = ctime_ok(NULL, cs[k], S, n, 8, AUG_ALGO_RING);
            assert_rel(t.time_s, (n - 1) * nv_lat() + S * (n - 1.0) / n / nv_busbw(), 1e-12);
        }
    /* all-gather of S costs exactly half the all-reduce's bandwidth term */
    struct aug_coll_time ag = ctime_ok(NULL, AUG_COLL_ALL_GATHER, S, 8, 8, AUG_ALGO_RING);
    struct aug_coll_time ar = ctime_ok(NULL, AUG_COLL_ALL_REDUCE, S, 8, 8, AUG_ALGO_RING);
    assert_rel(ar.time_s - 14.0 * nv_lat(), 2.0 * (ag.time_s - 7.0 * nv_lat()), 1e-12);
    /* send/recv: one step, the whole message; broadcast: pipelined over n-1 steps */
    struct aug_coll_time sr = ctime_ok(NULL, AUG_COLL_SEND_RECV, S, 2, 2, AUG_ALGO_RING);
    assert_rel(sr.time_s, nv_lat() + S / nv_busbw(), 1e-12);
    struct aug_coll_time bc = ctime_ok(NULL, AUG_COLL_BROADCAST, S, 4, 8, AUG_ALGO_RING);
    assert_rel(bc.time_s, 3.0 * nv_lat() + S / nv_busbw(), 1e-12);
}

static void test_multi_node_uses_network(void **state) {
    (void)state;
    double S = 256.0 * 1048576.0;
    /* 64 ranks, one per node (a DP group strided by tp = 8): one NIC each */
    struct aug_coll_time t = ctime_ok(NULL, AUG_COLL_ALL_REDUCE, S, 64, 1, AUG_ALGO_RING);
    assert_int_equal(t.crosses_network, 1);
    assert_rel(t.time_s, 126.0 * net_lat() + S * 126.0 / 64.0 / nic_busbw(), 1e-12);
    /* 16 ranks, 8 per node: 8 NICs (360 GB/s after efficiency) vs NVLink 346.5 GB/s:
     * the slower of the two carries the ring */
    t = ctime_ok(NULL, AUG_COLL_ALL_REDUCE, S, 16, 8, AUG_ALGO_RING);
    assert_int_equal(t.crosses_network, 1);
    double bw = fmin(8.0 * nic_busbw(), nv_busbw());
    assert_rel(bw, 346.5e9, 1e-12);
    assert_rel(t.time_s, 30.0 * net_lat() + S * 30.0 / 16.0 / bw, 1e-12);
    /* 4 ranks per node: 4 NICs = 180 GB/s bind */
    t = ctime_ok(NULL, AUG_COLL_ALL_GATHER, S, 16, 4, AUG_ALGO_RING);
    assert_rel(t.time_s, 15.0 * net_lat() + S * 15.0 / 16.0 / (4.0 * nic_busbw()), 1e-12);
    /* a group that fits its domain never crosses */
    t = ctime_ok(NULL, AUG_COLL_ALL_REDUCE, S, 8, 8, AUG_ALGO_RING);
    assert_int_equal(t.crosses_network, 0);
    /* crossing is slower than staying inside NVLink */
    struct aug_coll_time inside = ctime_ok(NULL, AUG_COLL_ALL_REDUCE, S, 8, 8, AUG_ALGO_AUTO);
    struct aug_coll_time across = ctime_ok(NULL, AUG_COLL_ALL_REDUCE, S, 8, 1, AUG_ALGO_AUTO);
    assert_true(across.time_s > inside.time_s);
}

static void test_tree_for_small_messages_at_scale(void **state) {
    (void)state;
    /* 1 KiB over 64 ranks: ring pays 126 latency steps, the tree 2 log2(64) = 12 */
    double S = 1024.0;
    struct aug_coll_time t = ctime_ok(NULL, AUG_COLL_ALL_REDUCE, S, 64, 8, AUG_ALGO_AUTO);
    assert_int_equal(t.algo, AUG_ALGO_TREE);
    double bw = fmin(8.0 * nic_busbw(), nv_busbw());
    assert_rel(t.time_s, 12.0 * net_lat() + S * 126.0 / 64.0 / bw, 1e-12);
    struct aug_coll_time tree = ctime_ok(NULL, AUG_COLL_ALL_REDUCE, S, 64, 8, AUG_ALGO_TREE);
    assert_rel(tree.time_s, t.time_s, 1e-15);
    struct aug_coll_time ring = ctime_ok(NULL, AUG_COLL_ALL_REDUCE, S, 64, 8, AUG_ALGO_RING);
    assert_true(ring.time_s > 10.0 * tree.time_s);
    /* a non-power-of-two group rounds the tree depth up: ceil(log2 24) = 5 */
    tree = ctime_ok(NULL, AUG_COLL_ALL_REDUCE, S, 24, 8, AUG_ALGO_TREE);
    assert_rel(tree.time_s, 10.0 * net_lat() + S * 46.0 / 24.0 / bw, 1e-12);
}

/* What NCCL picks for a large all-reduce inside one NVLink domain is the ring (the tree's
 * bandwidth is lower there); collective.h promises AUTO is "ring for bandwidth, tree when
 * latency wins". With the tree given the ring's bandwidth term and fewer latency steps,
 * AUTO can never choose the ring for n > 2. */
static void test_auto_picks_ring_for_large_messages(void **state) {
    (void)state;
    double S = 1073741824.0;
    struct aug_coll_time t = ctime_ok(NULL, AUG_COLL_ALL_REDUCE, S, 8, 8, AUG_ALGO_AUTO);
    if (t.algo != AUG_ALGO_RING)
        fail_msg("1 GiB all-reduce over 8 NVLink GPUs: AUTO chose '%s' (%.6g s), expected ring "
                 "(%.6g s)", aug_algo_name(t.algo), t.time_s,
                 14.0 * nv_lat() + S * 1.75 / nv_busbw());
    assert_rel(t.time_s, 14.0 * nv_lat() + S * 1.75 / nv_busbw(), 1e-12);
}

static void test_hierarchical_formula(void **state) {
    (void)state;
    /* 32 ranks on 4 nodes of 8: intra-node reduce-scatter of S, inter-node all-reduce of
     * S/8 over 4 ranks on one NIC each (the 8 run side by side), intra-node all-gather */
    double S = 512.0 * 1048576.0;
    struct aug_coll_time t = ctime_ok(NULL, AUG_COLL_ALL_REDUCE, S, 32, 8, AUG_ALGO_HIER);
    double rs = 7.0 * nv_lat() + S * 7.0 / 8.0 / nv_busbw();
    double ar = 6.0 * net_lat() + (S / 8.0) * 6.0 / 4.0 / nic_busbw();
    double ag = rs;
    assert_rel(t.time_s, rs + ar + ag, 1e-12);
    assert_int_equal(t.algo, AUG_ALGO_HIER);
    assert_int_equal(t.crosses_network, 1);
    /* AUTO takes the fastest of ring, tree and hierarchical. Here the flat ring wins: its
     * 8 NICs per node carry S 2(n-1)/n at 360 GB/s while the hierarchy adds two NVLink
     * phases in series to an inter-node phase of nearly the same cost */
    struct aug_coll_time ring = ctime_ok(NULL, AUG_COLL_ALL_REDUCE, S, 32, 8, AUG_ALGO_RING);
    struct aug_coll_time tree = ctime_ok(NULL, AUG_COLL_ALL_REDUCE, S, 32, 8, AUG_ALGO_TREE);
    struct aug_coll_time a = ctime_ok(NULL, AUG_COLL_ALL_REDUCE, S, 32, 8, AUG_ALGO_AUTO);
    assert_rel(a.time_s, fmin(fmin(ring.time_s, tree.time_s), t.time_s), 1e-15);
    /* the flat ring it is compared with: 62 network steps at min(8 NICs, NVLink) */
    assert_rel(ring.time_s, 62.0 * net_lat() + S * 62.0 / 32.0 / fmin(8.0 * nic_busbw(), nv_busbw()),
               1e-12);
    /* inside one domain there is no hierarchy: HIER falls back to the ring */
    struct aug_coll_time in = ctime_ok(NULL, AUG_COLL_ALL_REDUCE, S, 8, 8, AUG_ALGO_HIER);
    assert_rel(in.time_s, 14.0 * nv_lat() + S * 1.75 / nv_busbw(), 1e-12);
}

static void test_degenerate_groups_and_errors(void **state) {
    (void)state;
    struct aug_coll_time t;
    assert_int_equal(aug_coll_time(&h100, NULL, AUG_COLL_ALL_REDUCE, 1e6, 1, 1, AUG_ALGO_AUTO, &t),
                     AUG_OK);
    assert_near(t.time_s, 0, 0); /* a group of one moves nothing */
    assert_int_equal(aug_coll_time(&h100, NULL, AUG_COLL_ALL_REDUCE, 0, 8, 8, AUG_ALGO_AUTO, &t),
                     AUG_OK);
    assert_near(t.time_s, 0, 0);
    assert_int_equal(aug_coll_time(&h100, NULL, AUG_COLL_ALL_REDUCE, 1e6, 0, 8, AUG_ALGO_AUTO, &t),
                     AUG_EDATA);
    assert_int_equal(aug_coll_time(&h100, NULL, AUG_COLL_ALL_REDUCE, -1, 8, 8, AUG_ALGO_AUTO, &t),
                     AUG_EDATA);
    assert_int_equal(aug_coll_time(&h100, NULL, AUG_COLL_ALL_REDUCE, NAN, 8, 8, AUG_ALGO_AUTO, &t),
                     AUG_EDATA);
    assert_int_equal(aug_coll_time(&h100, NULL, AUG_COLL_COUNT, 1e6, 8, 8, AUG_ALGO_AUTO, &t),
                     AUG_EDATA);
    /* time grows with size and with ranks */
    struct aug_coll_time a = ctime_ok(NULL, AUG_COLL_ALL_REDUCE, 1e6, 8, 8, AUG_ALGO_AUTO);
    struct aug_coll_time b = ctime_ok(NULL, AUG_COLL_ALL_REDUCE, 2e6, 8, 8, AUG_ALGO_AUTO);
    struct aug_coll_time c = ctime_ok(NULL, AUG_COLL_ALL_REDUCE, 1e6, 4, 8, AUG_ALGO_AUTO);
    assert_true(b.time_s > a.time_s);
    assert_true(c.time_s < a.time_s);
}

static struct aug_kdb *write_kdb(const char *rows) {
    FILE *f = fopen(curves_path, "w");
    assert_non_null(f);
    fputs("family,op,dtype,ranks,link,form,p0,p1,x_min,x_max,n_points,source\n", f);
    fputs(rows, f);
    fclose(f);
    struct aug_kdb *k = NULL;
    if (aug_kdb_open(tmp_root, "h100-80g", &k) != AUG_OK)
        fail_msg("kdb: %s", aug_last_error());
    return k;
}

static void test_calibrated_curve(void **state) {
    (void)state;
    /* a linear all-reduce curve for 8 ranks on NVLink: 20 us + 3e-6 us per byte */
    struct aug_kdb *k =
        write_kdb("collective,all_reduce,bf16,8,nvlink,linear,20,3e-6,1024,1073741824,12,test\n");
    double S = 16.0 * 1048576.0;
    struct aug_coll_time t = ctime_ok(k, AUG_COLL_ALL_REDUCE, S, 8, 8, AUG_ALGO_AUTO);
    assert_int_equal(t.source, AUG_SOURCE_CURVE);
    assert_rel(t.time_s, (20.0 + 3e-6 * S) * 1e-6, 1e-12);
    assert_rel(t.busbw_gbps, S * 1.75 / t.time_s / 1e9, 1e-12);
    /* the same call without a kdb: the fallback formula */
    struct aug_coll_time f = ctime_ok(NULL, AUG_COLL_ALL_REDUCE, S, 8, 8, AUG_ALGO_AUTO);
    assert_int_equal(f.source, AUG_SOURCE_FALLBACK);
    struct aug_coll_time ring = ctime_ok(NULL, AUG_COLL_ALL_REDUCE, S, 8, 8, AUG_ALGO_RING);
    assert_true(fabs(f.time_s - t.time_s) > 1e-6);
    assert_true(f.time_s <= ring.time_s);
    /* an explicit algorithm asks for the formula, not the measurement */
    struct aug_coll_time r = ctime_ok(k, AUG_COLL_ALL_REDUCE, S, 8, 8, AUG_ALGO_RING);
    assert_int_equal(r.source, AUG_SOURCE_FALLBACK);
    assert_rel(r.time_s, ring.time_s, 1e-15);
    /* a 4-rank group borrows the 8-rank curve, rescaled by the bus-bandwidth factors */
    struct aug_coll_time q = ctime_ok(k, AUG_COLL_ALL_REDUCE, S, 4, 8, AUG_ALGO_AUTO);
    assert_int_equal(q.source, AUG_SOURCE_CURVE);
    assert_rel(q.time_s, (20.0 + 3e-6 * S) * 1e-6 * 1.5 / 1.75, 1e-12);
    /* a curve on NVLink says nothing about the network, nor about other collectives */
    struct aug_coll_time n = ctime_ok(k, AUG_COLL_ALL_REDUCE, S, 8, 1, AUG_ALGO_AUTO);
    assert_int_equal(n.source, AUG_SOURCE_FALLBACK);
    struct aug_coll_time g = ctime_ok(k, AUG_COLL_ALL_GATHER, S, 8, 8, AUG_ALGO_AUTO);
    assert_int_equal(g.source, AUG_SOURCE_FALLBACK);
    aug_kdb_close(k);
}

/* Pure roofline ("ideal links: no latency, full bandwidth", op.c): a group spanning nodes
 * with r ranks per node is bound by min(NVLink, r NICs) at nominal bandwidth. For 16 ranks
 * on 2 DGX H100 nodes that is min(450, 8 x 50) = 400 GB/s. */
static void test_roofline_collective_is_nominal(void **state) {
    (void)state;
    struct aug_op_ctx ctx = {&h100, NULL, 1};
    double S = 256.0 * 1048576.0;
    struct aug_op op = aug_op_collective("ar", AUG_COLL_ALL_REDUCE, S, 8, 8);
    struct aug_op_time t;
    assert_int_equal(aug_op_time(&ctx, &op, &t), AUG_OK);
    assert_int_equal(t.source, AUG_SOURCE_ROOFLINE);
    assert_rel(t.time_s, S * 1.75 / 450e9, 1e-12);
    op = aug_op_collective("ar", AUG_COLL_ALL_REDUCE, S, 64, 1);
    assert_int_equal(aug_op_time(&ctx, &op, &t), AUG_OK);
    assert_rel(t.time_s, S * 126.0 / 64.0 / 50e9, 1e-12);
    op = aug_op_collective("ar", AUG_COLL_ALL_REDUCE, S, 16, 8);
    assert_int_equal(aug_op_time(&ctx, &op, &t), AUG_OK);
    assert_rel(t.time_s, S * 30.0 / 16.0 / 400e9, 1e-12);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_system_numbers),
        cmocka_unit_test(test_busbw_factors),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_ring_all_reduce_nvlink),
        cmocka_unit_test(test_ring_gather_scatter_alltoall),
        cmocka_unit_test(test_multi_node_uses_network),
        cmocka_unit_test(test_tree_for_small_messages_at_scale),
        cmocka_unit_test(test_auto_picks_ring_for_large_messages),
        cmocka_unit_test(test_hierarchical_formula),
        cmocka_unit_test(test_degenerate_groups_and_errors),
        cmocka_unit_test(test_calibrated_curve),
        cmocka_unit_test(test_roofline_collective_is_nominal),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
