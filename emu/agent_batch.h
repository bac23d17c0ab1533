/* agent_batch.h — what the controller hands the agents' starter on another
 * host (`emu-agent --spawn`, started by netctl/launch.h) on its standard
 * input: the run's secret and the argument list of each agent to start.
 *
 *   emu-agents 1
 *   secret <64 lowercase hex digits>
 *   agent N          then N lines, one argument each
 *   ...
 *   start
 *
 * One text, so the secret travels as the topology does (the launcher's
 * pipe, then ssh's), never on a command line or in a file.  The starter
 * reads it strictly: anything else is an error naming its line. */
#ifndef EMU_AGENT_BATCH_H
#define EMU_AGENT_BATCH_H
#include <stdbool.h>
#include <stddef.h>

#define AGENT_BATCH_MAX_ARGS 64
#define AGENT_BATCH_MAX      4096   /* agents per host */
#define AGENT_BATCH_ERR_LEN  256

/* The controller's side. */
struct agent_batch {
	char *text;
	size_t len, cap;
	int agents;
	bool bad;                /* out of memory or a bad argument: begin again */
};
void agent_batch_begin(struct agent_batch *b, const char *secret);
/* argv (NULL-terminated, without the program) of one more agent.  An
 * argument that is empty or holds a newline cannot be sent: -1. */
int agent_batch_add(struct agent_batch *b, char *const argv[]);
/* The whole text (ends with "start\n"), or NULL if something could not be
 * added.  Valid until agent_batch_free, which wipes it (it holds the secret). */
const char *agent_batch_end(struct agent_batch *b);
void agent_batch_free(struct agent_batch *b);

/* The starter's side: lines fed one at a time (without their '\n'). */
struct agent_list {
	char secret[65];
	int n;
	char **argv[AGENT_BATCH_MAX];   /* each NULL-terminated, from argv[0] = the program slot (NULL until set) */
	/* parser state */
	int line, want;          /* arguments still to come for argv[n - 1] */
	int stage;               /* 0 magic, 1 secret, 2 agents, 3 done */
};
/* 1 once "start" is read, 0 for more, -1 with err ("line N: problem"). */
int agent_list_feed(struct agent_list *l, const char *line, size_t len, char err[AGENT_BATCH_ERR_LEN]);
/* The same over a whole text: 0 if it is exactly one complete list. */
int agent_list_parse(struct agent_list *l, const char *text, char err[AGENT_BATCH_ERR_LEN]);
/* Read the list from fd until "start" (nothing after it is read).  0, or
 * -1 with err ("line N: problem", or the end of input). */
int agent_list_read(struct agent_list *l, int fd, char err[AGENT_BATCH_ERR_LEN]);
void agent_list_free(struct agent_list *l);
#endif
