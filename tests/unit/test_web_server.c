/* The live view's HTTP side (emu/web/server.c), on 127.0.0.1 only: paths,
 * methods, request size, Server-Sent Events, 100 connections at once, a
 * client that never reads, and a simulated run watched by 100 clients
 * whose results are those of the run without them. */
#include "emu/run.h"
#include "emu/web/server.h"
#include "web_fixture.h"
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CLIENTS 100

static struct web_pub *pub;
static struct web_server *srv;
static int port;

static void put(const char *json)
{
	cr_assert_eq(web_pub_put(pub, json, strlen(json)), 0);
}

static void start(void)
{
	char err[256];
	pub = web_pub_new();
	cr_assert_not_null(pub);
	put("{\"mode\":\"live\",\"t\":1}");
	struct web_server_cfg cfg = {.addr = "127.0.0.1", .port = 0, .root = "web", .pub = pub};
	srv = web_server_start(&cfg, err);
	cr_assert_not_null(srv, "%s", err);
	port = web_server_port(srv);
	cr_assert_gt(port, 0);
}

static void stop(void)
{
	web_server_stop(srv);
	web_pub_free(pub);
}

TestSuite(web_server, .init = start, .fini = stop, .timeout = 60);

static int dial(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
	struct timeval tv = {5, 0};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	return fd;
}

static void send_all(int fd, const char *req, size_t len)
{
	for (size_t off = 0; off < len;) {
		ssize_t n = send(fd, req + off, len - off, MSG_NOSIGNAL);
		if (n <= 0)
			return;   /* the server may close early on a refused request */
		off += n;
	}
}

/* Read until `until` appears in what came (NULL: until the server closes);
 * returns the bytes read. */
static size_t recv_until(int fd, char *buf, size_t len, const char *until)
{
	size_t got = 0;
	buf[0] = 0;
	while (got < len - 1) {
		ssize_t n = recv(fd, buf + got, len - 1 - got, 0);
		if (n <= 0)
			break;
		got += n;
		buf[got] = 0;
		if (until && strstr(buf, until))
			break;
	}
	return got;
}

/* One request; the status code, the response in buf. */
static int request(const char *req, char *buf, size_t len)
{
	int fd = dial();
	send_all(fd, req, strlen(req));
	recv_until(fd, buf, len, NULL);
	close(fd);
	int status = 0;
	sscanf(buf, "HTTP/1.%*d %d", &status);
	return status;
}

Test(web_server, paths_and_methods)
{
	char buf[65536];
	cr_assert_eq(request("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", buf, sizeof buf), 200);
	cr_assert(strstr(buf, "<!DOCTYPE html>"));
	cr_assert_eq(request("GET /app.js HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", buf, sizeof buf), 200);
	cr_assert_eq(request("GET /snapshot.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", buf, sizeof buf), 200);
	cr_assert(strstr(buf, "\"t\":1"));
	cr_assert_eq(request("GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", buf, sizeof buf), 404);
	cr_assert_eq(request("GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", buf, sizeof buf), 404);
	cr_assert_eq(request("GET /index.html/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", buf, sizeof buf), 404);
	cr_assert_eq(request("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc", buf,
			     sizeof buf), 405);
	cr_assert(strstr(buf, "Allow: GET"));
	cr_assert_eq(request("DELETE /snapshot.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", buf, sizeof buf), 405);
	cr_assert_eq(request("HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", buf, sizeof buf), 405);
}

Test(web_server, oversized_requests_are_refused)
{
	size_t big = 4 * WEB_REQUEST_MAX;
	char *req = malloc(big + 128), buf[4096];
	int n = snprintf(req, big + 128, "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: ");
	memset(req + n, 'a', big);
	strcpy(req + n + big, "\r\nConnection: close\r\n\r\n");
	int status = request(req, buf, sizeof buf);
	cr_assert(status == 431 || status == 413 || status == 414, "status %d", status);
	/* a long path */
	memcpy(req, "GET /", 5);
	memset(req + 5, 'a', big);
	strcpy(req + 5 + big, " HTTP/1.1\r\nHost: x\r\n\r\n");
	status = request(req, buf, sizeof buf);
	cr_assert(status == 414 || status == 431 || status == 413, "status %d", status);
	free(req);
	cr_assert_eq(request("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", buf, sizeof buf), 200);
}

Test(web_server, events_follow_the_publications)
{
	char buf[8192];
	int fd = dial();
	const char *req = "GET /events HTTP/1.1\r\nHost: x\r\n\r\n";
	send_all(fd, req, strlen(req));
	recv_until(fd, buf, sizeof buf, "\"t\":1}\n\n");
	cr_assert(strstr(buf, "text/event-stream"), "%s", buf);
	cr_assert(strstr(buf, "data: {\"mode\":\"live\",\"t\":1}\n\n"), "%s", buf);
	put("{\"mode\":\"live\",\"t\":2}");
	recv_until(fd, buf, sizeof buf, "\"t\":2}");
	cr_assert(strstr(buf, "data: {\"mode\":\"live\",\"t\":2}"), "%s", buf);
	close(fd);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

Test(web_server, a_hundred_clients_at_once)
{
	int fds[CLIENTS];
	char buf[4096];
	const char *req = "GET /events HTTP/1.1\r\nHost: x\r\n\r\n";
	for (int i = 0; i < CLIENTS; i++) {
		fds[i] = dial();
		send_all(fds[i], req, strlen(req));
	}
	put("{\"mode\":\"live\",\"t\":3}");
	for (int i = 0; i < CLIENTS; i++) {
		recv_until(fds[i], buf, sizeof buf, "\"t\":3}");
		cr_assert(strstr(buf, "\"t\":3}"), "client %d saw: %s", i, buf);
	}
	for (int i = 0; i < CLIENTS; i++)
		close(fds[i]);
	/* and 100 plain requests at once, each answered and closed */
	const char *get = "GET /snapshot.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
	for (int i = 0; i < CLIENTS; i++) {
		fds[i] = dial();
		send_all(fds[i], get, strlen(get));
	}
	for (int i = 0; i < CLIENTS; i++) {
		recv_until(fds[i], buf, sizeof buf, NULL);
		cr_assert(!strncmp(buf, "HTTP/1.1 200", 12), "client %d: %s", i, buf);
		close(fds[i]);
	}
}

/* A browser that stops reading, and one that vanishes, cost the publisher
 * nothing: it never waits for a client. */
Test(web_server, slow_and_vanished_clients_cost_nothing)
{
	size_t big = 1 << 20;
	char *json = malloc(big + 32), buf[4096];
	int stuck = dial(), gone = dial();
	int small = 4096;
	setsockopt(stuck, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
	const char *req = "GET /events HTTP/1.1\r\nHost: x\r\n\r\n";
	send_all(stuck, req, strlen(req));
	send_all(gone, req, strlen(req));
	close(gone);
	double worst = 0;
	for (int k = 0; k < 30; k++) {
		int n = snprintf(json, 32, "{\"t\":%d,\"pad\":\"", k);
		memset(json + n, 'x', big - n - 2);
		memcpy(json + big - 2, "\"}", 2);
		double t0 = now_s();
		cr_assert_eq(web_pub_put(pub, json, big), 0);
		worst = worst > now_s() - t0 ? worst : now_s() - t0;
	}
	cr_assert_lt(worst, 0.05, "a publication took %.3f s", worst);
	cr_assert_eq(request("GET /style.css HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", buf, sizeof buf), 200);
	close(stuck);
	free(json);
}

/* ---- a run watched by 100 clients ---------------------------------------- */

/* Each client's frames, and whether it saw the run's final one (a frame may
 * arrive in pieces: the last bytes of each read are kept to match across). */
#define FINAL "\"final\":true"
struct watchers {
	int fds[CLIENTS];
	volatile int stop;
	unsigned long frames;
	bool final[CLIENTS];
	volatile int nfinal;
};

static void *watch(void *arg)
{
	struct watchers *w = arg;
	struct pollfd p[CLIENTS];
	static char buf[CLIENTS][65536 + sizeof FINAL];
	size_t keep[CLIENTS] = {0};
	for (int i = 0; i < CLIENTS; i++)
		p[i] = (struct pollfd){w->fds[i], POLLIN, 0};
	while (!w->stop)
		if (poll(p, CLIENTS, 50) > 0)
			for (int i = 0; i < CLIENTS; i++)
				if (p[i].revents & POLLIN) {
					ssize_t n = recv(p[i].fd, buf[i] + keep[i], 65536, MSG_DONTWAIT);
					if (n <= 0)
						continue;
					size_t len = keep[i] + n;
					for (size_t k = keep[i] >= 4 ? keep[i] - 4 : 0; k + 5 <= len; k++)
						w->frames += !memcmp(buf[i] + k, "data:", 5);
					if (!w->final[i] && memmem(buf[i], len, FINAL, strlen(FINAL))) {
						w->final[i] = true;
						w->nfinal++;
					}
					keep[i] = len < strlen(FINAL) ? len : strlen(FINAL);
					memmove(buf[i], buf[i] + len - keep[i], keep[i]);
				}
	return NULL;
}

Test(web_server, a_watched_run_has_the_same_results)
{
	char rootdir[] = "/tmp/emu-websrv-XXXXXX", cmd[64];
	cr_assert_not_null(mkdtemp(rootdir));
	json_t *plain = web_fx_sim(rootdir, "plain", 20, NULL, NULL, 0);
	struct watchers w = {.stop = 0};
	const char *req = "GET /events HTTP/1.1\r\nHost: x\r\n\r\n";
	for (int i = 0; i < CLIENTS; i++) {
		w.fds[i] = dial();
		send_all(w.fds[i], req, strlen(req));
	}
	pthread_t th;
	cr_assert_eq(pthread_create(&th, NULL, watch, &w), 0);
	json_t *watched = web_fx_sim(rootdir, "watched", 20, pub, NULL, 0);
	/* The final snapshot reaches every client, however loaded the machine. */
	for (double t0 = now_s(); w.nfinal < CLIENTS && now_s() - t0 < 30;)
		usleep(20 * 1000);
	w.stop = 1;
	pthread_join(th, NULL);
	for (int i = 0; i < CLIENTS; i++)
		close(w.fds[i]);
	cr_assert_eq(w.nfinal, CLIENTS, "%d clients saw the final snapshot", w.nfinal);
	cr_assert_geq(w.frames, CLIENTS, "the clients saw %lu frames", w.frames);
	static const char *const keys[] = {"jobs_finished", "makespan_s", "jct_mean_s", "jct_p95_s", "eps_bytes",
					   "ocs_bytes", "task_reruns"};
	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
		cr_assert(json_equal(json_object_get(plain, keys[i]), json_object_get(watched, keys[i])), "%s differs",
			  keys[i]);
	cr_assert(json_equal(json_object_get(plain, "ocs"), json_object_get(watched, "ocs")));
	struct web_snap *last = web_pub_get(pub);
	json_t *snap = json_loads(last->json, 0, NULL);
	web_snap_unref(last);
	cr_assert(json_is_true(json_object_get(snap, "final")));
	cr_assert(json_equal(json_object_get(json_object_get(snap, "summary"), "jobs_finished"),
			     json_object_get(watched, "jobs_finished")));
	json_decref(snap);
	json_decref(plain);
	json_decref(watched);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", rootdir);
	cr_assert_eq(system(cmd), 0);
}
