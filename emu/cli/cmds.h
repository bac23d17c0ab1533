/* cmds.h — the emu subcommands, one file each under emu/cli/. */
#ifndef EMU_CLI_CMDS_H
#define EMU_CLI_CMDS_H
int cmd_ocs(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_cleanup(int argc, char **argv);
int cmd_view(int argc, char **argv);
struct web_pub;
struct web_server;
/* Serve the page on "[ADDR:]PORT" (--web) and say where (cmd_view.c);
 * NULL after a message. */
struct web_server *cli_web_start(const char *cmd, const char *spec, struct web_pub *pub,
				 char *(*replay)(void *, double), void *arg);
/* The prefix a command works under before --prefix: EMU_PREFIX, else "emu". */
const char *cli_default_prefix(void);
#endif
