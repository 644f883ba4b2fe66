/* SPDX-License-Identifier: Apache-2.0 */
/* sweep_inputs.c - what every `augur sweep` mode loads before it runs: the model, the
 * preset system and the what-if system derived from --scale / --generation with its
 * rescaled kernels-db, and the worker threads per MPI rank. */
#include <stdlib.h>
#include <unistd.h>

#include "augur/augur.h"
#include "augur/scaling.h"
#include "cli.h"
#include "sweep_opts.h"

int aug_sweep_cli_threads(const struct aug_sweep_opts *o, int size) {
    if (o->threads > 0)
        return o->threads;
    const char *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    if (size <= 1 || !local)
        return 0;
    long n = sysconf(_SC_NPROCESSORS_ONLN), l = atol(local);
    if (n <= 0 || l <= 0)
        return 0;
    return n / l > 0 ? (int)(n / l) : 1;
}

int aug_sweep_cli_inputs(const struct aug_sweep_opts *o, struct aug_model *model,
                         struct aug_system *preset, struct aug_scale *sc, struct aug_system *sys,
                         struct aug_kdb **kdb) {
    int st = aug_model_load(NULL, o->model, model);
    if (st != AUG_OK)
        return aug_cli_fail(st, NULL);
    aug_cli_warn_model_keys(o->model);
    int rc = aug_sweep_cli_whatif(o->kdb, o->system, o->scale, o->generation, preset, sc, sys);
    if (rc)
        return rc;
    *kdb = NULL;
    if (!o->roofline && (st = aug_scale_kdb(o->kdb, sys->gpu.id, sc, kdb)) != AUG_OK)
        return aug_cli_fail(st, NULL);
    return 0;
}

/* The what-if system of the options (the preset itself without --scale/--generation). */
int aug_sweep_cli_whatif(const char *kdb_root, const char *system, const char *scale_spec,
                         const char *gen_spec, struct aug_system *preset, struct aug_scale *sc,
                         struct aug_system *sys) {
    int st = aug_system_load(kdb_root, system, preset);
    if (st != AUG_OK)
        return aug_cli_fail(st, NULL);
    aug_scale_init(sc);
    if (scale_spec && (st = aug_scale_parse(scale_spec, sc)) != AUG_OK)
        return aug_cli_usage("sweep", "%s", aug_last_error());
    if (gen_spec && (st = aug_scale_generation(preset, gen_spec, sc)) != AUG_OK)
        return aug_cli_usage("sweep", "%s", aug_last_error());
    if ((st = aug_scale_system(preset, sc, sys)) != AUG_OK)
        return aug_cli_usage("sweep", "%s", aug_last_error());
    return 0;
}
