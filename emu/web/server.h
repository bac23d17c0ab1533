/* server.h — the read-only web page of a run (libmicrohttpd).
 *
 *   GET /  /app.js  /style.css   the page (static files from the web root)
 *   GET /snapshot.json[?t=S]      the latest snapshot (live) or the one at
 *                                 run time S (replay)
 *   GET /events                   live: Server-Sent Events, one snapshot per
 *                                 publication, a slow client skipping to
 *                                 the newest
 * Anything else is 404, any method but GET 405, a request larger than
 * WEB_REQUEST_MAX 431/413.  A thread per connection, at most
 * WEB_CONNECTIONS of them; they only read snapshots (publish.h). */
#ifndef EMU_WEB_SERVER_H
#define EMU_WEB_SERVER_H
#include "emu/web/publish.h"
#include <stddef.h>

#define WEB_REQUEST_MAX 8192      /* bytes of a request (line and headers) */
#define WEB_CONNECTIONS 256      /* a vanished client holds its slot until a write fails: ~2 s */
#define WEB_IDLE_S 10             /* a client that takes nothing for this long is dropped */

struct web_server_cfg {
	const char *addr;         /* IPv4, default 127.0.0.1 */
	int port;                 /* 0: any free port (web_server_port tells) */
	const char *root;         /* the page's files; NULL: found beside the binary */
	struct web_pub *pub;      /* live: snapshots from here */
	/* replay: the snapshot at run time t (malloc'd JSON), or NULL */
	char *(*replay)(void *arg, double t);
	void *replay_arg;
};
struct web_server;

/* "[ADDR:]PORT" to addr (127.0.0.1 unless given) and port: 0, or -1 with err. */
int web_parse_listen(const char *spec, char addr[64], int *port, char err[256]);
/* Where the page's files are: PREFIX/share/emu/web beside an installed
 * binary, web/ from the build tree.  0, or -1. */
int web_find_root(char *out, size_t len);
struct web_server *web_server_start(const struct web_server_cfg *cfg, char err[256]);
int web_server_port(const struct web_server *s);
void web_server_stop(struct web_server *s);
#endif
