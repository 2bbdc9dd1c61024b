/* Lexical path handling as Go's path/filepath does it on Unix, so relative
 * paths in a kubeconfig resolve to the same files as with kubectl. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* filepath.Clean: collapse "//" and ".", resolve ".." lexically (not above
 * the root of a rooted path), "" becomes ".". */
static char *path_clean(const char *p)
{
	size_t n = strlen(p);
	char *out = malloc(n + 2);
	if (!out)
		return NULL;
	int rooted = p[0] == '/';
	size_t w = rooted ? 1 : 0, dotdot = w, r = w;
	out[0] = '/';
	while (r < n) {
		if (p[r] == '/') {
			r++;
		} else if (p[r] == '.' && (r + 1 == n || p[r + 1] == '/')) {
			r++;
		} else if (p[r] == '.' && p[r + 1] == '.' && (r + 2 == n || p[r + 2] == '/')) {
			r += 2;
			if (w > dotdot) {
				/* back up over the last element */
				w--;
				while (w > dotdot && out[w] != '/')
					w--;
			} else if (!rooted) {
				if (w > 0)
					out[w++] = '/';
				out[w++] = '.';
				out[w++] = '.';
				dotdot = w;
			}
		} else {
			if ((rooted && w != 1) || (!rooted && w != 0))
				out[w++] = '/';
			while (r < n && p[r] != '/')
				out[w++] = p[r++];
		}
	}
	if (w == 0)
		out[w++] = '.';
	out[w] = '\0';
	return out;
}

char *nl__path_join(const char *base, const char *rel)
{
	if (rel[0] == '/' || !base[0])
		return path_clean(rel);
	size_t bl = strlen(base), rl = strlen(rel);
	char *joined = malloc(bl + rl + 2);
	if (!joined)
		return NULL;
	memcpy(joined, base, bl);
	joined[bl] = '/';
	memcpy(joined + bl + 1, rel, rl + 1);
	char *clean = path_clean(joined);
	free(joined);
	return clean;
}

static char *path_abs(const char *p)
{
	if (p[0] == '/')
		return path_clean(p);
	char *cwd = getcwd(NULL, 0);
	if (!cwd)
		return NULL;
	char *abs = nl__path_join(cwd, p);
	free(cwd);
	return abs;
}

char *nl__path_abs_dir(const char *file)
{
	char *abs = path_abs(file);
	if (!abs)
		return NULL;
	char *slash = strrchr(abs, '/');
	/* abs is clean and absolute, so there is a slash; "/x" -> "/". */
	if (slash == abs)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	return abs;
}
