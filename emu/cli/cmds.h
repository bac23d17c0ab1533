/* cmds.h — the emu subcommands, one file each under emu/cli/. */
#ifndef EMU_CLI_CMDS_H
#define EMU_CLI_CMDS_H
int cmd_ocs(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_cleanup(int argc, char **argv);
/* The prefix a command works under before --prefix: EMU_PREFIX, else "emu". */
const char *cli_default_prefix(void);
#endif
