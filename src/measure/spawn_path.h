/* What an exec of a command's name runs, found by us once per command
 * rather than by execvp in every child: execvp runs a file that has no
 * #! line and is not a binary (ENOEXEC) through /bin/sh, and a command is
 * never run through a shell nobody asked for; the exec of the file found
 * here fails instead ("Exec format error").  The search costs a stat per
 * PATH entry, so the last answer is kept. */
#ifndef NF_MEASURE_SPAWN_PATH_H
#define NF_MEASURE_SPAWN_PATH_H
#include <stddef.h>

/* The file an exec of name runs, as execvp finds it (a name with a slash
 * as it is, else each PATH entry in turn; an empty entry is the current
 * directory; /bin:/usr/bin without PATH) into out: 0, or the errno the
 * exec would fail with (ENOENT, EACCES, ENAMETOOLONG). */
int nf_spawn_resolve(const char *name, char *out, size_t outlen);
#endif
