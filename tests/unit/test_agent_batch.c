/* Unit tests: the list a host's agents' starter reads (emu/agent_batch.h). */
#include "emu/agent_batch.h"
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SECRET "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static const char *list_text(struct agent_batch *b)
{
	char *a1[] = {"--server", "r1h0", "--control", "tcp:10.0.0.1:4000", "--netns", "x-r1h0", NULL};
	char *a2[] = {"--server", "r1h1", "start", NULL};   /* "start" as an argument is an argument */
	agent_batch_begin(b, SECRET);
	cr_assert_eq(agent_batch_add(b, a1), 0);
	cr_assert_eq(agent_batch_add(b, a2), 0);
	return agent_batch_end(b);
}

Test(agent_batch, the_list_round_trips)
{
	struct agent_batch b;
	const char *text = list_text(&b);
	cr_assert_not_null(text);
	cr_assert_str_eq(text, "emu-agents 1\nsecret " SECRET "\nagent 6\n--server\nr1h0\n--control\ntcp:10.0.0.1:4000\n"
			       "--netns\nx-r1h0\nagent 3\n--server\nr1h1\nstart\nstart\n");
	static struct agent_list l;
	char err[AGENT_BATCH_ERR_LEN];
	cr_assert_eq(agent_list_parse(&l, text, err), 0, "%s", err);
	cr_assert_str_eq(l.secret, SECRET);
	cr_assert_eq(l.n, 2);
	cr_assert_null(l.argv[0][0], "slot 0 is the program's, left to the starter");
	cr_assert_str_eq(l.argv[0][4], "tcp:10.0.0.1:4000");
	cr_assert_null(l.argv[0][7]);
	cr_assert_str_eq(l.argv[1][3], "start");
	cr_assert_null(l.argv[1][4]);
	agent_list_free(&l);
	agent_batch_free(&b);
	cr_assert_null(b.text);
}

Test(agent_batch, an_argument_that_cannot_travel_is_refused)
{
	struct agent_batch b;
	char *empty[] = {"--server", "", NULL}, *nl[] = {"--server", "r1\nh0", NULL}, *none[] = {NULL};
	agent_batch_begin(&b, SECRET);
	cr_assert_eq(agent_batch_add(&b, empty), -1);
	cr_assert_null(agent_batch_end(&b));
	agent_batch_free(&b);
	agent_batch_begin(&b, SECRET);
	cr_assert_eq(agent_batch_add(&b, nl), -1);
	cr_assert_eq(agent_batch_add(&b, none), -1);
	cr_assert_null(agent_batch_end(&b));
	agent_batch_free(&b);
}

static void refused(const char *text, const char *want)
{
	static struct agent_list l;
	char err[AGENT_BATCH_ERR_LEN];
	memset(&l, 0, sizeof l);
	cr_assert_eq(agent_list_parse(&l, text, err), -1, "taken: %s", text);
	cr_assert(strstr(err, want), "'%s' for %s, not '%s'", err, text, want);
	agent_list_free(&l);
}

Test(agent_batch, a_bad_list_is_refused_naming_its_line)
{
	refused("", "line 1: the list ends before 'start'");
	refused("emu-agents 2\n", "line 1: expected 'emu-agents 1'");
	refused("emu-agents 1\nsecret 1234\n", "line 2: expected 'secret'");
	refused("emu-agents 1\nsecret " SECRET "0\n", "line 2:");
	refused("emu-agents 1\nsecret " SECRET "\nstart\n", "line 3: 'start' with no agent");
	refused("emu-agents 1\nsecret " SECRET "\nagent 0\n", "line 3: bad argument count '0'");
	refused("emu-agents 1\nsecret " SECRET "\nagent 2x\n", "line 3: bad argument count");
	refused("emu-agents 1\nsecret " SECRET "\nagent 65\n", "line 3: bad argument count");
	refused("emu-agents 1\nsecret " SECRET "\nagent 1\n\n", "line 4: an empty argument");
	refused("emu-agents 1\nsecret " SECRET "\nagent 1\n-x\nrun\n", "line 5: expected 'agent N' or 'start'");
	refused("emu-agents 1\nsecret " SECRET "\nagent 1\n-x\nstart\nmore\n", "line 6: input after 'start'");
	refused("emu-agents 1\nsecret " SECRET "\nagent 2\n-x\nstart\n", "line 6: the list ends before 'start'");
}

/* From a pipe, as the starter reads it: up to "start" and not a byte more. */
Test(agent_batch, read_from_a_pipe_stops_at_start)
{
	struct agent_batch b;
	const char *text = list_text(&b);
	static struct agent_list l;
	char err[AGENT_BATCH_ERR_LEN];
	int p[2];
	cr_assert_eq(pipe(p), 0);
	cr_assert_eq(write(p[1], text, strlen(text)), (ssize_t)strlen(text));
	cr_assert_eq(agent_list_read(&l, p[0], err), 0, "%s", err);
	cr_assert_eq(l.n, 2);
	agent_list_free(&l);
	memset(&l, 0, sizeof l);
	cr_assert_eq(write(p[1], text, strlen(text) - 3), (ssize_t)strlen(text) - 3);
	close(p[1]);
	cr_assert_eq(agent_list_read(&l, p[0], err), -1);
	cr_assert(strstr(err, "the list ends before 'start'"), "%s", err);
	agent_list_free(&l);
	close(p[0]);
	agent_batch_free(&b);
}
