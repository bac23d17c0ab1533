/*
 * match.c — maximum-weight matching, primal-dual blossom algorithm.
 *
 * Structure (cf. Galil 1986; Van Rantwijk's mwmatching.py): alternating
 * trees grow from all free vertices (S = even, T = odd labels) along tight
 * edges; when none is left the duals are adjusted by the largest safe
 * amount.  Odd cycles are shrunk into blossoms, which may nest.  When two
 * trees meet we augment and, unlike the textbook one-augmentation-per-
 * stage scheme, only those two trees are unlabelled: the others keep
 * growing, so S-vertices are not rescanned after every augmentation.
 * Between two augmentations every vertex is scanned at most once and
 * O(n) dual adjustments of O(n) each happen, hence O(n^3) overall.
 * This version is tuned for dense graphs:
 *
 *   - node ids are 1-based: vertices 1..n, blossoms n+1..nmax; 0 = none;
 *   - ep[a][b] is the endpoint inside node a of the cheapest (min-slack)
 *     edge between nodes a and b (0 if none).  Because all vertices of a
 *     top-level blossom move their duals together, that edge stays the
 *     cheapest as long as both nodes exist, so it is computed once when a
 *     blossom forms (merging its children's rows) and never rescanned;
 *   - slack[x] is the S-vertex giving the cheapest edge into the
 *     top-level node x and sv[x] its slack, which makes each dual
 *     adjustment O(n).  Entries naming a vertex that stopped being S (its
 *     tree was unlabelled) are detected and recomputed on use.
 *
 * Bounds: vertex duals stay in [0, 2W] (W the largest scaled weight; a
 * matched vertex's dual is at most twice its tight edge's weight) and so
 * do blossom duals, so slacks never exceed 4W: see the guard in match.h.
 *
 * Duals are stored doubled (lab[v] = 2*y_v, lab[b] = 2*z_b) so that with
 * integer weights every quantity stays integral: S-S slacks are even.
 */
#include "emu/match.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { LBL_NONE = -1, LBL_S = 0, LBL_T = 1 };

struct mw {
	int n;          /* vertices 1..n */
	int nmax;       /* largest blossom id that may be allocated */
	int nx;         /* largest node id in use */
	size_t ws;      /* row stride of w: n + 1 */
	size_t es;      /* row stride of ep: nmax + 1 */
	int64_t *w;     /* scaled weights, 1-based, 0 = no edge */
	int *ep;        /* see header comment */
	int64_t *lab;   /* doubled duals */
	int *mate;      /* mate[x]: vertex at the far end of x's matched edge */
	int *slack;     /* slack[x]: S-vertex of the cheapest edge into x */
	int64_t *sv;    /* sv[x]: the slack of that edge (valid if slack[x]) */
	int *st;        /* st[x]: top-level node containing x (0: freed) */
	int *par;       /* par[x]: blossom directly containing x (0: top) */
	int *pa;        /* pa[x]: S-vertex whose edge labelled T-node x */
	int *lbl;       /* LBL_* of top-level nodes */
	int *tid;       /* tree (root's node id at labelling) of labelled nodes */
	int *tmp;       /* scratch list of nodes */
	char *inq;      /* vertex is in the queue */
	int nfree;      /* free vertices left (all are tree roots) */
	int *vis;       /* lca search stamps */
	int stamp;
	int *ch;        /* children of blossom b: ch[(b-n-1)*n ...], base first */
	int *nch;       /* number of children, indexed by b-n-1 */
	int *q;         /* ring buffer of S-vertices to scan, n + 1 slots */
	int qh, qt;
};

#define W(m, a, b)  ((m)->w[(size_t)(a) * (m)->ws + (size_t)(b)])
#define EP(m, a, b) ((m)->ep[(size_t)(a) * (m)->es + (size_t)(b)])

static inline int *children(struct mw *m, int b)
{
	return m->ch + (size_t)(b - m->n - 1) * (size_t)m->n;
}

static inline int nchildren(struct mw *m, int b)
{
	return m->nch[b - m->n - 1];
}

/* Slack of the edge between vertices u and v (doubled). */
static inline int64_t slack_vv(const struct mw *m, int u, int v)
{
	return m->lab[u] + m->lab[v] - 2 * W(m, u, v);
}

/* Slack of the cheapest edge between nodes a and b (must exist). */
static inline int64_t slack_nn(const struct mw *m, int a, int b)
{
	return slack_vv(m, EP(m, a, b), EP(m, b, a));
}

static void update_slack(struct mw *m, int u, int x)
{
	int64_t s = slack_nn(m, u, x);
	if (!m->slack[x] || s < m->sv[x]) {
		m->slack[x] = u;
		m->sv[x] = s;
	}
}

/* Recompute slack[x] from scratch (x just became top-level or relabelled). */
static void set_slack(struct mw *m, int x)
{
	m->slack[x] = 0;
	for (int u = 1; u <= m->n; u++)
		if (EP(m, u, x) && m->st[u] != x && m->lbl[m->st[u]] == LBL_S)
			update_slack(m, u, x);
}

/*
 * Trees are dissolved after each augmentation (see found_edge()), so
 * slack[x] may name a vertex that is no longer S: check before use and
 * recompute lazily.  Returns whether x has a (valid) slack edge.
 */
static int slack_valid(struct mw *m, int x)
{
	int s = m->slack[x];
	if (s && m->lbl[m->st[s]] == LBL_S && m->st[s] != x)
		return 1;
	set_slack(m, x);
	return m->slack[x] != 0;
}

static void q_push(struct mw *m, int x)
{
	if (x <= m->n) {
		/* A vertex relabelled S while still queued is scanned once. */
		if (!m->inq[x]) {
			m->inq[x] = 1;
			m->q[m->qt] = x;
			m->qt = m->qt == m->n ? 0 : m->qt + 1;
		}
		return;
	}
	int *c = children(m, x);
	for (int i = 0; i < nchildren(m, x); i++)
		q_push(m, c[i]);
}

static void set_st(struct mw *m, int x, int b)
{
	m->st[x] = b;
	if (x > m->n) {
		int *c = children(m, x);
		for (int i = 0; i < nchildren(m, x); i++)
			set_st(m, c[i], b);
	}
}

/* The child of blossom b that contains vertex v. */
static int child_of(const struct mw *m, int b, int v)
{
	while (m->par[v] != b)
		v = m->par[v];
	return v;
}

static void reverse(int *a, int i, int j)
{
	for (j--; i < j; i++, j--) {
		int t = a[i];
		a[i] = a[j];
		a[j] = t;
	}
}

/*
 * Position of child xr in b's cycle, after orienting the cycle so that the
 * path base..xr (going forward) has even length, i.e. starts and ends
 * with a matched edge pair.
 */
static int even_pos(struct mw *m, int b, int xr)
{
	int *c = children(m, b), k = nchildren(m, b), p = 0;
	while (c[p] != xr)
		p++;
	if (p % 2) {
		reverse(c, 1, k);
		return k - p;
	}
	return p;
}

/*
 * Match node x (containing vertex eu) to vertex ev and repair x's
 * internal matching so that eu's sub-blossom becomes the base.  Passing
 * the edge explicitly (rather than re-deriving it from ep[][] at each
 * level) keeps both sides of the edge consistent when slacks tie.
 */
static void set_match(struct mw *m, int x, int eu, int ev)
{
	m->mate[x] = ev;
	if (x <= m->n)
		return;
	int xr = child_of(m, x, eu);
	int pr = even_pos(m, x, xr);
	int *c = children(m, x), k = nchildren(m, x);
	for (int i = 0; i < pr; i++) {
		int a = c[i], b = c[i ^ 1];
		set_match(m, a, EP(m, a, b), EP(m, b, a));
	}
	set_match(m, xr, eu, ev);
	/* rotate left by pr so that xr is the new base */
	reverse(c, 0, pr);
	reverse(c, pr, k);
	reverse(c, 0, k);
}

/* Augment along the tree path from top-level u to its root, u-v matched. */
static void augment(struct mw *m, int u, int v)
{
	for (;;) {
		int xnv = m->st[m->mate[u]];
		set_match(m, u, EP(m, u, v), EP(m, v, u));
		if (!xnv)
			return;
		int t = m->st[m->pa[xnv]];
		set_match(m, xnv, EP(m, xnv, t), EP(m, t, xnv));
		u = t;
		v = xnv;
	}
}

/* Lowest common ancestor of S-nodes u and v, 0 if in different trees. */
static int lca(struct mw *m, int u, int v)
{
	int stamp = ++m->stamp;
	while (u || v) {
		if (u) {
			if (m->vis[u] == stamp)
				return u;
			m->vis[u] = stamp;
			u = m->st[m->mate[u]];
			if (u)
				u = m->st[m->pa[u]];
		}
		int t = u;
		u = v;
		v = t;
	}
	return 0;
}

static void add_blossom(struct mw *m, int u, int anc, int v)
{
	int b = m->n + 1;
	while (b <= m->nx && m->st[b])
		b++;
	if (b > m->nx)
		m->nx++;
	/* Blossoms form a laminar family with >= 3 children each, so at most
	 * (n-1)/2 exist at once and ids never exceed nmax.  */
	if (b > m->nmax)
		abort();

	int *c = children(m, b), k = 0;
	m->lab[b] = 0;
	m->lbl[b] = LBL_S;
	m->tid[b] = m->tid[anc];
	m->mate[b] = m->mate[anc];
	c[k++] = anc;
	for (int x = u, y; x != anc; x = m->st[m->pa[y]]) {
		c[k++] = x;
		c[k++] = y = m->st[m->mate[x]];
		q_push(m, y);
	}
	reverse(c, 1, k);
	for (int x = v, y; x != anc; x = m->st[m->pa[y]]) {
		c[k++] = x;
		c[k++] = y = m->st[m->mate[x]];
		q_push(m, y);
	}
	m->nch[b - m->n - 1] = k;
	m->st[b] = b;
	m->par[b] = 0;
	for (int i = 0; i < k; i++) {
		set_st(m, c[i], b);
		m->par[c[i]] = b;
	}

	/* Cheapest edge to every other node: best over the children. */
	int nx = m->nx;
	int *rb = &EP(m, b, 0);
	for (int x = 1; x <= nx; x++)
		rb[x] = EP(m, x, b) = 0;
	for (int i = 0; i < k; i++) {
		int xs = c[i];
		const int *rs = &EP(m, xs, 0);
		for (int x = 1; x <= nx; x++) {
			if (!rs[x])
				continue;
			if (!rb[x] || slack_vv(m, rs[x], EP(m, x, xs)) <
				      slack_vv(m, rb[x], EP(m, x, b))) {
				rb[x] = rs[x];
				EP(m, x, b) = EP(m, x, xs);
			}
		}
	}
	set_slack(m, b);
}

/* Dissolve T-blossom b whose dual reached 0, relabelling its children. */
static void expand_blossom(struct mw *m, int b)
{
	int xr = child_of(m, b, EP(m, b, m->pa[b]));
	int *c = children(m, b), k = nchildren(m, b);
	for (int i = 0; i < k; i++) {
		set_st(m, c[i], c[i]);
		m->par[c[i]] = 0;
		m->tid[c[i]] = m->tid[b];
	}
	int pr = even_pos(m, b, xr);
	for (int i = 0; i < pr; i += 2) {
		int xs = c[i], xns = c[i + 1];
		m->pa[xs] = EP(m, xns, xs);
		m->lbl[xs] = LBL_T;
		m->lbl[xns] = LBL_S;
		m->slack[xs] = 0;
		set_slack(m, xns);
		q_push(m, xns);
	}
	m->lbl[xr] = LBL_T;
	m->pa[xr] = m->pa[b];
	for (int i = pr + 1; i < k; i++) {
		m->lbl[c[i]] = LBL_NONE;
		set_slack(m, c[i]);
	}
	m->st[b] = 0;
}

/*
 * After augmenting between the trees t1 and t2, unlabel their nodes and
 * keep growing the other trees: their labels and duals stay valid, which
 * saves rescanning every S-vertex after each augmentation (the classic
 * one-augmentation-per-stage scheme does).  The released nodes need their
 * cheapest edge from the remaining S-vertices.
 */
static void dissolve(struct mw *m, int t1, int t2)
{
	int k = 0;
	for (int x = 1; x <= m->nx; x++)
		if (m->st[x] == x && m->lbl[x] != LBL_NONE &&
		    (m->tid[x] == t1 || m->tid[x] == t2)) {
			m->lbl[x] = LBL_NONE;
			m->tmp[k++] = x;
		}
	for (int i = 0; i < k; i++)
		set_slack(m, m->tmp[i]);
}

/* Tight edge eu-ev with eu in an S-node.  Returns 1 after augmenting. */
static int found_edge(struct mw *m, int eu, int ev)
{
	int u = m->st[eu], v = m->st[ev];
	if (m->lbl[v] == LBL_NONE) {
		m->pa[v] = eu;
		m->lbl[v] = LBL_T;
		m->tid[v] = m->tid[u];
		int nu = m->st[m->mate[v]];
		m->slack[v] = m->slack[nu] = 0;
		m->lbl[nu] = LBL_S;
		m->tid[nu] = m->tid[u];
		q_push(m, nu);
	} else if (m->lbl[v] == LBL_S) {
		int a = lca(m, u, v);
		if (!a) {
			int t1 = m->tid[u], t2 = m->tid[v];
			augment(m, u, v);
			augment(m, v, u);
			m->nfree -= 2;
			dissolve(m, t1, t2);
			return 1;
		}
		add_blossom(m, u, a, v);
	}
	return 0;
}

/*
 * Grow alternating trees from all free vertices, augmenting whenever two
 * trees meet, until no free vertex is left or their duals reach 0.
 */
static void run(struct mw *m)
{
	int n = m->n;
	m->qh = m->qt = 0;
	m->nfree = 0;
	for (int x = 1; x <= m->nx; x++) {
		m->lbl[x] = LBL_NONE;
		m->slack[x] = 0;
	}
	for (int x = 1; x <= m->nx; x++)
		if (m->st[x] == x && !m->mate[x]) {
			m->pa[x] = 0;
			m->lbl[x] = LBL_S;
			m->tid[x] = x;
			m->nfree++;
			q_push(m, x);
		}

	for (;;) {
		while (m->qh != m->qt) {
			int u = m->q[m->qh];
			m->qh = m->qh == n ? 0 : m->qh + 1;
			m->inq[u] = 0;
			int su = m->st[u];
			if (m->lbl[su] != LBL_S)
				continue;
			const int64_t *wu = &W(m, u, 0);
			const int64_t lu = m->lab[u];
			const int64_t *lab = m->lab;
			int *st = m->st, *slack = m->slack;
			int64_t *sv = m->sv;
			for (int v = 1; v <= n; v++) {
				int x = st[v];
				if (!wu[v] || x == su)
					continue;
				int64_t s = lu + lab[v] - 2 * wu[v];
				if (s == 0) {
					found_edge(m, u, v);
					/* u may have joined a new blossom or
					 * left the forest with its tree */
					su = st[u];
					if (m->lbl[su] != LBL_S)
						break;
				} else if (!slack[x] || s < sv[x]) {
					/* The minimum over v in x of the slack of
					 * u-v is that of u's cheapest edge into x,
					 * so tracking it per v is exact.  */
					slack[x] = u;
					sv[x] = s;
				}
			}
		}
		if (!m->nfree)
			return;

		/* Largest dual change keeping all slacks and z_b >= 0. */
		int64_t d = INT64_MAX;
		for (int b = n + 1; b <= m->nx; b++)
			if (m->st[b] == b && m->lbl[b] == LBL_T && m->lab[b] / 2 < d)
				d = m->lab[b] / 2;
		for (int x = 1; x <= m->nx; x++) {
			if (m->st[x] != x || !m->slack[x] || m->lbl[x] == LBL_T ||
			    !slack_valid(m, x))
				continue;
			int64_t s = m->sv[x];
			if (m->lbl[x] == LBL_NONE && s < d)
				d = s;
			else if (m->lbl[x] == LBL_S && s / 2 < d)
				d = s / 2;
		}
		/* Free vertices have the smallest duals; once theirs would
		 * reach 0 the matching is optimal (max weight, not card.). */
		for (int u = 1; u <= n; u++)
			if (m->lbl[m->st[u]] == LBL_S && m->lab[u] <= d)
				return;
		for (int u = 1; u <= n; u++) {
			int l = m->lbl[m->st[u]];
			if (l == LBL_S) {
				m->lab[u] -= d;
			} else if (l == LBL_T) {
				m->lab[u] += d;
			}
		}
		for (int b = n + 1; b <= m->nx; b++) {
			if (m->st[b] != b)
				continue;
			if (m->lbl[b] == LBL_S)
				m->lab[b] += 2 * d;
			else if (m->lbl[b] == LBL_T)
				m->lab[b] -= 2 * d;
		}
		/* slack[x] is an S-vertex (dual -d): shift the cached slacks.
		 * T-nodes' entries are unused until they are recomputed. */
		for (int x = 1; x <= m->nx; x++) {
			if (m->st[x] != x || !m->slack[x])
				continue;
			if (m->lbl[x] == LBL_NONE)
				m->sv[x] -= d;
			else if (m->lbl[x] == LBL_S)
				m->sv[x] -= 2 * d;
		}

		for (int x = 1; x <= m->nx; x++) {
			if (m->st[x] != x || !m->slack[x] || m->lbl[x] == LBL_T)
				continue;
			int s = m->slack[x];
			if (m->lbl[m->st[s]] == LBL_S && m->st[s] != x &&
			    m->sv[x] == 0)
				found_edge(m, s, EP(m, x, s));
		}
		if (!m->nfree)
			return;
		for (int b = n + 1; b <= m->nx; b++)
			if (m->st[b] == b && m->lbl[b] == LBL_T && m->lab[b] == 0)
				expand_blossom(m, b);
	}
}

static void mw_free(struct mw *m)
{
	free(m->w);
	free(m->ep);
	free(m->lab);
	free(m->mate);
	free(m->slack);
	free(m->sv);
	free(m->st);
	free(m->par);
	free(m->pa);
	free(m->lbl);
	free(m->tid);
	free(m->tmp);
	free(m->inq);
	free(m->vis);
	free(m->ch);
	free(m->nch);
	free(m->q);
}

static int mw_alloc(struct mw *m, int n)
{
	memset(m, 0, sizeof(*m));
	m->n = n;
	m->nmax = n + n / 2 + 1;
	m->ws = (size_t)n + 1;
	m->es = (size_t)m->nmax + 1;
	size_t nn = (size_t)m->nmax + 1, nb = (size_t)(m->nmax - n);
	m->w = calloc(m->ws * m->ws, sizeof(*m->w));
	m->ep = calloc(nn * nn, sizeof(*m->ep));
	m->lab = calloc(nn, sizeof(*m->lab));
	m->mate = calloc(nn, sizeof(int));
	m->slack = calloc(nn, sizeof(int));
	m->sv = calloc(nn, sizeof(int64_t));
	m->st = calloc(nn, sizeof(int));
	m->par = calloc(nn, sizeof(int));
	m->pa = calloc(nn, sizeof(int));
	m->lbl = calloc(nn, sizeof(int));
	m->tid = calloc(nn, sizeof(int));
	m->tmp = calloc(nn, sizeof(int));
	m->inq = calloc(nn, 1);
	m->vis = calloc(nn, sizeof(int));
	m->ch = calloc(nb * (size_t)(n ? n : 1), sizeof(int));
	m->nch = calloc(nb ? nb : 1, sizeof(int));
	m->q = calloc((size_t)n + 1, sizeof(int));
	if (!m->w || !m->ep || !m->lab || !m->mate || !m->slack || !m->st ||
	    !m->sv || !m->par || !m->tid || !m->tmp || !m->inq || !m->pa || !m->lbl || !m->vis || !m->ch || !m->nch ||
	    !m->q) {
		mw_free(m);
		return -ENOMEM;
	}
	return 0;
}

/* prev_mate and pref both mark preferred edges; either may be NULL. */
static int solve_dense(int n, const int64_t *w, const int *prev_mate,
		       const unsigned char *pref, int *mate, int64_t *total)
{
	if (n < 0 || (n > 0 && (!w || !mate)))
		return -EINVAL;
	if (total)
		*total = 0;
	int64_t wmax = 0;
	for (int i = 0; i < n; i++) {
		mate[i] = -1;
		for (int j = i + 1; j < n; j++) {
			int64_t x = w[(size_t)i * n + j];
			if (x < 0)
				return -EINVAL;
			if (x > wmax)
				wmax = x;
		}
	}
	if (wmax == 0)
		return 0;
	int tie = prev_mate || pref;
	int64_t k = tie ? match_tie_factor(n) : 1;
	if (wmax > (INT64_MAX / 4 - 1) / k || wmax > INT64_MAX / (n / 2 + 1))
		return -ERANGE;

	struct mw m;
	if (mw_alloc(&m, n))
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			int64_t x = w[(size_t)i * n + j];
			if (!x)
				continue;
			x *= k;
			if ((prev_mate && (prev_mate[i] == j || prev_mate[j] == i)) ||
			    (pref && pref[(size_t)i * n + j]))
				x++;
			W(&m, i + 1, j + 1) = W(&m, j + 1, i + 1) = x;
			EP(&m, i + 1, j + 1) = i + 1;
			EP(&m, j + 1, i + 1) = j + 1;
		}
	m.nx = n;
	for (int u = 1; u <= n; u++) {
		m.st[u] = u;
		m.lab[u] = wmax * k + tie;
	}
	run(&m);

	int64_t sum = 0;
	for (int u = 1; u <= n; u++) {
		int v = m.mate[u];
		if (!v)
			continue;
		mate[u - 1] = v - 1;
		if (u < v)
			sum += w[(size_t)(u - 1) * n + (v - 1)];
	}
	if (total)
		*total = sum;
	mw_free(&m);
	return 0;
}

int match_max_weight_dense(int n, const int64_t *w, const int *prev_mate,
			   int *mate, int64_t *total)
{
	return solve_dense(n, w, prev_mate, NULL, mate, total);
}

int match_max_weight_dense_pref(int n, const int64_t *w,
				const unsigned char *pref, int *mate,
				int64_t *total)
{
	return solve_dense(n, w, NULL, pref, mate, total);
}

int match_max_weight(int n, const struct match_edge *edges, size_t m,
		     const int *prev_mate, int *mate, int64_t *total)
{
	if (n < 0 || (m && !edges))
		return -EINVAL;
	int64_t *w = calloc((size_t)n * n + 1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	for (size_t i = 0; i < m; i++) {
		const struct match_edge *e = &edges[i];
		if (e->u < 0 || e->v < 0 || e->u >= n || e->v >= n ||
		    e->u == e->v || e->w < 0) {
			free(w);
			return -EINVAL;
		}
		int a = e->u < e->v ? e->u : e->v, b = e->u ^ e->v ^ a;
		int64_t *x = &w[(size_t)a * n + b];
		if (e->w > *x)
			*x = e->w;
	}
	int r = match_max_weight_dense(n, w, prev_mate, mate, total);
	free(w);
	return r;
}
