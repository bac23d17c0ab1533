/* Unit tests of the TCP control handshake (emu/ctl_auth.h): the secret's
 * form, the line both sides use, and strict refusal of anything else. */
#include "emu/ctl_auth.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *S = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

Test(ctl_auth, fresh_secrets_are_64_hex_digits_and_differ)
{
	char a[CTL_SECRET_HEX + 1], b[CTL_SECRET_HEX + 1];
	cr_assert_eq(ctl_secret_new(a), 0);
	cr_assert_eq(ctl_secret_new(b), 0);
	cr_assert_eq(strlen(a), 64);
	cr_assert(ctl_secret_valid(a, strlen(a)), "%s", a);
	cr_assert_str_neq(a, b);
}

Test(ctl_auth, the_line_is_accepted_with_its_secret)
{
	char line[CTL_AUTH_LINE_LEN + 1];
	const char *why = NULL;
	ctl_auth_line(S, line);
	cr_assert_eq(strlen(line), CTL_AUTH_LINE_LEN);
	cr_assert_eq(strlen(line), 9 + 64 + 1);
	cr_assert_eq(strncmp(line, "emu-auth ", 9), 0);
	cr_assert_eq(line[CTL_AUTH_LINE_LEN - 1], '\n');
	cr_assert_eq(ctl_auth_check(line, CTL_AUTH_LINE_LEN - 1, S, &why), 0);
}

static void refused(const char *line, const char *want)
{
	const char *why = NULL;
	cr_assert_eq(ctl_auth_check(line, strlen(line), S, &why), -1, "accepted: '%s'", line);
	cr_assert_str_eq(why, want, "'%s'", line);
}

Test(ctl_auth, anything_else_is_refused_with_a_reason)
{
	refused("", "no secret");
	refused("{\"op\":\"hello\",\"server\":\"r0h0\"}", "no secret");
	refused("EMU-AUTH 00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", "no secret");
	refused("emu-auth", "no secret");
	refused("emu-auth ", "a malformed secret");
	/* one digit short, one too many, upper case, a space, a trailing CR */
	refused("emu-auth 00112233445566778899aabbccddeeff00112233445566778899aabbccddeef", "a malformed secret");
	refused("emu-auth 00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff0", "a malformed secret");
	refused("emu-auth 00112233445566778899AABBCCDDEEFF00112233445566778899aabbccddeeff", "a malformed secret");
	refused("emu-auth  00112233445566778899aabbccddeeff00112233445566778899aabbccddeef", "a malformed secret");
	refused("emu-auth 00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\r", "a malformed secret");
	/* well formed, but not the run's: first and last digit */
	refused("emu-auth 10112233445566778899aabbccddeeff00112233445566778899aabbccddeeff", "a wrong secret");
	refused("emu-auth 00112233445566778899aabbccddeeff00112233445566778899aabbccddeefe", "a wrong secret");
}

Test(ctl_auth, a_line_with_a_nul_is_refused)
{
	char line[CTL_AUTH_LINE_LEN + 1];
	const char *why = NULL;
	ctl_auth_line(S, line);
	line[20] = 0;
	cr_assert_eq(ctl_auth_check(line, CTL_AUTH_LINE_LEN - 1, S, &why), -1);
	cr_assert_str_eq(why, "a malformed secret");
}

static int read_from(const char *text, size_t len, char hex[CTL_SECRET_HEX + 1])
{
	int p[2];
	cr_assert_eq(pipe(p), 0);
	cr_assert_eq(write(p[1], text, len), (ssize_t)len);
	close(p[1]);
	int rc = ctl_secret_read(p[0], hex);
	close(p[0]);
	return rc;
}

Test(ctl_auth, the_secret_on_standard_input_is_read_strictly)
{
	char hex[CTL_SECRET_HEX + 1], in[80];
	snprintf(in, sizeof in, "%s\n", S);
	cr_assert_eq(read_from(in, strlen(in), hex), 0);
	cr_assert_str_eq(hex, S);
	cr_assert_eq(read_from(S, strlen(S), hex), -1, "no newline (end of input)");
	snprintf(in, sizeof in, "%sX", S);
	cr_assert_eq(read_from(in, strlen(in), hex), -1, "not a newline after 64 digits");
	snprintf(in, sizeof in, "%.63s\n\n", S);
	cr_assert_eq(read_from(in, strlen(in), hex), -1, "63 digits");
	cr_assert_eq(read_from("", 0, hex), -1, "nothing");
}
