/* SPDX-License-Identifier: Apache-2.0 */
/* data.h - where augur finds its shipped data (presets/ and kernels-db/).
 *
 * Order: $AUGUR_DATA_DIR; the install tree next to the running executable
 * (<bin>/../share/augur); then the source tree for executables inside the build tree,
 * and the install prefix chosen at configure time (<datadir>/augur) for all others
 * (the source tree when that prefix holds no data). */
#ifndef AUG_DATA_H
#define AUG_DATA_H

#ifdef __cplusplus
extern "C" {
#endif

/* Directory holding presets/ (never NULL). */
const char *aug_data_dir(void);
/* Directory holding kernels-db/<gpu>/ and gpus.csv (never NULL); $AUGUR_KDB overrides. */
const char *aug_kdb_dir(void);

/* Read a whole file into a NUL-terminated heap buffer (caller frees), at most
 * AUG_READ_FILE_MAX bytes. */
int aug_read_file(const char *path, char **out, long *len);
/* The same with a limit: a regular file above it is refused before any read, anything
 * else (a pipe, /dev/zero) as soon as it passes it. AUG_EDATA names the file. */
int aug_read_file_max(const char *path, long max_bytes, char **out, long *len);
#define AUG_READ_FILE_MAX (1L << 30)
/* Model and system JSON files: Hugging Face config.json files are a few KiB. */
#define AUG_JSON_FILE_MAX (16L << 20)

#ifdef __cplusplus
}
#endif
#endif
