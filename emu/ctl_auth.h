/* ctl_auth.h — the per-run secret a TCP control connection presents first.
 *
 * Agents on another host reach the controller over TCP; the controller
 * takes a connection only once its first line is
 *
 *   emu-auth <64 lowercase hex digits>\n
 *
 * carrying the run's secret: 32 bytes from getrandom(2), made per run,
 * kept in the controller's memory and handed to each agent on its standard
 * input (never on a command line, never in a file).  Anything else first,
 * or nothing within the controller's wait, and the connection is closed.
 * The same parser serves both sides; compares are constant-time. */
#ifndef EMU_CTL_AUTH_H
#define EMU_CTL_AUTH_H
#include <stdbool.h>
#include <stddef.h>

#define CTL_SECRET_BYTES 32
#define CTL_SECRET_HEX   (2 * CTL_SECRET_BYTES)
#define CTL_AUTH_TAG     "emu-auth "
/* The handshake line with its '\n'. */
#define CTL_AUTH_LINE_LEN (sizeof CTL_AUTH_TAG - 1 + CTL_SECRET_HEX + 1)

/* A fresh secret as hex.  0, or -1 with errno. */
int ctl_secret_new(char hex[CTL_SECRET_HEX + 1]);
/* Exactly 64 lowercase hex digits (s need not end there: len counts). */
bool ctl_secret_valid(const char *s, size_t len);
/* The handshake line for `secret`, '\n' included, NUL-terminated. */
void ctl_auth_line(const char *secret, char line[CTL_AUTH_LINE_LEN + 1]);
/* A connection's first line (without its '\n'): 0 if it is the handshake
 * with exactly `secret`; -1 with why ("no secret", "a malformed secret",
 * "a wrong secret") otherwise. */
int ctl_auth_check(const char *line, size_t len, const char *secret, const char **why);
/* The secret as a line on fd (an agent's standard input): exactly 64 hex
 * digits and '\n', nothing more read.  0, or -1. */
int ctl_secret_read(int fd, char hex[CTL_SECRET_HEX + 1]);
#endif
