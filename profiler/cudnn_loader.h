/* SPDX-License-Identifier: Apache-2.0 */
/* cudnn_loader.h - cuDNN 9 opened at run time (dlopen), so that augur-profile neither links
 * nor needs libcudnn: a GPU node without it times attention with augur's own kernel and
 * says why in every row (sdpa_layout.h).
 *
 * Only the backend (graph) API is used: the handle, the error strings and the descriptor
 * functions of cudnn_graph.h. The library is "libcudnn.so.9", found by the dynamic loader
 * (LD_LIBRARY_PATH, the RPATH $ORIGIN of the binary, ld.so.cache); the environment
 * variable AUGUR_CUDNN_LIB names another file. The name is handed to dlopen and to nothing
 * else. */
#ifndef AUG_PROF_CUDNN_LOADER_H
#define AUG_PROF_CUDNN_LOADER_H

#include <stddef.h>

#include <cudnn_graph.h>

#include "sdpa_layout.h" /* AUG_CUDNN_ENV, AUG_CUDNN_DEFAULT_LIB, AUG_CUDNN_MIN_VERSION */

#ifdef __cplusplus
extern "C" {
#endif

struct aug_cudnn {
    void *lib;
    size_t version; /* cudnnGetVersion() */
    char path[256]; /* what was opened */
    size_t (*GetVersion)(void);
    const char *(*GetErrorString)(cudnnStatus_t);
    cudnnStatus_t (*Create)(cudnnHandle_t *);
    cudnnStatus_t (*Destroy)(cudnnHandle_t);
    cudnnStatus_t (*SetStream)(cudnnHandle_t, cudaStream_t);
    cudnnStatus_t (*BackendCreateDescriptor)(cudnnBackendDescriptorType_t,
                                             cudnnBackendDescriptor_t *);
    cudnnStatus_t (*BackendDestroyDescriptor)(cudnnBackendDescriptor_t);
    cudnnStatus_t (*BackendSetAttribute)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t,
                                         cudnnBackendAttributeType_t, int64_t, const void *);
    cudnnStatus_t (*BackendGetAttribute)(cudnnBackendDescriptor_t const,
                                         cudnnBackendAttributeName_t,
                                         cudnnBackendAttributeType_t, int64_t, int64_t *,
                                         void *);
    cudnnStatus_t (*BackendFinalize)(cudnnBackendDescriptor_t);
    cudnnStatus_t (*BackendExecute)(cudnnHandle_t, cudnnBackendDescriptor_t,
                                    cudnnBackendDescriptor_t);
};

/* The file to open: env_value when it is set and not empty, else "libcudnn.so.9". */
const char *aug_cudnn_lib_name(const char *env_value);

/* Open `name` (NULL: aug_cudnn_lib_name(getenv(AUG_CUDNN_ENV))), resolve the functions above
 * and read the version. Returns 1 on success; 0 with the reason in why (library absent,
 * a symbol missing, or a version below AUG_CUDNN_MIN_VERSION) and *c left closed. */
int aug_cudnn_load(struct aug_cudnn *c, const char *name, char *why, size_t cap);
void aug_cudnn_unload(struct aug_cudnn *c);

/* "cudnnFoo: CUDNN_STATUS_BAR (code)" into buf. */
void aug_cudnn_status_text(const struct aug_cudnn *c, cudnnStatus_t s, const char *call,
                           char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
