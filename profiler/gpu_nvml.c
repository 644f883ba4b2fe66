/* SPDX-License-Identifier: Apache-2.0 */
/* gpu_nvml.c - NVML through dlopen (see gpu_nvml.h). The few declarations NVML's header
 * would give are written here: the NVML C ABI (nvml.h of the CUDA toolkit / GPU
 * deployment kit): nvmlReturn_t is an int enum with NVML_SUCCESS 0, nvmlDevice_t an
 * opaque pointer, NVML_CLOCK_SM 1, NVML_CLOCK_MEM 2, NVML_TEMPERATURE_GPU 0, power in
 * milliwatts. The device is found by PCI bus id, so CUDA_VISIBLE_DEVICES cannot make NVML
 * describe another GPU than the one CUDA measures. */
#include "gpu_nvml.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

typedef int nvml_ret;
typedef void *nvml_dev;

static struct {
    int tried, ok;
    void *lib;
    nvml_ret (*init)(void);
    nvml_ret (*shutdown)(void);
    nvml_ret (*by_pci)(const char *, nvml_dev *);
    nvml_ret (*clock)(nvml_dev, int, unsigned int *);
    nvml_ret (*temp)(nvml_dev, int, unsigned int *);
    nvml_ret (*power)(nvml_dev, unsigned int *);
    nvml_ret (*reasons)(nvml_dev, unsigned long long *);
} nv;

#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2
#define NVML_TEMPERATURE_GPU 0

/* dlsym into a function pointer without the object-to-function cast warning */
static void *sym(const char *name) {
    return dlsym(nv.lib, name);
}
#define LOAD(field, name) memcpy(&nv.field, &(void *){sym(name)}, sizeof nv.field)

static void load(void) {
    nv.tried = 1;
    nv.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!nv.lib) {
        fprintf(stderr, "augur-profile: NVML is not available (%s): clocks, temperature and "
                "power are not recorded\n", dlerror());
        return;
    }
    LOAD(init, "nvmlInit_v2");
    LOAD(shutdown, "nvmlShutdown");
    LOAD(by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
    LOAD(clock, "nvmlDeviceGetClockInfo");
    LOAD(temp, "nvmlDeviceGetTemperature");
    LOAD(power, "nvmlDeviceGetPowerUsage");
    LOAD(reasons, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!nv.reasons) /* the name before NVML 12.2 */
        LOAD(reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
    if (!nv.init || !nv.shutdown || !nv.by_pci || !nv.clock || nv.init() != 0) {
        fprintf(stderr, "augur-profile: NVML could not be initialised: clocks, temperature "
                "and power are not recorded\n");
        dlclose(nv.lib);
        nv.lib = NULL;
        return;
    }
    nv.ok = 1;
}

void aug_gpu_nvml_sample(int dev, struct aug_prof_clocks *out) {
    memset(out, 0, sizeof *out);
    if (!nv.tried)
        load();
    if (!nv.ok)
        return;
    char pci[32];
    nvml_dev h = NULL;
    if (cudaDeviceGetPCIBusId(pci, (int)sizeof pci, dev) != cudaSuccess ||
        nv.by_pci(pci, &h) != 0)
        return;
    unsigned int sm = 0, mem = 0, t = 0, mw = 0;
    unsigned long long r = 0;
    if (nv.clock(h, NVML_CLOCK_SM, &sm) != 0 || nv.clock(h, NVML_CLOCK_MEM, &mem) != 0)
        return;
    out->valid = 1;
    out->sm_mhz = sm;
    out->mem_mhz = mem;
    out->temp_c = nv.temp && nv.temp(h, NVML_TEMPERATURE_GPU, &t) == 0 ? (double)t : NAN;
    out->power_w = nv.power && nv.power(h, &mw) == 0 ? mw / 1000.0 : NAN;
    out->throttle = nv.reasons && nv.reasons(h, &r) == 0 ? r : 0;
}

void aug_gpu_nvml_close(void) {
    if (nv.ok)
        nv.shutdown();
    if (nv.lib)
        dlclose(nv.lib);
    memset(&nv, 0, sizeof nv);
}
