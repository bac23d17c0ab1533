/* ctl_auth.c — the per-run secret and the TCP control handshake. */
#include "emu/ctl_auth.h"
#include <errno.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

int ctl_secret_new(char hex[CTL_SECRET_HEX + 1])
{
	static const char digit[] = "0123456789abcdef";
	unsigned char raw[CTL_SECRET_BYTES];
	for (size_t got = 0; got < sizeof raw;) {
		ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	for (int i = 0; i < CTL_SECRET_BYTES; i++) {
		hex[2 * i] = digit[raw[i] >> 4];
		hex[2 * i + 1] = digit[raw[i] & 15];
	}
	hex[CTL_SECRET_HEX] = 0;
	explicit_bzero(raw, sizeof raw);
	return 0;
}

bool ctl_secret_valid(const char *s, size_t len)
{
	if (len != CTL_SECRET_HEX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

void ctl_auth_line(const char *secret, char line[CTL_AUTH_LINE_LEN + 1])
{
	memcpy(line, CTL_AUTH_TAG, sizeof CTL_AUTH_TAG - 1);
	memcpy(line + sizeof CTL_AUTH_TAG - 1, secret, CTL_SECRET_HEX);
	line[CTL_AUTH_LINE_LEN - 1] = '\n';
	line[CTL_AUTH_LINE_LEN] = 0;
}

/* Time independent of where the two differ. */
static bool equal_ct(const char *a, const char *b, size_t n)
{
	volatile unsigned char d = 0;
	for (size_t i = 0; i < n; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

int ctl_auth_check(const char *line, size_t len, const char *secret, const char **why)
{
	size_t tag = sizeof CTL_AUTH_TAG - 1;
	if (len < tag || memcmp(line, CTL_AUTH_TAG, tag)) {
		*why = "no secret";
		return -1;
	}
	if (!ctl_secret_valid(line + tag, len - tag)) {
		*why = "a malformed secret";
		return -1;
	}
	if (!equal_ct(line + tag, secret, CTL_SECRET_HEX)) {
		*why = "a wrong secret";
		return -1;
	}
	return 0;
}

int ctl_secret_read(int fd, char hex[CTL_SECRET_HEX + 1])
{
	char buf[CTL_SECRET_HEX + 1];
	for (size_t got = 0; got < sizeof buf;) {
		ssize_t n = read(fd, buf + got, sizeof buf - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	int rc = buf[CTL_SECRET_HEX] == '\n' && ctl_secret_valid(buf, CTL_SECRET_HEX) ? 0 : -1;
	if (!rc) {
		memcpy(hex, buf, CTL_SECRET_HEX);
		hex[CTL_SECRET_HEX] = 0;
	}
	explicit_bzero(buf, sizeof buf);
	return rc;
}
