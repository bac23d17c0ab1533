/* emu cleanup — remove everything a run made under a prefix (namespaces,
 * the processes in them — agents — and the state), also after the
 * controller was killed. */
#include "emu/cli/cmds.h"
#include "netctl/fabric.h"
#include "netctl/hostfab.h"
#include "netctl/launch.h"
#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cmd_cleanup(int argc, char **argv)
{
	static const struct option opts[] = {{"prefix", required_argument, 0, 'p'}, {"hosts", required_argument, 0, 'H'},
					     {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
	const char *prefix = cli_default_prefix(), *hosts_file = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "p:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p': prefix = optarg; break;
		case 'H': hosts_file = optarg; break;
		case 'h':
			printf("usage: emu cleanup [--prefix P] [--hosts HOSTS]\nRemove the namespaces PREFIX-*, the agents and other "
			       "processes in them, and /run/emu/PREFIX,\non every host of HOSTS too (default: those the "
			       "fabric went up on).\n");
			return 0;
		default: return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "emu cleanup: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (plan_prefix_valid(prefix)) {
		fprintf(stderr, "emu cleanup: bad prefix '%s'\n", prefix);
		return 2;
	}
	struct hosts hs;
	char herr[HOSTS_ERR_LEN], state[300], netctl[PATH_MAX];
	if (hosts_file && hosts_load(&hs, hosts_file, herr)) {
		fprintf(stderr, "emu cleanup: %s\n", herr);
		return 2;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "emu cleanup: needs root\n");
		return 2;
	}
	snprintf(state, sizeof state, "%s/%s/hosts", FABRIC_STATE_DIR, prefix);
	if (!hosts_file && !access(state, R_OK) && !hosts_load(&hs, state, herr))
		hosts_file = state;
	if (hosts_file && launch_netctl_path(netctl, sizeof netctl)) {
		fprintf(stderr, "emu cleanup: cannot find netctl beside emu (needed for --hosts)\n");
		return 1;
	}
	/* A killed controller leaves NAME.tmp files in its results directory:
	 * remove them (and the directory if nothing else is in it). */
	char marker[300], dir[600] = "";
	snprintf(marker, sizeof marker, "%s/%s/results", FABRIC_STATE_DIR, prefix);
	FILE *mf = fopen(marker, "r");
	if (mf) {
		if (!fgets(dir, sizeof dir, mf))
			dir[0] = 0;
		fclose(mf);
		dir[strcspn(dir, "\n")] = 0;
	}
	int killed = 0, n = hosts_file ? fabric_down_hosts(&hs, prefix, netctl, &killed) : fabric_down(prefix, &killed);
	if (n < 0) {
		fprintf(stderr, "emu cleanup: a host's part could not be removed (see above)\n");
		return 1;
	}
	if (dir[0]) {
		DIR *d = opendir(dir);
		struct dirent *e;
		while (d && (e = readdir(d))) {
			size_t len = strlen(e->d_name);
			if (len > 4 && !strcmp(e->d_name + len - 4, ".tmp")) {
				char path[1200];
				snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
				unlink(path);
			}
		}
		if (d)
			closedir(d);
		if (!rmdir(dir))
			printf("%s: removed the unfinished results directory %s\n", prefix, dir);
	}
	printf("%s: removed %d namespace%s, killed %d process%s\n", prefix, n, n == 1 ? "" : "s", killed,
	       killed == 1 ? "" : "es");
	return 0;
}
