/* SPDX-License-Identifier: Apache-2.0 */
/* test_calibrate_kinds.c - how `augur calibrate` reads what augur-profile writes: attention
 * samples are grouped by kernel kind (decode apart from prefill, forward apart from
 * backward, causal apart from not) under their whole names, NCCL algorithm settings of any
 * length are read, and a raw file measured on another GPU is refused unless forced; the
 * predictor's attention lookup takes only the curve of the kind it asks for. */
#include "../aug_test.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "augur/kdb.h"
#include "augur/status.h"
#include "fit.h"
#include "importer.h"
#include "samples.h"

static const char hdr[] =
    "family,op,dtype,m,n,k,batch,heads,seq_q,seq_kv,head_dim,causal,size_bytes,ranks,"
    "ranks_per_node,algo,time_us_median,time_us_min,time_us_max,reps,timing,source\n";

static int load(const char *body, struct aug_samples *s) {
    char text[8192];
    snprintf(text, sizeof text, "%s%s", hdr, body);
    return aug_samples_load_raw_mem("t.csv", text, strlen(text), s);
}

static const struct aug_fit_group *group(const struct aug_fit_result *r, const char *op) {
    for (size_t i = 0; i < r->n_groups; i++)
        if (strcmp(r->groups[i].op, op) == 0)
            return &r->groups[i];
    return NULL;
}

/* Names of the kinds, as the predictor reads them (predictor/hw/attention_kind.c). */
static void kind_names(void **state) {
    (void)state;
    struct aug_attn_kind k;
    aug_attn_kind_of("fused_decode_fwd", &k);
    assert_true(k.decode && !k.unfused && !k.backward && !k.causal);
    aug_attn_kind_of("unfused_fwd_causal", &k);
    assert_true(!k.decode && k.unfused && !k.backward && k.causal);
    aug_attn_kind_of("flash_bwd", &k);
    assert_true(!k.decode && !k.unfused && k.backward && !k.causal);
    char op[32];
    /* a one-query point of a file that did not name it decode is still decode */
    assert_int_equal(aug_attn_curve_op("fused_fwd", 1, 0, op, sizeof op), AUG_OK);
    assert_string_equal(op, "fused_fwd_decode");
    assert_int_equal(aug_attn_curve_op("fused_decode_fwd", 1, 0, op, sizeof op), AUG_OK);
    assert_string_equal(op, "fused_decode_fwd");
    assert_int_equal(aug_attn_curve_op("fused_fwd", 2048, 1, op, sizeof op), AUG_OK);
    assert_string_equal(op, "fused_fwd_causal");
    /* decode: less than one 64-row query tile (a GQA group of 8 or 16 folded into the
     * rows is decode; 71 rows, multi-query Falcon-7B, fill a tile and more) */
    assert_true(aug_attn_is_decode(1) && aug_attn_is_decode(16) && aug_attn_is_decode(63));
    assert_true(!aug_attn_is_decode(64) && !aug_attn_is_decode(71));
    /* never truncated: 25 characters + "_causal" do not fit 31 */
    assert_int_equal(aug_attn_curve_op("abcdefghijklmnopqrstu_fwd", 2048, 1, op, sizeof op),
                     AUG_EDATA);
}

/* Decode and prefill points of one op name land in two groups, each fitted on its own. */
static void decode_apart_from_prefill(void **state) {
    (void)state;
    struct aug_samples s;
    aug_samples_init(&s);
    char body[4096] = "";
    size_t len = 0;
    /* prefill: 8 x 32 heads at S = 512..16384; decode: 16 x 32 heads x 1 query at the
     * same S; times made up, only the grouping matters */
    for (long sq = 512; sq <= 16384; sq *= 2) {
        len += (size_t)snprintf(body + len, sizeof body - len,
                                "attention,fused_fwd,bf16,,,,8,32,%ld,%ld,128,0,,,,,%g,,,3,"
                                "cupti_kernel,t\n"
                                "attention,fused_fwd,bf16,,,,16,32,1,%ld,128,0,,,,,%g,,,3,"
                                "cupti_kernel,t\n",
                                sq, sq, 0.001 * (double)sq * (double)sq / 64, sq,
                                4.0 + (double)sq / 1000);
    }
    assert_int_equal(load(body, &s), AUG_OK);
    struct aug_fit_opts o;
    aug_fit_opts_default(&o);
    struct aug_fit_result r;
    assert_int_equal(aug_fit_samples(&s, &o, &r), AUG_OK);
    const struct aug_fit_group *pre = group(&r, "fused_fwd"), *dec = group(&r, "fused_fwd_decode");
    assert_non_null(pre);
    assert_non_null(dec);
    assert_int_equal(pre->n_idx, 6);
    assert_int_equal(dec->n_idx, 6);
    assert_int_equal(r.n_groups, 2);
    aug_fit_result_free(&r);
    aug_samples_free(&s);
}

/* Two ops that share their first 24 characters stay two groups; a name whose curve name
 * cannot be written whole is refused with file and line. */
static void long_names(void **state) {
    (void)state;
    struct aug_samples s;
    aug_samples_init(&s);
    /* 24 characters each: with "_causal", 31 */
    const char *fwd = "cudnn_sdpa_flash_v3_fwd", *bwd = "cudnn_sdpa_flash_v3_bwd";
    assert_int_equal(strlen(fwd), 23);
    char body[2048];
    snprintf(body, sizeof body,
             "attention,%sx,bf16,,,,8,32,2048,2048,128,1,,,,,100,,,3,cupti_kernel,t\n"
             "attention,%sx,bf16,,,,8,32,2048,2048,128,1,,,,,250,,,3,cupti_kernel,t\n",
             fwd, bwd);
    assert_int_equal(load(body, &s), AUG_OK);
    struct aug_fit_opts o;
    aug_fit_opts_default(&o);
    struct aug_fit_result r;
    assert_int_equal(aug_fit_samples(&s, &o, &r), AUG_OK);
    assert_int_equal(r.n_groups, 2);
    assert_non_null(group(&r, "cudnn_sdpa_flash_v3_fwdx_causal"));
    assert_non_null(group(&r, "cudnn_sdpa_flash_v3_bwdx_causal"));
    aug_fit_result_free(&r);
    aug_samples_free(&s);
    /* one character more and the causal curve name would be cut: refused */
    aug_samples_init(&s);
    snprintf(body, sizeof body,
             "attention,%sxy,bf16,,,,8,32,2048,2048,128,1,,,,,100,,,3,cupti_kernel,t\n", fwd);
    assert_int_equal(load(body, &s), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "t.csv:2: column 'op'"));
    assert_non_null(strstr(aug_last_error(), "longer than 31"));
    aug_samples_free(&s);
}

/* NCCL_ALGO / NCCL_PROTO settings of any length come through unchanged. */
static void long_algo(void **state) {
    (void)state;
    struct aug_samples s;
    aug_samples_init(&s);
    char algo[700], body[2048];
    size_t n = (size_t)snprintf(algo, sizeof algo, "NCCL_ALGO=allreduce:ring,tree,collnetdirect");
    while (n < 600)
        n += (size_t)snprintf(algo + n, sizeof algo - n, ";NCCL_PROTO=LL,LL128,Simple");
    snprintf(body, sizeof body,
             "collective,all_reduce,bf16,,,,,,,,,,1048576,8,8,\"%s\",40,,,5,cuda_event,t\n",
             algo);
    assert_int_equal(load(body, &s), AUG_OK);
    assert_int_equal(s.n, 1);
    assert_string_equal(s.v[0].algo, algo);
    aug_samples_free(&s);
}

/* A raw file written for another GPU is refused unless forced; one without a gpu_id line
 * (not augur-profile's) is read. */
static void foreign_gpu(void **state) {
    (void)state;
    char text[2048];
    snprintf(text, sizeof text,
             "# augur raw kernel measurements: family memory, preset quick\n"
             "# gpu_name: NVIDIA H200\n# gpu_id: h200-141g\n%s"
             "memory,copy,bf16,,,,,,,,,,1048576,,,,3.5,,,5,cupti_kernel,t\n", hdr);
    struct aug_import_opts o;
    memset(&o, 0, sizeof o);
    o.gpu = "h100-80g";
    struct aug_samples s;
    aug_samples_init(&s);
    assert_int_equal(aug_import_raw("h200/memory.csv", text, strlen(text), &o, &s), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "h200/memory.csv:3: measured on GPU 'h200-141g', "
                                             "not 'h100-80g'"));
    assert_non_null(strstr(aug_last_error(), "--force"));
    assert_int_equal(s.n, 0);
    o.force = 1;
    assert_int_equal(aug_import_raw("h200/memory.csv", text, strlen(text), &o, &s), AUG_OK);
    assert_int_equal(s.n, 1);
    o.force = 0;
    o.gpu = "h200-141g";
    assert_int_equal(aug_import_raw("h200/memory.csv", text, strlen(text), &o, &s), AUG_OK);
    assert_int_equal(s.n, 2);
    char bare[1024];
    snprintf(bare, sizeof bare, "%smemory,copy,bf16,,,,,,,,,,2097152,,,,5,,,5,wall,t\n", hdr);
    o.gpu = "a100-80g";
    assert_int_equal(aug_import_raw("bare.csv", bare, strlen(bare), &o, &s), AUG_OK);
    assert_int_equal(s.n, 3);
    aug_samples_free(&s);
}

/* The predictor's fused-attention lookup by kind: an unfused curve is never used for it, a
 * decode query takes the decode curve and a prefill query the prefill one. Curves
 * (attn_sat, eff = p0 S^p2 / (S^p2 + (10^p1)^p2)): fused prefill 0.7 S / (S + 1000),
 * unfused 0.2 S / (S + 1000), fused decode 0.05 S / (S + 1000). */
static void lookup_by_kind(void **state) {
    (void)state;
    char root[] = "/tmp/augur_kinds.XXXXXX";
    assert_non_null(mkdtemp(root));
    char dir[64], path[96];
    snprintf(dir, sizeof dir, "%s/g", root);
    assert_int_equal(mkdir(dir, 0777), 0);
    snprintf(path, sizeof path, "%s/curves.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("family,op,dtype,ranks,link,form,p0,p1,p2,p3,p4,p5,p6,p7,x_min,x_max,n_points,"
          "rel_rmse,max_rel_err,cv_rel_err,source\n", f);
    const char *rows[][2] = {{"unfused_fwd", "0.2"}, {"fused_decode_fwd", "0.05"},
                             {"fused_fwd", "0.7"}};
    for (int i = 0; i < 3; i++)
        fprintf(f, "attention,%s,bf16,0,,attn_sat,%s,3,1,128,,,,,512,32768,7,0.01,0.02,0.02,t\n",
                rows[i][0], rows[i][1]);
    fclose(f);
    struct aug_kdb *k = NULL;
    assert_int_equal(aug_kdb_open(root, "g", &k), AUG_OK);
    assert_int_equal(aug_kdb_curve_count(k), 3);
    double e = 0;
    /* prefill (seq_q 4096): the fused prefill curve, 0.7 * 4096 / 5096 */
    assert_int_equal(aug_kdb_attention_eff(k, AUG_DTYPE_BF16, 0, 0, 256, 4096, 4096, 128, &e), 1);
    assert_rel(e, 0.7 * 4096 / 5096, 1e-9);
    /* decode (one query row; also a GQA group of 8 folded into the rows) */
    assert_int_equal(aug_kdb_attention_eff(k, AUG_DTYPE_BF16, 0, 0, 512, 1, 4096, 128, &e), 1);
    assert_rel(e, 0.05 * 4096 / 5096, 1e-9);
    assert_int_equal(aug_kdb_attention_eff(k, AUG_DTYPE_BF16, 0, 0, 64, 8, 4096, 128, &e), 1);
    assert_rel(e, 0.05 * 4096 / 5096, 1e-9);
    aug_kdb_close(k);
    /* only the unfused curve: the fused lookup misses (the predictor falls back) */
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("family,op,dtype,ranks,link,form,p0,p1,p2,p3,p4,p5,p6,p7,x_min,x_max,n_points,"
          "rel_rmse,max_rel_err,cv_rel_err,source\n"
          "attention,unfused_fwd,bf16,0,,attn_sat,0.2,3,1,128,,,,,512,32768,7,0.01,0.02,0.02,t\n"
          "attention,fused_fwd,bf16,0,,attn_sat,0.7,3,1,128,,,,,512,32768,7,0.01,0.02,0.02,t\n",
          f);
    fclose(f);
    assert_int_equal(aug_kdb_open(root, "g", &k), AUG_OK);
    /* no decode curve: a decode query misses rather than take the prefill curve */
    assert_int_equal(aug_kdb_attention_eff(k, AUG_DTYPE_BF16, 0, 0, 512, 1, 4096, 128, &e), 0);
    aug_kdb_close(k);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("family,op,dtype,ranks,link,form,p0,p1,p2,p3,p4,p5,p6,p7,x_min,x_max,n_points,"
          "rel_rmse,max_rel_err,cv_rel_err,source\n"
          "attention,unfused_fwd,bf16,0,,attn_sat,0.2,3,1,128,,,,,512,32768,7,0.01,0.02,0.02,t\n",
          f);
    fclose(f);
    assert_int_equal(aug_kdb_open(root, "g", &k), AUG_OK);
    assert_int_equal(aug_kdb_attention_eff(k, AUG_DTYPE_BF16, 0, 0, 256, 4096, 4096, 128, &e), 0);
    aug_kdb_close(k);
    unlink(path);
    rmdir(dir);
    rmdir(root);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kind_names),
        cmocka_unit_test(decode_apart_from_prefill),
        cmocka_unit_test(long_names),
        cmocka_unit_test(long_algo),
        cmocka_unit_test(foreign_gpu),
        cmocka_unit_test(lookup_by_kind),
    };
    return cmocka_run_group_tests_name("calibrate: attention kinds, names, GPU of a file",
                                       tests, NULL, NULL);
}
