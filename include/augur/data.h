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

/* Read a whole file into a NUL-terminated heap buffer (caller frees). */
int aug_read_file(const char *path, char **out, long *len);

#ifdef __cplusplus
}
#endif
#endif
