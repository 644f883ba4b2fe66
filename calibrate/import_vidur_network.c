/* SPDX-License-Identifier: Apache-2.0 */
/* import_vidur_network.c - Vidur's collective profiles all_reduce.csv / send_recv.csv
 * (microsoft/vidur, data/profiling/network/<device>/).
 *
 * Columns: an unnamed row index, time_stats.<collective>.{min,max,mean,median,std} in
 * milliseconds (median NCCL kernel time of 11 launches, stats over 3 repeats), rank,
 * num_workers (group size), size (bytes, fp16 elements x 2), collective,
 * devices_per_node (ranks placed on each node), max_devices_per_node. Sizes follow the
 * nccl-tests convention already (whole buffer for all-reduce, the message for send/recv). */
#include <stdio.h>
#include <string.h>

#include "augur/collective.h"
#include "augur/csvio.h"
#include "augur/status.h"
#include "importer.h"

int aug_import_vidur_network(const char *name, const char *buf, size_t len,
                             const struct aug_import_opts *o, struct aug_samples *out)
{
    struct aug_csv *t = NULL;
    int rc = aug_csv_load_mem(name, buf, len, &t);
    if (rc != AUG_OK)
        return rc;
    static const char *const need[] = {"collective", "num_workers", "size", "devices_per_node"};
    if ((rc = aug_csv_need_cols(t, need, sizeof need / sizeof need[0],
                                " (not a Vidur network file?)")) != AUG_OK)
        goto out;
    int fidx = aug_samples_file(out, name);
    char sbuf[512];
    int src = aug_samples_source(out, aug_import_source(o, name, NULL, sbuf, sizeof sbuf));
    if (fidx < 0 || src < 0) {
        rc = fidx < 0 ? fidx : src;
        goto out;
    }
    char prov[600];
    snprintf(prov, sizeof prov,
             "import: vidur-network %.500s (median NCCL kernel time via torch profiler, fp16, ms)",
             name);
    if ((rc = aug_samples_prov(out, prov)) != AUG_OK)
        goto out;
    for (size_t r = 0; r < aug_csv_rows(t); r++) {
        const char *cname = aug_csv_cell(t, r, aug_csv_col(t, "collective"));
        enum aug_coll c;
        if (aug_coll_from_name(cname, &c) != AUG_OK) {
            rc = aug_csv_cell_error(t, r, "collective", "unknown collective '%s'", cname);
            goto out;
        }
        char med[96], mn[96], mx[96];
        snprintf(med, sizeof med, "time_stats.%.60s.median", cname);
        snprintf(mn, sizeof mn, "time_stats.%.60s.min", cname);
        snprintf(mx, sizeof mx, "time_stats.%.60s.max", cname);
        if (aug_csv_col(t, med) < 0) {
            rc = aug_errorf(AUG_EDATA, "%s:1: column '%s': missing", name, med);
            goto out;
        }
        struct aug_sample x = aug_sample_blank();
        x.family = AUG_FAMILY_COLLECTIVE;
        snprintf(x.op, sizeof x.op, "%s", aug_coll_name(c));
        x.dtype = AUG_DTYPE_FP16;
        long ranks = 0, dpn = 0;
        double ms, v;
        const int req = AUG_CSV_REQUIRED | AUG_CSV_POSITIVE;
        if ((rc = aug_csv_get_long(t, r, "num_workers", req, &ranks)) ||
            (rc = aug_csv_get_long(t, r, "devices_per_node", req, &dpn)) ||
            (rc = aug_csv_get_double(t, r, "size", req, &x.size_bytes)) ||
            (rc = aug_csv_get_double(t, r, med, req, &ms)))
            goto out;
        if (ranks > 1 << 20 || dpn > 1 << 20) {
            rc = aug_csv_cell_error(t, r, ranks > 1 << 20 ? "num_workers" : "devices_per_node",
                                    "implausibly large");
            goto out;
        }
        x.ranks = (int)ranks;
        x.ranks_per_node = (int)(dpn < ranks ? dpn : ranks);
        x.time_us = ms * 1e3;
        rc = aug_csv_get_double(t, r, mn, AUG_CSV_POSITIVE, &v);
        if (rc == AUG_OK)
            x.time_us_min = v * 1e3 < x.time_us ? v * 1e3 : x.time_us;
        else if (rc != AUG_ENOTFOUND)
            goto out;
        rc = aug_csv_get_double(t, r, mx, AUG_CSV_POSITIVE, &v);
        if (rc == AUG_OK)
            x.time_us_max = v * 1e3 > x.time_us ? v * 1e3 : x.time_us;
        else if (rc != AUG_ENOTFOUND)
            goto out;
        x.reps = 3;
        snprintf(x.timing, sizeof x.timing, "cupti_kernel");
        x.file = fidx;
        x.line = aug_csv_line(t, r);
        x.source = src;
        if ((rc = aug_samples_add(out, &x)) != AUG_OK)
            goto out;
    }
    rc = AUG_OK;
out:
    aug_csv_free(t);
    return rc;
}
