/* dropped_flops.h - the forward FLOPs a mixture-of-experts capacity factor skips. */
#ifndef AUG_TRAIN_DROPPED_FLOPS_H
#define AUG_TRAIN_DROPPED_FLOPS_H

#include "augur/model.h"
#include "augur/plan.h"

/* Forward FLOPs of one iteration (all GPUs) that the routed experts do not compute
 * because their capacity buffers are full; 0 for dense and dropless models. */
double aug_train_dropped_fwd_flops(const struct aug_model *m, const struct aug_plan *p);

#endif
