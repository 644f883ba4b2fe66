/* SPDX-License-Identifier: Apache-2.0 */
/* A program built only with `pkg-config --cflags --libs augur` against an installed
 * prefix: GPT-3 175B on 1,024 A100 (the README's first prediction), data from the prefix. */
#include <stdio.h>

#include <augur/augur.h>

int main(void)
{
    struct aug_model m;
    struct aug_system s;
    struct aug_plan p;
    struct aug_train_result r;
    struct aug_train_options o = {NULL, 0};
    aug_plan_init(&p);
    p.gpus = 1024, p.tp = 8, p.pp = 16, p.interleave = 2, p.micro_batch = 1;
    p.global_batch = 1536, p.recompute = AUG_RECOMPUTE_FULL;
    if (aug_model_load(NULL, "gpt3-175b", &m) || aug_system_load(NULL, "dgx-a100-80g", &s) ||
        aug_kdb_open(NULL, s.gpu.id, (struct aug_kdb **)&o.kdb) ||
        aug_plan_resolve(&p, &m, &s) || aug_train_predict(&m, &s, &p, &o, &r))
        return fprintf(stderr, "consumer: %s\n", aug_last_error()), 1;
    printf("%s %s %.9g\n", aug_data_dir(), aug_kdb_dir(), r.step_time_s);
    aug_kdb_close((struct aug_kdb *)o.kdb);
    return 0;
}
