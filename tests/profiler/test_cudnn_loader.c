/* SPDX-License-Identifier: Apache-2.0 */
/* test_cudnn_loader.c - cuDNN opened at run time (cudnn_loader.c): the library present on
 * this machine loads and reports a 9.x version that agrees with the headers the build
 * used; a path that does not exist, and a library without the backend API, give a reason
 * and leave the loader closed (augur-profile then times its own kernel). Skipped (77) where
 * libcudnn.so.9 is not installed. */
#include "../aug_test.h"

#include <cudnn_version.h>

#include "cudnn_loader.h"
#include "sdpa_layout.h"

/* The installed library: the loader's default name, else the toolkit's lib64 folder. */
static int load_real(struct aug_cudnn *c, char *why, size_t cap) {
    if (aug_cudnn_load(c, AUG_CUDNN_DEFAULT_LIB, why, cap))
        return 1;
    char path[512];
    snprintf(path, sizeof path, "%s/libcudnn.so.9", AUG_CUDA_LIBRARY_DIR);
    return aug_cudnn_load(c, path, why, cap);
}

static int have_cudnn(void) {
    struct aug_cudnn c;
    char why[256];
    int ok = load_real(&c, why, sizeof why);
    if (ok)
        aug_cudnn_unload(&c);
    return ok;
}

static void real_library_version(void **state) {
    (void)state;
    struct aug_cudnn c;
    char why[256] = "untouched";
    assert_true(load_real(&c, why, sizeof why));
    assert_string_equal(why, "");
    assert_non_null(c.lib);
    assert_non_null(c.BackendExecute);
    assert_non_null(c.BackendGetAttribute);
    /* cudnn_version.h from 9.0: CUDNN_VERSION = MAJOR*10000 + MINOR*100 + PATCH; the run
     * time library of a 9.x installation reports the same major */
    assert_true(c.version >= AUG_CUDNN_MIN_VERSION);
    assert_int_equal(c.version / 10000, CUDNN_MAJOR);
    assert_int_equal(c.version, c.GetVersion());
    /* an error string comes from the library itself */
    char text[128];
    aug_cudnn_status_text(&c, CUDNN_STATUS_BAD_PARAM, "cudnnX", text, sizeof text);
    assert_non_null(strstr(text, "cudnnX: "));
    assert_non_null(strstr(text, "(2000)")); /* CUDNN_STATUS_BAD_PARAM = 2000 */
    aug_cudnn_unload(&c);
    assert_null(c.lib);
    assert_null(c.BackendExecute);
}

static void missing_path_falls_back(void **state) {
    (void)state;
    struct aug_cudnn c;
    char why[256];
    const char *path = "/nonexistent/augur/libcudnn.so.9";
    assert_false(aug_cudnn_load(&c, path, why, sizeof why));
    assert_null(c.lib);
    assert_null(c.Create);
    assert_non_null(strstr(why, "cannot open /nonexistent/augur/libcudnn.so.9"));
    /* the choice a point then makes, and the label its row gets */
    struct aug_attn_probe p = {.loaded = 0, .load_error = why, .cc_major = 9};
    char reason[256], impl[32], algo[256];
    assert_int_equal(aug_attn_choose(&p, reason, sizeof reason), 0);
    assert_string_equal(reason, why);
    aug_attn_label(NULL, reason, impl, sizeof impl, algo, sizeof algo);
    assert_string_equal(impl, "augur_flash_fallback");
    assert_non_null(strstr(algo, "cuDNN SDPA not used: cannot open /nonexistent/augur/"));
}

/* A real shared library that is not cuDNN (the C library): opened, a symbol missing. */
static void library_without_backend_api(void **state) {
    (void)state;
    struct aug_cudnn c;
    char why[256];
    assert_false(aug_cudnn_load(&c, "libc.so.6", why, sizeof why));
    assert_null(c.lib);
    assert_string_equal(why, "libc.so.6 has no symbol cudnnGetVersion (not the cuDNN 9 "
                             "backend API)");
}

static void env_names_the_library(void **state) {
    (void)state;
    assert_string_equal(aug_cudnn_lib_name(NULL), "libcudnn.so.9");
    assert_string_equal(aug_cudnn_lib_name(""), "libcudnn.so.9");
    assert_string_equal(aug_cudnn_lib_name("/opt/x/libcudnn.so.9.1.0"), "/opt/x/libcudnn.so.9.1.0");
    /* the environment variable reaches dlopen: a path that does not exist falls back */
    assert_int_equal(setenv(AUG_CUDNN_ENV, "/nonexistent/from-env.so", 1), 0);
    struct aug_cudnn c;
    char why[256];
    assert_false(aug_cudnn_load(&c, NULL, why, sizeof why));
    assert_non_null(strstr(why, "cannot open /nonexistent/from-env.so"));
    assert_int_equal(unsetenv(AUG_CUDNN_ENV), 0);
}

int main(void) {
    const struct CMUnitTest always[] = {
        cmocka_unit_test(missing_path_falls_back),
        cmocka_unit_test(library_without_backend_api),
        cmocka_unit_test(env_names_the_library),
    };
    int rc = cmocka_run_group_tests_name("cudnn_loader", always, NULL, NULL);
    if (!have_cudnn()) {
        fprintf(stderr, "libcudnn.so.9 is not installed here: the real library is not tested\n");
        return rc ? rc : 77;
    }
    const struct CMUnitTest real[] = {cmocka_unit_test(real_library_version)};
    return rc | cmocka_run_group_tests_name("cudnn_loader_real", real, NULL, NULL);
}
