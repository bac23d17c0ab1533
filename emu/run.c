/* run.c — the controller of an emulation run: setup, the event loop,
 * agents, task dispatch, faults, teardown.  See run.h. */
#include "emu/agent_spawn.h"
#include "emu/run_int.h"
#include "netctl/ns.h"
#include "netctl/plan.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

volatile int run_stop_requested;

#define TICK_S      0.02
#define HELLO_WAIT  20.0

void run_params_default(struct run_params *p)
{
	memset(p, 0, sizeof *p);
	p->prefix = "emu";
	p->scheduler = "fair";
	p->results_root = "results";
	p->experiment = "default";
	p->slowstart = 0.05;
	p->elephant_bytes = 1125000000ULL;
	p->hold = true;
	ocs_params_default(&p->ocs);
	p->heartbeat_s = 0.2;
	p->node_wait_s = 1.0;
	p->rack_wait_s = 1.0;
	p->copiers = 5;
	p->timeout_s = 3600;
	p->seed = 1;
}

static double wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

double run_now(const struct run *r)
{
	return wall() - r->t0;
}

static void say(const struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct run *r, const char *fmt, ...)
{
	va_list ap;
	if (r->p.quiet)
		return;
	va_start(ap, fmt);
	fputs("emu: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* ---- agents ------------------------------------------------------------- */

static char sendbuf[PROTO_MAX_LINE];   /* guarded by send_mu */

int run_send(struct run *r, int server, const struct msg *m)
{
	int rc = -1;
	pthread_mutex_lock(&r->send_mu);
	struct agent *a = &r->agents[server];
	int n = a->up ? proto_encode(m, sendbuf, sizeof sendbuf) : -1;
	for (int off = 0; n > 0 && off < n;) {
		ssize_t w = write(a->fd, sendbuf + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (int)w;
		rc = off == n ? 0 : -1;
	}
	pthread_mutex_unlock(&r->send_mu);
	return rc;
}

static void broadcast_pairs(struct run *r, enum msg_op op, const struct circuit_cfg *cfg)
{
	struct rack_pair pairs[TOPO_MAX_RACKS * TOPO_MAX_PORTS];
	int n = 0;
	for (int p = 0; p < cfg->ports; p++)
		for (int s = 0; s < cfg->racks; s++)
			if (cfg->out[p][s] >= 0)
				pairs[n++] = (struct rack_pair){s, cfg->out[p][s]};
	struct msg m = {.op = op, .pairs = pairs, .npairs = n};
	for (int i = 0; i < r->c.nservers; i++)
		run_send(r, i, &m);
}

static void on_announce(void *arg, const struct circuit_cfg *going) { broadcast_pairs(arg, OP_ANNOUNCE, going); }
static void on_lit(void *arg, const struct circuit_cfg *lit) { broadcast_pairs(arg, OP_CIRCUITS, lit); }

static int spawn_agents(struct run *r, char err[512])
{
	char path[512], server[16], rack[16], addr[32], port[16], ctl[300], copiers[16];
	if (r->p.agent_path)
		snprintf(path, sizeof path, "%s", r->p.agent_path);
	else if (agent_default_path(path, sizeof path)) {
		snprintf(err, 512, "cannot find emu-agent beside the emu binary");
		return -1;
	}
	if (access(path, X_OK)) {
		snprintf(err, 512, "%s: %s", path, strerror(errno));
		return -1;
	}
	snprintf(port, sizeof port, "%d", DATA_PORT);
	snprintf(ctl, sizeof ctl, "%s", r->sock_path);
	snprintf(copiers, sizeof copiers, "%d", r->p.copiers);
	for (int i = 0; i < r->c.nservers; i++) {
		struct host_id h = {HOST_SERVER, cluster_rack_of(&r->c, i), r->c.servers[i].index};
		struct in_addr ip = plan_server_ip(r->t, h.rack, h.server);
		plan_host_name(&h, server, sizeof server);
		snprintf(rack, sizeof rack, "%d", h.rack);
		inet_ntop(AF_INET, &ip, addr, sizeof addr);
		char *argv[] = {path, "--server", server, "--rack", rack, "--addr", addr, "--data-port", port,
				"--control", ctl, r->p.hold ? "--hold" : "--fallback", "--cc", (char *)r->t->tcp_cc,
				"--copiers", copiers, NULL};
		r->agents[i].pid = agent_spawn(path, fabric_ns_fd(r->fab, &h), argv);
		if (r->agents[i].pid < 0) {
			snprintf(err, 512, "cannot start the agent of %s: %s", server, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Connections before their hello are not yet tied to a server. */
struct conn {
	int fd, server;
	char *buf;
	size_t len;
};

static struct conn *conns;
static int nconns;

static struct conn *conn_of(int fd)
{
	for (int i = 0; i < nconns; i++)
		if (conns[i].fd == fd)
			return &conns[i];
	return NULL;
}

static void conn_drop(struct run *r, struct conn *c)
{
	epoll_ctl(r->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	pthread_mutex_lock(&r->send_mu);
	if (c->server >= 0) {
		r->agents[c->server].up = false;
		r->agents[c->server].fd = -1;
	}
	close(c->fd);
	pthread_mutex_unlock(&r->send_mu);
	free(c->buf);
	*c = conns[--nconns];
}

static void accept_agent(struct run *r)
{
	int fd = accept4(r->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	struct ucred cred;
	socklen_t len = sizeof cred;
	/* Only root (our own agents) may talk to the controller. */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) || cred.uid != 0) {
		close(fd);
		return;
	}
	struct timeval tv = {2, 0};
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	struct conn *nc = realloc(conns, (nconns + 1) * sizeof *conns);
	if (!nc) {
		close(fd);
		return;
	}
	conns = nc;
	conns[nconns++] = (struct conn){fd, -1, malloc(PROTO_MAX_LINE), 0};
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
	epoll_ctl(r->epfd, EPOLL_CTL_ADD, fd, &ev);
}

/* ---- tasks -------------------------------------------------------------- */

static void start_task(struct run *r, struct task *t, int server)
{
	struct job *j = &r->w->jobs[t->job];
	cluster_start_task(&r->c, t, server);
	if (t->attempts > 1)
		r->reruns++;
	struct msg m = {.task = t->id, .job = j->id, .duration = t->duration_s, .output_bytes = t->output_bytes};
	if (t->kind == TASK_MAP) {
		/* Read the block locally if this server holds it, else from a
		 * replica in the same rack, else from any live replica. */
		int src = -1, rack = cluster_rack_of(&r->c, server);
		t->data_local = t->rack_local = false;
		for (int k = 0; k < 3; k++) {
			int s = t->replicas[k];
			if (s < 0 || !r->c.servers[s].alive || !r->agents[s].up)
				continue;
			if (s == server) {
				src = -1;
				t->data_local = t->rack_local = true;
				break;
			}
			if (src < 0 || (cluster_rack_of(&r->c, s) == rack && cluster_rack_of(&r->c, src) != rack))
				src = s;
		}
		if (!t->data_local && src < 0)
			t->data_local = true;   /* no replica left: regenerate it locally */
		if (!t->data_local) {
			t->rack_local = cluster_rack_of(&r->c, src) == rack;
			m.input_addr.sin_family = AF_INET;
			m.input_addr.sin_addr = plan_server_ip(r->t, cluster_rack_of(&r->c, src), r->c.servers[src].index);
			m.input_addr.sin_port = htons(DATA_PORT);
		}
		m.op = OP_MAP;
		m.input_src = t->data_local ? -1 : src;
		m.input_bytes = t->input_bytes;
	} else {
		m.op = OP_REDUCE;
		m.copiers = r->p.copiers;
		shuffle_reset_reduce(r, t);
	}
	run_send(r, server, &m);
	if (t->kind == TASK_REDUCE)
		shuffle_pump(r, j);
}

static void offer(struct run *r, int server)
{
	struct server *s = &r->c.servers[server];
	while (s->alive && r->agents[server].up && s->free > 0) {
		struct task *t = r->s.ops->offer(&r->s, server);
		if (!t || t->state != TASK_PENDING)
			break;
		start_task(r, t, server);
	}
}

static void task_done(struct run *r, int server, const struct msg *m)
{
	if (m->task < 0 || m->task >= r->w->ntasks)
		return;
	struct task *t = &r->w->tasks[m->task];
	if (t->state != TASK_RUNNING || t->server != server)
		return;   /* stale: killed or re-run elsewhere meanwhile */
	struct job *j = &r->w->jobs[t->job];
	if (!m->ok) {
		say(r, "task %d (job %d %s) failed on server %d: %s; re-running it", t->id, j->id,
		    t->kind == TASK_MAP ? "map" : "reduce", server, m->error);
		cluster_requeue_task(&r->c, t);
		if (t->kind == TASK_REDUCE)
			shuffle_reset_reduce(r, t);
		offer(r, server);
		return;
	}
	if (t->kind == TASK_MAP && !t->data_local) {
		struct xfer_rec x = {.job = j->id, .task = t->id, .dst = server, .bytes = m->bytes, .input = true,
				     .done = true, .t_start = t->t_start, .t_end = run_now(r) - t->duration_s};
		for (int k = 0; k < 3; k++)   /* the replica it read from, for the record */
			if (t->replicas[k] >= 0 && t->replicas[k] != server) {
				x.src = t->replicas[k];
				if (cluster_rack_of(&r->c, x.src) == cluster_rack_of(&r->c, server) || !t->rack_local)
					break;
			}
		xfer_new(r, &x);
	}
	cluster_finish_task(&r->c, t);
	r->tasks_done++;
	if (r->s.ops->task_finished)
		r->s.ops->task_finished(&r->s, t);
	if (t->kind == TASK_MAP)
		shuffle_pump(r, j);
	offer(r, server);
}

static void flow_done(struct run *r, const struct msg *m)
{
	xfer_finish(r, m->xfer, m->bytes, m->t_end - r->t0);
}

static void demand(struct run *r, int server, const struct msg *m)
{
	pthread_mutex_lock(&r->demand_mu);
	uint64_t *p = r->agents[server].pending;
	memset(p, 0, r->c.racks * sizeof *p);
	for (int i = 0; i < m->npending; i++)
		if (m->pending[i].rack >= 0 && m->pending[i].rack < r->c.racks)
			p[m->pending[i].rack] = m->pending[i].bytes;
	pthread_mutex_unlock(&r->demand_mu);
}

/* A server's agent is gone: what ran there runs again elsewhere, and map
 * outputs kept there are lost for jobs that still need them. */
static void server_lost(struct run *r, int server)
{
	struct server *s = &r->c.servers[server];
	if (!s->alive)
		return;
	s->alive = false;
	r->agents_up--;
	say(r, "the agent of server %d is gone; re-running its tasks elsewhere", server);
	for (int i = 0; i < r->w->ntasks; i++) {
		struct task *t = &r->w->tasks[i];
		if (t->server != server)
			continue;
		if (t->state == TASK_RUNNING || (t->state == TASK_DONE && t->kind == TASK_MAP &&
						 !cluster_job_finished(&r->w->jobs[t->job]))) {
			if (t->state == TASK_DONE)
				r->tasks_done--;
			cluster_requeue_task(&r->c, t);
			if (t->kind == TASK_REDUCE)
				shuffle_reset_reduce(r, t);
		}
	}
	pthread_mutex_lock(&r->demand_mu);
	memset(r->agents[server].pending, 0, r->c.racks * sizeof(uint64_t));
	pthread_mutex_unlock(&r->demand_mu);
}

static void handle_line(struct run *r, struct conn *c, char *line, size_t len)
{
	struct msg m;
	char err[128];
	if (proto_decode(line, len, &m, err)) {
		say(r, "ignoring a malformed message from %s: %s", c->server >= 0 ? "an agent" : "a connection", err);
		return;
	}
	if (m.op == OP_HELLO && c->server < 0) {
		struct host_id h;
		if (plan_host_parse(m.server, r->t, &h) || h.kind != HOST_SERVER) {
			say(r, "hello from unknown server '%s'", m.server);
		} else {
			int s = h.rack * r->c.per_rack + h.server;
			if (!r->agents[s].up) {
				c->server = s;
				pthread_mutex_lock(&r->send_mu);
				r->agents[s].fd = c->fd;
				r->agents[s].up = true;
				pthread_mutex_unlock(&r->send_mu);
				r->agents_up++;
			}
		}
	} else if (c->server >= 0) {
		switch (m.op) {
		case OP_TASK_DONE: task_done(r, c->server, &m); break;
		case OP_FLOW_DONE: flow_done(r, &m); break;
		case OP_DEMAND: demand(r, c->server, &m); break;
		default: say(r, "unexpected message op %d from server %d", m.op, c->server);
		}
	}
	proto_free(&m);
}

static void read_conn(struct run *r, int fd)
{
	struct conn *c = conn_of(fd);
	if (!c)
		return;
	ssize_t n = read(fd, c->buf + c->len, PROTO_MAX_LINE - c->len);
	if (n <= 0) {
		int server = c->server;
		conn_drop(r, c);
		if (server >= 0 && r->t0 > 0)
			server_lost(r, server);
		return;
	}
	c->len += (size_t)n;
	char *start = c->buf, *nl;
	while ((nl = memchr(start, '\n', c->buf + c->len - start))) {
		handle_line(r, c, start, (size_t)(nl - start));
		c = conn_of(fd);   /* handling may not drop it, but stay safe */
		if (!c)
			return;
		start = nl + 1;
	}
	size_t rest = c->buf + c->len - start;
	if (rest == PROTO_MAX_LINE) {   /* a line longer than allowed: protocol violation */
		say(r, "dropping a connection that sent an oversized line");
		int server = c->server;
		conn_drop(r, c);
		if (server >= 0)
			server_lost(r, server);
		return;
	}
	memmove(c->buf, start, rest);
	c->len = rest;
}

/* ---- the OCS thread ----------------------------------------------------- */

static void *ocs_main(void *arg)
{
	struct run *r = arg;
	struct timespec ts;
	ocs_realtime();   /* best effort: δ stays precise on a busy machine */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	double next = (double)ts.tv_sec + ts.tv_nsec * 1e-9;
	while (!r->ocs_stop) {
		next += r->p.ocs.interval_s;
		struct timespec at = {(time_t)next, (long)((next - (double)(time_t)next) * 1e9)};
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR)
			;
		if (r->ocs_stop)
			break;
		pthread_mutex_lock(&r->demand_mu);
		for (int s = 0; s < r->c.racks; s++)
			for (int d = 0; d < r->c.racks; d++) {
				uint64_t sum = 0;
				for (int k = 0; k < r->c.per_rack; k++)
					sum += r->agents[s * r->c.per_rack + k].pending[d];
				ocs_demand_set(&r->ocs, s, d, (int64_t)(sum > INT64_MAX / 4 ? INT64_MAX / 4 : sum));
			}
		pthread_mutex_unlock(&r->demand_mu);
		if (ocs_tick(&r->ocs, NULL, r->ocs_err))
			break;
	}
	return NULL;
}

/* ---- setup, loop, teardown ---------------------------------------------- */

static int open_control(struct run *r, char err[512])
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(r->sock_path, sizeof r->sock_path, "%s/%s/ctl.sock", FABRIC_STATE_DIR, r->p.prefix);
	if (strlen(r->sock_path) >= sizeof a.sun_path) {
		snprintf(err, 512, "control socket path too long");
		return -1;
	}
	strcpy(a.sun_path, r->sock_path);
	unlink(r->sock_path);
	r->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	/* The state directory is root-only (0700); the socket is born 0600
	 * (umask around bind, so there is no moment it is more open). */
	mode_t old = umask(077);
	int bound = r->listen_fd >= 0 ? bind(r->listen_fd, (struct sockaddr *)&a, sizeof a) : -1;
	umask(old);
	if (bound || chmod(r->sock_path, 0600) || listen(r->listen_fd, 1024)) {
		snprintf(err, 512, "control socket %s: %s", r->sock_path, strerror(errno));
		return -1;
	}
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = r->listen_fd};
	return epoll_ctl(r->epfd, EPOLL_CTL_ADD, r->listen_fd, &ev);
}

static void arrivals(struct run *r)
{
	for (int i = 0; i < r->w->njobs; i++) {
		struct job *j = &r->w->jobs[i];
		if (!cluster_job_ready(&r->c, j))
			continue;
		for (int m = 0; m < j->nmaps; m++) {
			struct task *t = job_map(r->w->tasks, j, m);
			sched_place_input(&r->s, j, t, t->replicas);
		}
		cluster_job_arrive(&r->c, j);
		if (r->s.ops->job_arrived)
			r->s.ops->job_arrived(&r->s, j);
	}
}

static bool all_done(const struct run *r)
{
	for (int i = 0; i < r->w->njobs; i++)
		if (!r->c.arrived[i] || !cluster_job_finished(&r->w->jobs[i]))
			return false;
	return true;
}

static int wait_for_agents(struct run *r, char err[512])
{
	double until = wall() + HELLO_WAIT;
	while (r->agents_up < r->c.nservers && wall() < until && !run_stop_requested) {
		struct epoll_event ev[64];
		int n = epoll_wait(r->epfd, ev, 64, 100);
		for (int i = 0; i < n; i++)
			if (ev[i].data.fd == r->listen_fd)
				accept_agent(r);
			else
				read_conn(r, ev[i].data.fd);
	}
	if (r->agents_up < r->c.nservers) {
		snprintf(err, 512, "only %d of %d agents started within %.0f s", r->agents_up, r->c.nservers, HELLO_WAIT);
		return -1;
	}
	return 0;
}

static void loop(struct run *r)
{
	double next_hb = 0, next_sample = 1;
	while (!run_stop_requested) {
		struct epoll_event ev[64];
		int n = epoll_wait(r->epfd, ev, 64, 1000);
		for (int i = 0; i < n; i++) {
			int fd = ev[i].data.fd;
			if (fd == r->timer_fd) {
				uint64_t x;
				if (read(fd, &x, sizeof x) < 0) { /* nothing to do */ }
			} else if (fd == r->listen_fd) {
				accept_agent(r);
			} else {
				read_conn(r, fd);
			}
		}
		r->c.now = run_now(r);
		arrivals(r);
		if (r->c.now >= next_hb) {
			next_hb = r->c.now + r->p.heartbeat_s;
			if (r->s.ops->tick)
				r->s.ops->tick(&r->s);
			for (int s = 0; s < r->c.nservers; s++)
				offer(r, s);
			for (int j = 0; j < r->w->njobs; j++)
				if (r->c.arrived[j] && !cluster_job_finished(&r->w->jobs[j]))
					shuffle_pump(r, &r->w->jobs[j]);
		}
		if (r->c.now >= next_sample) {
			next_sample += 1.0;
			monitor_sample(r, false);
		}
		if (all_done(r))
			break;
		if (!r->agents_up) {
			r->stop_reason = "every agent was lost";
			break;
		}
		if (r->ocs_on && r->ocs_err[0]) {
			r->stop_reason = "the OCS controller failed";
			say(r, "OCS controller: %s", r->ocs_err);
			break;
		}
		if (r->c.now > r->p.timeout_s) {
			r->stop_reason = "timeout";
			break;
		}
	}
	if (run_stop_requested)
		r->stop_reason = "interrupted";
	r->partial = !all_done(r);
}

static void stop_agents(struct run *r)
{
	struct msg m = {.op = OP_SHUTDOWN};
	for (int i = 0; i < r->c.nservers; i++)
		run_send(r, i, &m);
	for (int i = 0; i < r->c.nservers; i++) {
		pid_t pid = r->agents[i].pid;
		if (pid <= 0)
			continue;
		for (int k = 0; k < 100 && waitpid(pid, NULL, WNOHANG) == 0; k++) {
			struct timespec ts = {0, 10 * 1000000L};
			nanosleep(&ts, NULL);
		}
		if (waitpid(pid, NULL, WNOHANG) == 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
	}
}

static void rename_tmp(struct run *r, const char *name)
{
	char tmp[600], path[600];
	snprintf(tmp, sizeof tmp, "%s/%s.tmp", r->dir, name);
	snprintf(path, sizeof path, "%s/%s", r->dir, name);
	rename(tmp, path);
}

int run_experiment(const struct topo *t, struct workload *w, const struct run_params *p, char err[512])
{
	struct run *r = calloc(1, sizeof *r);
	char ferr[FABRIC_ERR_LEN];
	int rc = -1;
	bool fabric = false;
	if (!r) {
		snprintf(err, 512, "out of memory");
		return -1;
	}
	r->p = *p;
	r->t = t;
	r->w = w;
	r->epfd = r->listen_fd = r->timer_fd = -1;
	pthread_mutex_init(&r->send_mu, NULL);
	pthread_mutex_init(&r->demand_mu, NULL);
	const struct sched_ops *ops = sched_find(p->scheduler);
	if (!ops) {
		snprintf(err, 512, "unknown scheduler '%s'", p->scheduler);
		goto out;
	}
	if (cluster_init(&r->c, t->racks, t->servers_per_rack, t->containers, w, p->slowstart)) {
		snprintf(err, 512, "out of memory");
		goto out;
	}
	struct sched_params sp = {p->elephant_bytes, p->node_wait_s, p->rack_wait_s, p->seed};
	if (sched_init(&r->s, ops, &r->c, &sp)) {
		snprintf(err, 512, "scheduler %s failed to initialise", p->scheduler);
		goto out;
	}
	r->agents = calloc(r->c.nservers, sizeof *r->agents);
	r->requested = calloc(w->njobs ? w->njobs : 1, sizeof *r->requested);
	r->final_sent = calloc(w->ntasks ? w->ntasks : 1, sizeof *r->final_sent);
	if (!r->agents || !r->requested || !r->final_sent)
		goto oom;
	for (int i = 0; i < r->c.nservers; i++) {
		r->agents[i].fd = -1;
		if (!(r->agents[i].pending = calloc(t->racks, sizeof(uint64_t))))
			goto oom;
	}
	if (results_prepare(r, err))
		goto out;
	say(r, "building the fabric (%d racks x %d servers)", t->racks, t->servers_per_rack);
	if (fabric_up(t, p->prefix, NULL, ferr)) {
		snprintf(err, 512, "%s", ferr);
		goto out;
	}
	fabric = true;
	/* Tell `emu cleanup` where this run's temporary files are, in case the
	 * controller is killed before it can rename or remove them. */
	char marker[300];
	snprintf(marker, sizeof marker, "%s/%s/results", FABRIC_STATE_DIR, p->prefix);
	FILE *mf = fopen(marker, "w");
	if (mf) {
		fprintf(mf, "%s\n", r->dir);
		fclose(mf);
	}
	if (!(r->fab = fabric_open(p->prefix, ferr))) {
		snprintf(err, 512, "%s", ferr);
		goto out;
	}
	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epfd < 0 || open_control(r, err))
		goto out;
	say(r, "starting %d agents", r->c.nservers);
	if (spawn_agents(r, err) || wait_for_agents(r, err))
		goto out;
	r->ocs_on = t->ocs;
	if (r->ocs_on) {
		struct fabric *of = fabric_open(p->prefix, ferr);   /* its own sockets, for its own thread */
		char path[600];
		snprintf(path, sizeof path, "%s/ocs.csv.tmp", r->dir);
		struct ocs_hooks hooks = {on_announce, on_lit, r};
		if (!of || ocs_ctl_init(&r->ocs, of, &p->ocs, &hooks, path, ferr)) {
			snprintf(err, 512, "OCS controller: %s", ferr);
			fabric_close(of);
			r->ocs_on = false;
			goto out;
		}
	}
	if (monitor_open(r)) {
		snprintf(err, 512, "cannot read the fabric's counters or write links.csv: %s", strerror(errno));
		goto out;
	}
	r->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	struct itimerspec its = {{0, (long)(TICK_S * 1e9)}, {0, (long)(TICK_S * 1e9)}};
	struct epoll_event tev = {.events = EPOLLIN, .data.fd = r->timer_fd};
	if (r->timer_fd < 0 || timerfd_settime(r->timer_fd, 0, &its, NULL) ||
	    epoll_ctl(r->epfd, EPOLL_CTL_ADD, r->timer_fd, &tev)) {
		snprintf(err, 512, "timer: %s", strerror(errno));
		goto out;
	}
	r->t0 = wall();
	r->last_sample = 0;
	if (r->ocs_on && pthread_create(&r->ocs_thread, NULL, ocs_main, r)) {
		snprintf(err, 512, "OCS thread: %s", strerror(errno));
		r->ocs_on = false;
		goto out;
	}
	say(r, "running %d jobs (%d tasks) under %s", w->njobs, w->ntasks, p->scheduler);
	loop(r);
	rc = r->partial ? 1 : 0;
	if (r->ocs_on) {
		r->ocs_stop = 1;
		pthread_join(r->ocs_thread, NULL);
	}
	stop_agents(r);
	monitor_sample(r, true);
	if (results_write(r))
		say(r, "warning: could not write every result file in %s", r->dir);
	goto out;
oom:
	snprintf(err, 512, "out of memory");
out:
	if (r->ocs_on) {
		if (!r->ocs_stop) {
			r->ocs_stop = 1;
			pthread_join(r->ocs_thread, NULL);
		}
		struct fabric *of = r->ocs.fab;
		ocs_ctl_free(&r->ocs);
		fabric_close(of);
		if (rc >= 0)
			rename_tmp(r, "ocs.csv");
	}
	if (rc >= 0 && r->links_csv) {
		monitor_close(r);
		rename_tmp(r, "links.csv");
	}
	monitor_close(r);
	for (int i = 0; r->agents && i < r->c.nservers; i++)
		if (r->agents[i].pid > 0 && waitpid(r->agents[i].pid, NULL, WNOHANG) == 0) {
			kill(r->agents[i].pid, SIGKILL);
			waitpid(r->agents[i].pid, NULL, 0);
		}
	while (nconns)
		conn_drop(r, &conns[0]);
	free(conns);
	conns = NULL;
	if (r->listen_fd >= 0) {
		close(r->listen_fd);
		unlink(r->sock_path);
	}
	if (r->timer_fd >= 0)
		close(r->timer_fd);
	if (r->epfd >= 0)
		close(r->epfd);
	fabric_close(r->fab);
	if (fabric && !p->keep_fabric)
		fabric_down(p->prefix, NULL);
	if (rc < 0 && r->dir[0]) {
		/* Setup failed: nothing was measured, leave no half-made results. */
		static const char *const files[] = {"links.csv.tmp", "ocs.csv.tmp", "flows.csv.tmp", NULL};
		for (int i = 0; files[i]; i++) {
			char path[600];
			snprintf(path, sizeof path, "%s/%s", r->dir, files[i]);
			unlink(path);
		}
		rmdir(r->dir);
	}
	sched_destroy(&r->s);
	for (int i = 0; r->agents && i < r->c.nservers; i++)
		free(r->agents[i].pending);
	for (int j = 0; r->requested && j < w->njobs; j++)
		free(r->requested[j]);
	free(r->requested);
	free(r->final_sent);
	free(r->agents);
	xfer_flush(r);
	if (r->flows_csv)
		fclose(r->flows_csv);
	cluster_free(&r->c);
	pthread_mutex_destroy(&r->send_mu);
	pthread_mutex_destroy(&r->demand_mu);
	free(r);
	return rc;
}
