/* SPDX-License-Identifier: Apache-2.0 */
/* test_import_vidur.c - Vidur mlp.csv (GEMM shapes rebuilt from the model dims and TP,
 * memory-bound ops as bytes, ms -> us) and all_reduce.csv / send_recv.csv; bad rows named
 * with file, line and column; the real files when ../shared is present. */
#include "aug_test.h"

#include "augur/status.h"
#include "import.h"

static const char *mlp_head =
    "time_stats.attn_pre_proj.min,time_stats.attn_pre_proj.max,time_stats.attn_pre_proj.median,"
    "time_stats.mlp_up_proj.median,time_stats.mlp_down_proj.median,time_stats.attn_post_proj.median,"
    "time_stats.input_layernorm.median,time_stats.mlp_act.median,time_stats.add.median,"
    "n_head,n_kv_head,n_embd,n_expanded_embd,vocab_size,use_gated_mlp,num_tokens,"
    "num_tensor_parallel_workers\n";

static void mlp(void **state)
{
    (void)state;
    char buf[2048];
    /* Llama-2-70B dims (64 heads, 8 KV heads, 8192, 28672, gated), 512 tokens, TP 8 */
    snprintf(buf, sizeof buf, "%s0.05,0.07,0.06,0.3,0.15,0.04,0.02,0.03,0.025,64,8,8192,28672,32000,True,512,8\n",
             mlp_head);
    struct aug_samples s;
    aug_samples_init(&s);
    struct aug_import_opts o = {NULL, 0, 0, "vidur@test", NULL, 0};
    assert_int_equal(aug_import_vidur_mlp("x/mlp.csv", buf, strlen(buf), &o, &s), AUG_OK);
    assert_int_equal((int)s.n, 7);
    /* order of the op table: QKV, O, up, down, (emb absent), norm, (rope absent), act, add */
    const struct aug_sample *q = &s.v[0];
    assert_int_equal(q->family, AUG_FAMILY_GEMM);
    assert_near(q->m, 512, 0);
    assert_near(q->k, 8192, 0);
    assert_near(q->n, (64 + 2 * 8) * 128 / 8, 0); /* 1280 */
    assert_near(q->time_us, 60, 1e-9);
    assert_near(q->time_us_min, 50, 1e-9);
    assert_near(q->time_us_max, 70, 1e-9);
    const struct aug_sample *out = &s.v[1];
    assert_near(out->k, 1024, 0);
    assert_near(out->n, 8192, 0);
    assert_near(out->time_us, 40, 1e-9);
    assert_near(s.v[2].n, 2 * 28672 / 8, 0); /* gate + up */
    assert_near(s.v[3].k, 28672 / 8, 0);
    assert_int_equal(s.v[4].family, AUG_FAMILY_MEMORY);
    assert_string_equal(s.v[4].op, "norm");
    assert_near(s.v[4].size_bytes, 2.0 * 2 * 512 * 8192, 0);
    assert_string_equal(s.v[5].op, "activation");
    assert_near(s.v[5].size_bytes, 2.0 * 512 * 28672 / 8 * 3, 0);
    assert_string_equal(s.v[6].op, "elementwise");
    assert_near(s.v[6].size_bytes, 2.0 * 3 * 512 * 8192, 0);
    assert_string_equal(s.sources[s.v[0].source], "vidur@test:x/mlp.csv attn_pre_proj");
    assert_string_equal(s.v[0].timing, "cupti_kernel");
    aug_samples_free(&s);
}

static void expect(const char *row, const char *needle, int mlp_file)
{
    char buf[2048];
    snprintf(buf, sizeof buf, "%s%s", mlp_file == 1 ? mlp_head : "", row);
    struct aug_samples s;
    aug_samples_init(&s);
    int rc = mlp_file ? aug_import_vidur_mlp("m.csv", buf, strlen(buf), NULL, &s)
                      : aug_import_vidur_network("n.csv", buf, strlen(buf), NULL, &s);
    if (rc != AUG_EDATA)
        fail_msg("%s: status %d", needle, rc);
    if (!strstr(aug_last_error(), needle))
        fail_msg("'%s' lacks '%s'", aug_last_error(), needle);
    aug_samples_free(&s);
}

static void mlp_bad(void **state)
{
    (void)state;
    expect("0.05,0.07,nan,0.3,0.15,0.04,0.02,0.03,0.025,64,8,8192,28672,32000,True,512,8\n",
           "m.csv:2: column 'time_stats.attn_pre_proj.median'", 1);
    expect("0.05,0.07,-0.06,0.3,0.15,0.04,0.02,0.03,0.025,64,8,8192,28672,32000,True,512,8\n",
           "m.csv:2: column 'time_stats.attn_pre_proj.median'", 1);
    expect("0.05,0.07,0.06,0.3,0.15,0.04,0.02,0.03,0.025,64,8,8192,28672,32000,True,0,8\n",
           "m.csv:2: column 'num_tokens'", 1);
    expect("0.05,0.07,0.06,0.3,0.15,0.04,0.02,0.03,0.025,64,8,8192,28672,32000,maybe,512,8\n",
           "m.csv:2: column 'use_gated_mlp'", 1);
    expect("0.05,0.07,0.06,0.3,0.15,0.04,0.02,0.03,0.025,64,8,8192,28672,32000,True,512\n",
           "m.csv:2: column 'num_tensor_parallel_workers'", 1);
    expect("num_tokens,n_embd\n1,2\n", "m.csv:1: column 'n_head': missing", 2);
}

static const char *net_head =
    ",time_stats.all_reduce.min,time_stats.all_reduce.max,time_stats.all_reduce.mean,"
    "time_stats.all_reduce.median,time_stats.all_reduce.std,rank,num_workers,size,collective,"
    "devices_per_node,max_devices_per_node\n";

static void network(void **state)
{
    (void)state;
    char buf[2048];
    snprintf(buf, sizeof buf, "%s0,0.031,0.077,0.05,0.043,0.019,0,2,2048,all_reduce,1,8\n"
             "1,0.3,0.4,0.35,0.36,0.01,0,8,67108864,all_reduce,8,8\n", net_head);
    struct aug_samples s;
    aug_samples_init(&s);
    assert_int_equal(aug_import_vidur_network("ar.csv", buf, strlen(buf), NULL, &s), AUG_OK);
    assert_int_equal((int)s.n, 2);
    assert_string_equal(s.v[0].op, "all_reduce");
    assert_int_equal(s.v[0].ranks, 2);
    assert_int_equal(s.v[0].ranks_per_node, 1);
    assert_string_equal(aug_sample_link(&s.v[0]), "network");
    assert_near(s.v[0].time_us, 43, 1e-9);
    assert_near(s.v[0].time_us_min, 31, 1e-9);
    assert_string_equal(aug_sample_link(&s.v[1]), "nvlink");
    assert_near(s.v[1].size_bytes, 67108864, 0);
    /* the auto-detecting importer picks the same parser */
    assert_int_equal(aug_import_vidur("ar.csv", buf, strlen(buf), NULL, &s), AUG_OK);
    assert_int_equal((int)s.n, 4);
    aug_samples_free(&s);
    snprintf(buf, sizeof buf, "0,0.031,0.077,0.05,0.043,0.019,0,2,2048,all_gatherv,1,8\n");
    char b2[2048];
    snprintf(b2, sizeof b2, "%s%s", net_head, buf);
    aug_samples_init(&s);
    assert_int_equal(aug_import_vidur_network("n.csv", b2, strlen(b2), NULL, &s), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "n.csv:2: column 'collective'"));
    aug_samples_free(&s);
    snprintf(b2, sizeof b2, "%s0,0.031,0.077,0.05,0.043,0.019,0,2,-2048,all_reduce,1,8\n", net_head);
    aug_samples_init(&s);
    assert_int_equal(aug_import_vidur_network("n.csv", b2, strlen(b2), NULL, &s), AUG_EDATA);
    assert_non_null(strstr(aug_last_error(), "n.csv:2: column 'size'"));
    aug_samples_free(&s);
    const char *nohead = "a,b\n1,2\n";
    aug_samples_init(&s);
    assert_int_equal(aug_import_vidur("v.csv", nohead, strlen(nohead), NULL, &s), AUG_EDATA);
    aug_samples_free(&s);
}

static void real_files(void **state)
{
    (void)state;
    const char *mlp_path =
        AUG_SHARED_DIR "/external/vidur/data/profiling/compute/a100/meta-llama/Llama-2-7b-hf/mlp.csv";
    const char *ar_path = AUG_SHARED_DIR "/external/vidur/data/profiling/network/a100_dgx/all_reduce.csv";
    FILE *fp = fopen(mlp_path, "r");
    if (!fp)
        skip();
    fclose(fp);
    struct aug_samples s;
    aug_samples_init(&s);
    assert_int_equal(aug_import_file(aug_importer_find("vidur-mlp"), mlp_path, NULL, &s), AUG_OK);
    assert_int_equal((int)s.n, 1044 * 10); /* 1,044 rows x 10 ops */
    /* first row: 4096 tokens, TP 1, QKV 4096 x 12288 x 4096 in 1.911 ms */
    assert_near(s.v[0].m, 4096, 0);
    assert_near(s.v[0].n, 12288, 0);
    assert_near(s.v[0].time_us, 1911, 1e-6);
    aug_samples_free(&s);
    aug_samples_init(&s);
    assert_int_equal(aug_import_file(aug_importer_find("vidur"), ar_path, NULL, &s), AUG_OK);
    assert_int_equal((int)s.n, 6958);
    aug_samples_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(mlp), cmocka_unit_test(mlp_bad),
                                       cmocka_unit_test(network), cmocka_unit_test(real_files)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
