/* The live view in a real browser (root; headless Chromium through
 * python3-selenium, test_web_browser.py): the page of a short emulated
 * JobPacker run and of a simulated run's replay (emu view) shows the
 * circuits of ocs.csv at the time it shows and ends with summary.json's
 * jobs finished.  Screenshots stay in the test's temp dir.  Everything
 * listens on and talks to 127.0.0.1 only. */
#include "run_fixture.h"
#include <arpa/inet.h>
#include <libgen.h>
#include <signal.h>
#include <sys/socket.h>

#define P "web"

static char tmp[64], emu[512], script[600];

static void setup(void)
{
	char self[512];
	fx_need_root();
	snprintf(tmp, sizeof tmp, "/tmp/emu-itweb-XXXXXX");
	cr_assert_not_null(mkdtemp(tmp));
	rx_emu_path(emu, sizeof emu);
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	self[n > 0 ? n : 0] = 0;
	snprintf(script, sizeof script, "%s/tests/integ/test_web_browser.py", dirname(dirname(self)));
}

TestSuite(web_browser, .init = setup, .timeout = 600);

/* Ports of their own, away from the usual ones. */
static int free_port(int k)
{
	return 20000 + (getpid() * 7 + k) % 20000;
}

static void wait_listening(int port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	for (int i = 0; i < 300; i++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0), ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
		close(fd);
		if (ok)
			return;
		rx_sleep(0.1);
	}
	cr_assert_fail("nothing listens on 127.0.0.1:%d", port);
}

/* The browser's check (test_web_browser.py MODE), started: it writes
 * tmp/browser-ready once Chromium is up, since Chromium can take longer to
 * start on a loaded machine than a short run lasts. */
static pid_t browse_start(const char *mode, int port, const char *results)
{
	char url[64], log[600], ready[600];
	snprintf(url, sizeof url, "http://127.0.0.1:%d/", port);
	snprintf(log, sizeof log, "%s/%s-browser.log", tmp, mode);
	snprintf(ready, sizeof ready, "%s/browser-ready", tmp);
	unlink(ready);
	const char *argv[] = {"/usr/bin/python3", script, mode, url, results, tmp, NULL};
	return rx_spawn(argv, log);
}

/* Its verdict from its exit status; skips the test where there is no browser. */
static void browse_verdict(const char *mode, int rc)
{
	char log[600], buf[8192] = "";
	snprintf(log, sizeof log, "%s/%s-browser.log", tmp, mode);
	FILE *f = fopen(log, "r");
	if (f) {
		buf[fread(buf, 1, sizeof buf - 1, f)] = 0;
		fclose(f);
	}
	if (rc == 77)
		cr_skip_test("%s", buf);
	cr_assert_eq(rc, 0, "%s (screenshots and logs in %s)", buf, tmp);
	cr_log_info("%s", buf);
}

static void browse_end(const char *mode, pid_t b) { browse_verdict(mode, rx_wait_exit(b)); }

/* -1 once the browser is up; its exit status if it ended before. */
static int browser_up(pid_t b)
{
	char ready[600];
	snprintf(ready, sizeof ready, "%s/browser-ready", tmp);
	for (int i = 0; i < 1200; i++) {
		int st;
		if (access(ready, F_OK) == 0)
			return -1;
		if (waitpid(b, &st, WNOHANG) == b)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		rx_sleep(0.1);
	}
	cr_assert_fail("the browser never came up");
	return 1;
}

/* The showcase's kind of jobs, fewer: circuits change within seconds. */
#define JOBS "--scheduler", "jobpacker", "--jobs", "12", "--seed", "12", "--slowstart", "0.7", "--min-shuffle", \
	     "100MB", "--max-maps", "100", "--ocs-reconfig", "early", "--quiet"

Test(web_browser, live_run)
{
	char web[32], results[600], log[600];
	int port = free_port(0);
	snprintf(web, sizeof web, "127.0.0.1:%d", port);
	snprintf(log, sizeof log, "%s/run.log", tmp);
	const char *argv[] = {emu, "run", "--prefix", P, "--results", tmp, "--experiment", "x", "--run", "live",
			      "--web", web, JOBS, NULL};
	snprintf(results, sizeof results, "%s/x/jobpacker/live", tmp);
	pid_t b = browse_start("live", port, results);
	int rc = browser_up(b);
	if (rc >= 0) {
		browse_verdict("live", rc);
		return;
	}
	pid_t run = rx_spawn(argv, log);
	browse_end("live", b);
	cr_assert_eq(rx_wait_exit(run), 0, "emu run failed: see %s", log);
}

Test(web_browser, sim_replay)
{
	char web[32], results[600], log[600];
	int port = free_port(1);
	snprintf(web, sizeof web, "127.0.0.1:%d", port);
	const char *sim[] = {emu, "run", "--backend", "sim", "--results", tmp, "--experiment", "x", "--run", "sim", JOBS,
			     NULL};
	cr_assert_eq(rx_wait_exit(rx_spawn(sim, NULL)), 0);
	snprintf(results, sizeof results, "%s/x/jobpacker/sim", tmp);
	snprintf(log, sizeof log, "%s/view.log", tmp);
	const char *view[] = {emu, "view", results, "--web", web, NULL};
	pid_t v = rx_spawn(view, log);
	wait_listening(port);
	browse_end("replay", browse_start("replay", port, results));
	kill(v, SIGTERM);
	cr_assert_eq(rx_wait_exit(v), 0, "emu view: see %s", log);
}
