/* SPDX-License-Identifier: Apache-2.0 */
/* cudnn_loader.c - see cudnn_loader.h. */
#include "cudnn_loader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdpa_layout.h"

const char *aug_cudnn_lib_name(const char *env_value) {
    return env_value && env_value[0] ? env_value : AUG_CUDNN_DEFAULT_LIB;
}

/* dlsym returns void *; ISO C has no conversion to a function pointer, POSIX guarantees
 * that one through memcpy works (dlsym(3), "Application usage"). */
static int sym(struct aug_cudnn *c, const char *name, void *fn, size_t fn_size, char *why,
               size_t cap) {
    void *p = dlsym(c->lib, name);
    if (!p) {
        snprintf(why, cap, "%s has no symbol %s (not the cuDNN 9 backend API)", c->path, name);
        return 0;
    }
    memcpy(fn, &p, fn_size);
    return 1;
}

#define SYM(field, name) sym(c, name, &c->field, sizeof c->field, why, cap)

int aug_cudnn_load(struct aug_cudnn *c, const char *name, char *why, size_t cap) {
    memset(c, 0, sizeof *c);
    if (!name)
        name = aug_cudnn_lib_name(getenv(AUG_CUDNN_ENV));
    snprintf(c->path, sizeof c->path, "%s", name);
    dlerror();
    c->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!c->lib) {
        const char *e = dlerror();
        snprintf(why, cap, "cannot open %s (%s)", c->path, e ? e : "not found");
        return 0;
    }
    int ok = SYM(GetVersion, "cudnnGetVersion") && SYM(GetErrorString, "cudnnGetErrorString") &&
             SYM(Create, "cudnnCreate") && SYM(Destroy, "cudnnDestroy") &&
             SYM(SetStream, "cudnnSetStream") &&
             SYM(BackendCreateDescriptor, "cudnnBackendCreateDescriptor") &&
             SYM(BackendDestroyDescriptor, "cudnnBackendDestroyDescriptor") &&
             SYM(BackendSetAttribute, "cudnnBackendSetAttribute") &&
             SYM(BackendGetAttribute, "cudnnBackendGetAttribute") &&
             SYM(BackendFinalize, "cudnnBackendFinalize") &&
             SYM(BackendExecute, "cudnnBackendExecute");
    if (ok) {
        c->version = c->GetVersion();
        if (c->version < AUG_CUDNN_MIN_VERSION) {
            char v[32];
            aug_cudnn_version_format(c->version, v, sizeof v);
            snprintf(why, cap, "%s is cuDNN %s, older than 9.0 (the backend graph SDPA this "
                     "build uses)", c->path, v);
            ok = 0;
        }
    }
    if (!ok) {
        size_t version = c->version;
        aug_cudnn_unload(c);
        c->version = version; /* kept for the message of a too old library */
        return 0;
    }
    if (cap)
        why[0] = '\0';
    return 1;
}

void aug_cudnn_unload(struct aug_cudnn *c) {
    if (c->lib)
        dlclose(c->lib);
    char path[sizeof c->path];
    memcpy(path, c->path, sizeof path);
    memset(c, 0, sizeof *c);
    memcpy(c->path, path, sizeof path);
}

void aug_cudnn_status_text(const struct aug_cudnn *c, cudnnStatus_t s, const char *call,
                           char *buf, size_t cap) {
    const char *t = c->GetErrorString ? c->GetErrorString(s) : NULL;
    snprintf(buf, cap, "%s: %s (%d)", call, t ? t : "unknown status", (int)s);
}
