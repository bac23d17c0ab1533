/* Replays every input in fuzz/regress/<harness>/ through the fuzz target it
 * was found with (fuzz/targets.h, the same entry points `make fuzz` runs):
 * each once crashed, hung or broke a property, and was fixed.  Here they run
 * under the check build's ASan+UBSan; no root needed. */
#include "fuzz/targets.h"
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

/* fuzz/regress of this checkout: beside the test binary's parent
 * (build-san/test-unit -> ./fuzz/regress), else the working directory's. */
static void regress_dir(const char *harness, char *buf, size_t len)
{
	char self[512];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	self[n > 0 ? n : 0] = 0;
	for (int up = 0; up < 2; up++) {
		char *slash = strrchr(self, '/');
		if (slash)
			*slash = 0;
	}
	struct stat st;
	snprintf(buf, len, "%s/fuzz/regress/%s", self, harness);
	if (stat(buf, &st) == 0 && S_ISDIR(st.st_mode))
		return;
	snprintf(buf, len, "fuzz/regress/%s", harness);
}

static uint8_t *slurp(const char *path, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert(fd >= 0, "%s: %s", path, strerror(errno));
	struct stat st;
	cr_assert_eq(fstat(fd, &st), 0);
	uint8_t *buf = malloc((size_t)st.st_size + 1);
	cr_assert_not_null(buf);
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
		cr_assert(r > 0, "%s: short read", path);
		got += (size_t)r;
	}
	close(fd);
	*size = got;
	return buf;
}

/* Every regular file of the harness's directory; returns how many. */
static int replay(const char *harness, int (*target)(const uint8_t *, size_t))
{
	char dir[700];
	regress_dir(harness, dir, sizeof dir);
	DIR *d = opendir(dir);
	cr_assert_not_null(d, "%s: %s", dir, strerror(errno));
	struct dirent *e;
	int n = 0;
	while ((e = readdir(d))) {
		char path[1000];
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (e->d_name[0] == '.' || stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		size_t size;
		uint8_t *data = slurp(path, &size);
		int bad = target(data, size);
		free(data);
		cr_expect_eq(bad, 0, "%s: property %d violated", path, bad);
		n++;
	}
	closedir(d);
	cr_log_info("%s: %d regression input(s) replayed", harness, n);
	return n;
}

Test(fuzz_regress, topo) { replay("topo", fuzz_topo); }
Test(fuzz_regress, workload) { replay("workload", fuzz_workload); }
Test(fuzz_regress, proto) { replay("proto", fuzz_proto); }
Test(fuzz_regress, demand) { replay("demand", fuzz_demand); }
Test(fuzz_regress, circuits) { cr_assert_geq(replay("circuits", fuzz_circuits), 1); }

/* The circuits bug, deterministically: circuits_clear used to memset from
 * the start of the struct, so the last 4 entries of port 7 (racks 246..249)
 * kept whatever was there. */
Test(fuzz_regress, circuits_clear_clears_every_entry)
{
	struct topo t;
	memset(&t, 0, sizeof t);
	t.racks = TOPO_MAX_RACKS;
	t.ocs = true;
	t.ocs_ports = TOPO_MAX_PORTS;
	struct circuit_cfg c;
	memset(&c, 0x11, sizeof c);
	circuits_clear(&c, &t);
	for (int p = 0; p < TOPO_MAX_PORTS; p++)
		for (int r = 0; r < TOPO_MAX_RACKS; r++)
			cr_assert_eq(c.out[p][r], -1, "out[%d][%d] = %d after clear", p, r, c.out[p][r]);
	cr_assert_eq(c.racks, TOPO_MAX_RACKS);
	cr_assert_eq(c.ports, TOPO_MAX_PORTS);
}

/* Found by the isolation test: the same pair of racks on two optical ports
 * validated, then failed halfway through applying ("File exists": the ToR's
 * circuit table has one route per destination rack). */
Test(fuzz_regress, circuits_same_pair_on_two_ports_is_refused)
{
	struct topo t;
	memset(&t, 0, sizeof t);
	t.racks = 3;
	t.ocs = true;
	t.ocs_ports = 2;
	struct circuit_cfg c;
	char err[256];
	cr_assert_eq(circuits_parse("2>0,2>0@1", &t, &c, err), -1);
	cr_assert(strstr(err, "one optical port at a time"), "%s", err);
	cr_assert_eq(circuits_parse("0>1,1>2,2>0,0>2@1,2>1@1", &t, &c, err), 0, "%s", err);
	t.ocs_mode = OCS_BIDIRECTIONAL;
	cr_assert_eq(circuits_parse("0-1,0-1@1", &t, &c, err), -1);
	cr_assert_eq(circuits_parse("0-1,0-2@1", &t, &c, err), 0, "%s", err);   /* other pairs: fine */
}
