/* SPDX-License-Identifier: Apache-2.0 */
/* test_cudnn_sdpa.c - the SDPA forward graph of cudnn_sdpa.c built with the cuDNN library
 * installed here, without a GPU: every attribute is accepted with its type and count
 * (a wrong attribute type fails cudnnBackendSetAttribute with BAD_PARAM), every tensor and
 * operation descriptor finalizes, the operations form an operation graph that finalizes
 * (cuDNN 9.19 accepts a graph without a handle; older releases require one, and the test
 * then stops before that step), and the graph has the operations cudnn-frontend's SDPA node
 * lowers to. cuDNN checks the shapes of the tensors against each other only when the
 * heuristics and engines see the graph, which needs a GPU: that part, the plan and the
 * numbers are checked by augur-profile's self-check on the GPU (gpu_attention.c), not here.
 * Skipped (77) where libcudnn.so.9 is not installed. */
#include "../aug_test.h"

#include "cudnn_sdpa.h"

static struct aug_cudnn api;

static int open_cudnn(void) {
    char why[256];
    if (aug_cudnn_load(&api, AUG_CUDNN_DEFAULT_LIB, why, sizeof why))
        return 1;
    char path[512];
    snprintf(path, sizeof path, "%s/libcudnn.so.9", AUG_CUDA_LIBRARY_DIR);
    return aug_cudnn_load(&api, path, why, sizeof why);
}

static int build(struct aug_cudnn_sdpa_cfg *cfg, struct aug_cudnn_sdpa *g) {
    char why[256] = "";
    int ok = aug_cudnn_sdpa_ops(&api, cfg, g, why, sizeof why);
    if (!ok) {
        fprintf(stderr, "graph: %s\n", why);
        return 0;
    }
    if (api.version < 91900) /* a graph without a handle: see above */
        return 1;
    cudnnBackendDescriptor_t og = NULL;
    assert_int_equal(api.BackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &og),
                     CUDNN_STATUS_SUCCESS);
    cudnnStatus_t st = api.BackendSetAttribute(og, CUDNN_ATTR_OPERATIONGRAPH_OPS,
                                               CUDNN_TYPE_BACKEND_DESCRIPTOR, g->n_ops, g->ops);
    if (st == CUDNN_STATUS_SUCCESS)
        st = api.BackendFinalize(og);
    (void)api.BackendDestroyDescriptor(og);
    if (st != CUDNN_STATUS_SUCCESS)
        fprintf(stderr, "operation graph: %s (%d)\n", api.GetErrorString(st), (int)st);
    return st == CUDNN_STATUS_SUCCESS;
}

/* Operations, counted from the graph in cudnn_sdpa.h:
 *   matmul, scale                                      2
 *   causal: 2 GEN_INDEX, CMP_GE, BINARY_SELECT         4 (+ ADD, SUB bottom-right)
 *   softmax: max, sub, exp, sum, log, add, div         7
 *   matmul                                             1 */
static void prefill_causal_bf16(void **state) {
    (void)state;
    struct aug_cudnn_sdpa_cfg cfg = {
        .shape = {.b = 2, .h_q = 16, .h_kv = 16, .s_q = 1024, .s_kv = 1024, .d = 128},
        .bf16 = 1, .causal = 1, .stats = 1, .scale = 0.08838834764831845f};
    struct aug_cudnn_sdpa g;
    assert_true(build(&cfg, &g));
    assert_int_equal(g.n_ops, 2 + 4 + 7 + 1);
    assert_null(g.plan);
    aug_cudnn_sdpa_release(&g);
    assert_int_equal(g.n_desc, 0);
}

static void prefill_plain_fp16(void **state) {
    (void)state;
    struct aug_cudnn_sdpa_cfg cfg = {
        .shape = {.b = 8, .h_q = 64, .h_kv = 64, .s_q = 512, .s_kv = 512, .d = 64},
        .bf16 = 0, .causal = 0, .stats = 0, .scale = 0.125f};
    struct aug_cudnn_sdpa g;
    assert_true(build(&cfg, &g));
    assert_int_equal(g.n_ops, 2 + 7 + 1);
    aug_cudnn_sdpa_release(&g);
}

/* Decode against a KV cache with 4 query heads per key/value head, and a causal decode
 * (s_q < s_kv) that takes the bottom-right alignment. */
static void decode_gqa(void **state) {
    (void)state;
    struct aug_cudnn_sdpa_cfg cfg = {
        .shape = {.b = 16, .h_q = 32, .h_kv = 8, .s_q = 1, .s_kv = 8192, .d = 128},
        .bf16 = 1, .causal = 0, .stats = 0, .scale = 0.08838834764831845f};
    struct aug_cudnn_sdpa g;
    assert_true(build(&cfg, &g));
    assert_int_equal(g.n_ops, 2 + 7 + 1);
    aug_cudnn_sdpa_release(&g);
    cfg.causal = 1;
    cfg.shape.s_q = 4;
    assert_true(build(&cfg, &g));
    assert_int_equal(g.n_ops, 2 + 6 + 7 + 1);
    aug_cudnn_sdpa_release(&g);
}

/* A shape the layout refuses never reaches cuDNN. */
static void bad_shape(void **state) {
    (void)state;
    struct aug_cudnn_sdpa_cfg cfg = {
        .shape = {.b = 1, .h_q = 6, .h_kv = 4, .s_q = 1, .s_kv = 64, .d = 64}, .bf16 = 1};
    struct aug_cudnn_sdpa g;
    char why[256] = "";
    assert_false(aug_cudnn_sdpa_ops(&api, &cfg, &g, why, sizeof why));
    assert_non_null(strstr(why, "does not divide"));
    assert_int_equal(g.n_desc, 0);
    /* no plan: binding and executing refuse */
    assert_false(aug_cudnn_sdpa_bind(&g, NULL, NULL, NULL, NULL, NULL, NULL, why, sizeof why));
    assert_string_equal(why, "SDPA: no execution plan to bind");
    assert_false(aug_cudnn_sdpa_execute(&g, NULL, why, sizeof why));
    assert_string_equal(why, "SDPA: execute before plan and bind");
    aug_cudnn_sdpa_release(&g);
}

int main(void) {
    if (!open_cudnn()) {
        fprintf(stderr, "libcudnn.so.9 is not installed here: skipped\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(prefill_causal_bf16),
        cmocka_unit_test(prefill_plain_fp16),
        cmocka_unit_test(decode_gqa),
        cmocka_unit_test(bad_shape),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    aug_cudnn_unload(&api);
    return rc;
}
