/* cmd_profile.h - `augur profile`: runs the augur-profile binary when it was built. */
#ifndef AUG_CMD_PROFILE_H
#define AUG_CMD_PROFILE_H
int aug_cmd_profile(int argc, char **argv);
#endif
