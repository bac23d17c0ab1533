/* agent_batch.c — see agent_batch.h. */
#include "emu/agent_batch.h"
#include "emu/ctl_auth.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAGIC "emu-agents 1"

static void put(struct agent_batch *b, const char *s, size_t n)
{
	if (b->bad)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 1024;
		while (cap < b->len + n + 1)
			cap *= 2;
		char *t = malloc(cap);
		if (!t) {
			b->bad = true;
			return;
		}
		if (b->text) {
			memcpy(t, b->text, b->len);
			explicit_bzero(b->text, b->cap);
			free(b->text);
		}
		b->text = t;
		b->cap = cap;
	}
	memcpy(b->text + b->len, s, n);
	b->len += n;
	b->text[b->len] = 0;
}

static void puts_(struct agent_batch *b, const char *s) { put(b, s, strlen(s)); }

void agent_batch_begin(struct agent_batch *b, const char *secret)
{
	*b = (struct agent_batch){0};
	puts_(b, MAGIC "\nsecret ");
	puts_(b, secret);
	puts_(b, "\n");
}

int agent_batch_add(struct agent_batch *b, char *const argv[])
{
	int n = 0;
	char head[32];
	for (; argv[n]; n++)
		if (!*argv[n] || strchr(argv[n], '\n'))
			break;
	if (argv[n] || !n || n > AGENT_BATCH_MAX_ARGS || b->agents >= AGENT_BATCH_MAX) {
		b->bad = true;
		return -1;
	}
	snprintf(head, sizeof head, "agent %d\n", n);
	puts_(b, head);
	for (int i = 0; i < n; i++) {
		puts_(b, argv[i]);
		puts_(b, "\n");
	}
	b->agents++;
	return b->bad ? -1 : 0;
}

const char *agent_batch_end(struct agent_batch *b)
{
	puts_(b, "start\n");
	return b->bad ? NULL : b->text;
}

void agent_batch_free(struct agent_batch *b)
{
	if (b->text)
		explicit_bzero(b->text, b->cap);
	free(b->text);
	*b = (struct agent_batch){0};
}

static int bad(struct agent_list *l, char err[AGENT_BATCH_ERR_LEN], const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad(struct agent_list *l, char err[AGENT_BATCH_ERR_LEN], const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, AGENT_BATCH_ERR_LEN, "line %d: ", l->line);
	va_start(ap, fmt);
	vsnprintf(err + n, AGENT_BATCH_ERR_LEN - n, fmt, ap);
	va_end(ap);
	return -1;
}

int agent_list_feed(struct agent_list *l, const char *line, size_t len, char err[AGENT_BATCH_ERR_LEN])
{
	l->line++;
	if (memchr(line, 0, len))
		return bad(l, err, "a NUL byte");
	if (l->stage == 0) {
		if (len != strlen(MAGIC) || memcmp(line, MAGIC, len))
			return bad(l, err, "expected '" MAGIC "' (emu run sends this list)");
		l->stage = 1;
		return 0;
	}
	if (l->stage == 1) {
		if (len < 7 || memcmp(line, "secret ", 7) || len - 7 != CTL_SECRET_HEX || !ctl_secret_valid(line + 7, len - 7))
			return bad(l, err, "expected 'secret' and 64 lowercase hex digits");
		memcpy(l->secret, line + 7, CTL_SECRET_HEX);
		l->secret[CTL_SECRET_HEX] = 0;
		l->stage = 2;
		return 0;
	}
	if (l->stage != 2)
		return bad(l, err, "input after 'start'");
	if (l->want > 0) {
		if (!len)
			return bad(l, err, "an empty argument");
		char **argv = l->argv[l->n - 1];
		int k = 1;
		while (argv[k])
			k++;
		if (!(argv[k] = strndup(line, len)))
			return bad(l, err, "out of memory");
		l->want--;
		return 0;
	}
	if (len == 5 && !memcmp(line, "start", 5)) {
		if (!l->n)
			return bad(l, err, "'start' with no agent to start");
		l->stage = 3;
		return 1;
	}
	if (len > 6 && !memcmp(line, "agent ", 6)) {
		char num[16], *end;
		if (len - 6 >= sizeof num)
			return bad(l, err, "bad argument count");
		memcpy(num, line + 6, len - 6);
		num[len - 6] = 0;
		long n = strtol(num, &end, 10);
		if (*end || num[0] < '1' || num[0] > '9' || n > AGENT_BATCH_MAX_ARGS)
			return bad(l, err, "bad argument count '%s' (1..%d)", num, AGENT_BATCH_MAX_ARGS);
		if (l->n >= AGENT_BATCH_MAX)
			return bad(l, err, "more than %d agents", AGENT_BATCH_MAX);
		if (!(l->argv[l->n] = calloc((size_t)n + 2, sizeof(char *))))
			return bad(l, err, "out of memory");
		l->n++;
		l->want = (int)n;
		return 0;
	}
	return bad(l, err, "expected 'agent N' or 'start'");
}

int agent_list_parse(struct agent_list *l, const char *text, char err[AGENT_BATCH_ERR_LEN])
{
	const char *p = text, *nl;
	int rc = 0;
	while (rc == 0 && (nl = strchr(p, '\n'))) {
		rc = agent_list_feed(l, p, (size_t)(nl - p), err);
		p = nl + 1;
	}
	if (rc < 0)
		return -1;
	if (rc == 0) {
		l->line++;
		return bad(l, err, "the list ends before 'start'");
	}
	if (*p) {
		l->line++;
		return bad(l, err, "input after 'start'");
	}
	return 0;
}

int agent_list_read(struct agent_list *l, int fd, char err[AGENT_BATCH_ERR_LEN])
{
	char buf[4096];
	size_t have = 0;
	int rc = 0;
	while (rc == 0) {
		ssize_t n = read(fd, buf + have, sizeof buf - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = bad(l, err, "cannot read: %s", strerror(errno));
			break;
		}
		if (n == 0) {
			l->line++;
			rc = bad(l, err, "the list ends before 'start'");
			break;
		}
		have += (size_t)n;
		char *p = buf, *nl;
		while (rc == 0 && (nl = memchr(p, '\n', buf + have - p))) {
			rc = agent_list_feed(l, p, (size_t)(nl - p), err);
			p = nl + 1;
		}
		if (rc < 0)
			break;
		if (rc == 1 && p != buf + have) {
			l->line++;
			rc = bad(l, err, "input after 'start'");
			break;
		}
		have -= (size_t)(p - buf);
		memmove(buf, p, have);
		if (have == sizeof buf) {
			l->line++;
			rc = bad(l, err, "a line longer than %zu bytes", sizeof buf);
		}
	}
	explicit_bzero(buf, sizeof buf);
	return rc < 0 ? -1 : 0;
}

void agent_list_free(struct agent_list *l)
{
	for (int i = 0; i < l->n; i++) {
		for (int k = 1; l->argv[i] && l->argv[i][k]; k++)
			free(l->argv[i][k]);
		free(l->argv[i]);
	}
	explicit_bzero(l->secret, sizeof l->secret);
	l->n = 0;
}
