/* Unit tests: the list a host's agents' starter reads (emu/agent_batch.h). */
#include "emu/agent_batch.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

/* The starter itself (emu-agent --spawn beside the tests): a bad list is
 * refused naming its line (status 2); an agent that fails is said, by its
 * server, and the starter ends with status 1 once none is left. */
static int starter(const char *input, char *errbuf, size_t len)
{
	char self[512], agent[600], errpath[] = "/tmp/emu-ut-spawn-XXXXXX";
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	cr_assert_gt(n, 0);
	self[n] = 0;
	*strrchr(self, '/') = 0;
	snprintf(agent, sizeof agent, "%s/bin/emu-agent", self);
	cr_assert_eq(access(agent, X_OK), 0, "%s missing", agent);
	int efd = mkstemp(errpath), p[2];
	cr_assert(efd >= 0 && !pipe(p));
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[0], 0);
		dup2(efd, 2);
		close(p[1]);
		execl(agent, agent, "--spawn", "--prefix", "ut", "--host", "b", (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	cr_assert_eq(write(p[1], input, strlen(input)), (ssize_t)strlen(input));
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);   /* its input stays open: it ends by itself */
	close(p[1]);
	n = pread(efd, errbuf, len - 1, 0);
	errbuf[n > 0 ? n : 0] = 0;
	close(efd);
	unlink(errpath);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

Test(agent_batch, the_starter_refuses_a_bad_list_and_says_which_agent_failed)
{
	char err[2048];
	cr_assert_eq(starter("emu-agents 1\nsecret 12\n", err, sizeof err), 2);
	cr_assert(strstr(err, "emu-agent --spawn: host b: standard input: line 2: expected 'secret'"), "%s", err);
	cr_assert_eq(starter("emu-agents 1\nsecret " SECRET "\nagent 3\n--server\nr1h0\n--bogus\nstart\n", err, sizeof err), 1);
	cr_assert(strstr(err, "host b: the agent of r1h0 exited with status 2"), "%s", err);
}
