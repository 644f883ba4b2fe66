/* SPDX-License-Identifier: Apache-2.0 */
/* augur.h - umbrella header of libaugur. */
#ifndef AUG_AUGUR_H
#define AUG_AUGUR_H

#define AUG_VERSION_MAJOR 0
#define AUG_VERSION_MINOR 1
#define AUG_VERSION_PATCH 0
#define AUG_VERSION_STRING "0.1.0"

#include "augur/attention.h"
#include "augur/collective.h"
#include "augur/csvio.h"
#include "augur/curve.h"
#include "augur/data.h"
#include "augur/dtype.h"
#include "augur/framework.h"
#include "augur/infer.h"
#include "augur/kdb.h"
#include "augur/matmulfree.h"
#include "augur/model.h"
#include "augur/moe.h"
#include "augur/op.h"
#include "augur/plan.h"
#include "augur/progress.h"
#include "augur/scaling.h"
#include "augur/status.h"
#include "augur/sweep.h"
#include "augur/system.h"
#include "augur/train.h"
#include "augur/units.h"
#include "augur/validate.h"

#endif
