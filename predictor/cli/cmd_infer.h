/* SPDX-License-Identifier: Apache-2.0 */
/* cmd_infer.h - `augur infer`: serving latency (TTFT, TPOT), throughput and memory. */
#ifndef AUG_CMD_INFER_H
#define AUG_CMD_INFER_H

int aug_cmd_infer(int argc, char **argv);

#endif
