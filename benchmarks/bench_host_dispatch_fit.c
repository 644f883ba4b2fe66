/* SPDX-License-Identifier: Apache-2.0 */
/* bench_host_dispatch_fit.c - fits the per-kernel host issue costs of the eager-PyTorch
 * framework profiles (predictor/train/framework.c) on the public vTrain single-node set
 * and reports them with k-fold cross-validation.
 *
 *   build/benchmarks/bench_host_dispatch_fit [ground_truth_single.csv] [folds]
 *
 * Rows are split into folds by row order modulo k (default 5). For each fold the costs
 * of GEMM, memory-bound and collective kernels are fitted on the other folds (coordinate
 * descent, golden-section search per cost in [0, 300] us, minimizing MAPE) and the MAPE of
 * the held-out fold is reported; then the same with each TP degree held out in turn (does
 * the fit carry to a TP degree it never saw?); then the fit on all rows, which is what the
 * profiles keep. vTrain's runs use unfused attention, so the fused-attention cost is not
 * identifiable here and is set to the GEMM cost (one kernel through the same path). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "augur/augur.h"
#include "augur/framework.h"
#include "bench_golden.h"

#define NPAR 3
static const enum aug_op_kind par_kind[NPAR] = {AUG_OP_GEMM, AUG_OP_MEMORY, AUG_OP_COLLECTIVE};
static const char *const par_name[NPAR] = {"gemm", "memory", "collective"};

static const char *path;
static int folds;
static long evals;
/* fold of each row (file order, as the report lists them) */
static int *fold_of;
static size_t n_fold_of;

static void to_cost(const double *x, struct aug_host_cost *c) {
    for (int k = 0; k < AUG_OP_KIND_COUNT; k++)
        c->issue_us[k] = 0.0;
    for (int i = 0; i < NPAR; i++)
        c->issue_us[par_kind[i]] = x[i];
    c->issue_us[AUG_OP_ATTENTION] = x[0];
}

/* MAPE over the rows in fold `fold` (in = 1) or outside it (in = 0); fold < 0: all rows. */
static double mape(const double *x, int fold, int in) {
    struct aug_host_cost c;
    to_cost(x, &c);
    struct aug_validate_options opt = {NULL, 0, &c, NULL, 0.0};
    struct aug_validate_report *r = NULL;
    evals++;
    if (aug_validate_file(path, AUG_VALIDATE_VTRAIN, &opt, &r) != AUG_OK) {
        fprintf(stderr, "bench_host_dispatch_fit: %s\n", aug_last_error());
        exit(1);
    }
    double sum = 0.0;
    long n = 0;
    for (size_t i = 0; i < r->n_rows; i++) {
        const struct aug_validate_row *row = &r->rows[i];
        if (row->skipped)
            continue;
        int f = i < n_fold_of ? fold_of[i] : -1;
        if (fold >= 0 && (f == fold) != in)
            continue;
        sum += fabs(row->error_pct);
        n++;
    }
    aug_validate_report_free(r);
    return n ? sum / (double)n : INFINITY;
}

/* The training MAPE as one cost x[i] varies (the others held), for golden_min. */
struct coord {
    double *x;
    int i, fold;
};

static double mape_at(double v, void *arg) {
    struct coord *c = arg;
    c->x[c->i] = v;
    return mape(c->x, c->fold, 0);
}

/* Coordinate descent: four rounds of a golden-section search per cost in [0, 300] us. */
static void fit(int fold, double *x) {
    for (int round = 0; round < 4; round++)
        for (int i = 0; i < NPAR; i++) {
            struct coord c = {x, i, fold};
            x[i] = golden_min(0.0, 300.0, 0.25, mape_at, &c);
        }
}

/* The TP degree (8th column) of every data row of the vTrain file, in file order. */
static int read_tp(size_t *n, int **tp) {
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[512];
    size_t cap = 2048;
    *tp = malloc(cap * sizeof **tp);
    *n = 0;
    int header = 1;
    while (*tp && fgets(line, sizeof line, f)) {
        if (header) {
            header = 0;
            continue;
        }
        int v[8], k = 0;
        char *p = line;
        while (k < 8) {
            v[k++] = atoi(p);
            p = strchr(p, ',');
            if (!p)
                break;
            p++;
        }
        if (k < 8)
            continue;
        if (*n == cap)
            break;
        (*tp)[(*n)++] = v[7];
    }
    fclose(f);
    return *tp ? 0 : -1;
}

int main(int argc, char **argv) {
    path = argc > 1 ? argv[1] : AUG_SHARED_DIR "/external/vtrain/data/ground_truth_single.csv";
    folds = argc > 2 ? atoi(argv[2]) : 5;
    if (folds < 2 || folds > 20) {
        fprintf(stderr, "bench_host_dispatch_fit: folds must be 2..20\n");
        return 2;
    }
    int *tp = NULL;
    size_t n_rows = 0;
    if (read_tp(&n_rows, &tp) != 0) {
        fprintf(stderr, "bench_host_dispatch_fit: cannot read %s\n", path);
        return 1;
    }
    fold_of = malloc(n_rows * sizeof *fold_of);
    if (!fold_of)
        return 1;
    n_fold_of = n_rows;
    for (size_t i = 0; i < n_rows; i++)
        fold_of[i] = (int)(i % (size_t)folds);
    double zero[NPAR] = {0};
    printf("# host dispatch fit on %s, %d folds by row order modulo %d\n", path, folds, folds);
    printf("# no host cost at all: MAPE %.2f%%\n", mape(zero, -1, 0));
    printf("%-6s %10s %10s %12s %12s %12s\n", "fold", "gemm_us", "memory_us", "collective_us",
           "train_MAPE%", "heldout_MAPE%");
    double held = 0.0;
    for (int k = 0; k < folds; k++) {
        double x[NPAR] = {20.0, 20.0, 20.0};
        fit(k, x);
        double tr = mape(x, k, 0), ho = mape(x, k, 1);
        held += ho;
        printf("%-6d %10.2f %10.2f %12.2f %12.2f %12.2f\n", k, x[0], x[1], x[2], tr, ho);
    }
    printf("mean held-out MAPE over %d folds: %.2f%%\n", folds, held / folds);
    static const int tps[] = {1, 2, 4, 8};
    for (size_t i = 0; i < n_rows; i++)
        fold_of[i] = tp[i] == 1 ? 0 : tp[i] == 2 ? 1 : tp[i] == 4 ? 2 : 3;
    printf("%-6s %10s %10s %12s %12s %12s\n", "tp_out", "gemm_us", "memory_us",
           "collective_us", "train_MAPE%", "heldout_MAPE%");
    for (int k = 0; k < 4; k++) {
        double x[NPAR] = {20.0, 20.0, 20.0};
        fit(k, x);
        printf("%-6d %10.2f %10.2f %12.2f %12.2f %12.2f\n", tps[k], x[0], x[1], x[2],
               mape(x, k, 0), mape(x, k, 1));
    }
    free(tp);
    double x[NPAR] = {20.0, 20.0, 20.0};
    fit(-1, x);
    printf("fit on all rows (kept in framework.c):");
    for (int i = 0; i < NPAR; i++)
        printf(" %s %.1f us", par_name[i], x[i]);
    printf("; MAPE %.2f%% (%ld evaluations)\n", mape(x, -1, 0), evals);
    free(fold_of);
    return 0;
}
