/* Tuning that must be undone: --sysctl KEY=VALUE set for a run and put back
 * afterwards, even after a crash.
 *
 * The original values are written to a state file before anything is
 * changed ($NOISEFLOOR_STATE, else /var/tmp/noisefloor-tune.state, JSON:
 * {"version":1,"pid":N,"root":"","entries":[{"key","path","original",
 * "value"}]}); the file is removed once every value is back.  So at any
 * moment either nothing is changed, or the state file says how to undo it:
 * after a kill -9, `noisefloor doctor --restore` reads it
 * (nf_tune_load_state, nf_tune_restore).
 *
 * Root runs this, and /var/tmp is writable by everyone, so the state file is
 * created only where nobody else could change it, and read back only if it
 * passes nf_open_trusted (core/safefile.h: ours, not writable by others, in
 * directories only we or root can change) and every entry names a file
 * under <root>/proc/sys/ or <root>/sys/devices/system/cpu/, <root> being
 * the --root it was written with ("" normally).  Otherwise it is refused
 * whole and nothing is written. */
#ifndef NF_MEASURE_TUNE_H
#define NF_MEASURE_TUNE_H

#include <stddef.h>
#include <stdio.h>

#include "measure/runspec.h"

struct nf_tune_entry {
    char *key;      /* "kernel.sched_autogroup_enabled" */
    char *path;     /* its file: <root>/proc/sys/kernel/sched_autogroup_enabled */
    char *original; /* as read before the change */
    char *value;    /* as asked for */
    int set;        /* written, so to be restored */
    int guard;      /* restore only while the file still holds value (a
                       state file left by another process: doctor --restore) */
    char *found;    /* guard: what the file held instead, left as it was */
};

struct nf_tune {
    struct nf_tune_entry *e;
    size_t n;
    char *state_path; /* NULL when nothing is tuned */
    /* Per entry, its file held with flock(2) while tuned (-1: none): one
     * lock per setting across every noisefloor, whatever its state file. */
    int *locks;
};

/* $NOISEFLOOR_STATE, or /var/tmp/noisefloor-tune.state. */
const char *nf_tune_state_path(void);
/* Whether no tuning is recorded at path: 0 when there is no state file;
 * -1 with one line in err when there is one (its holder still runs, or
 * it was not restored: doctor --restore).  Another tool's state stops a
 * tuning that would record its values as the originals. */
int nf_tune_state_clear(const char *path, char *err, size_t errlen);

/* kernel.sched_foo (or kernel/sched_foo) → <root>/proc/sys/kernel/sched_foo.
 * -1 when the key is not a sysctl name. */
int nf_sysctl_path(const char *key, const char *root, char *out, size_t outlen);

/* Read every original value, write the state file, then set the values.
 * Returns 0, or a failure with one line in err and nothing left changed
 * (no state file either): NF_EINPUT for a key that is not a sysctl name,
 * does not exist or is given twice, or a value the kernel rejects (EINVAL);
 * -1 for anything else (EACCES, a state file left by an earlier run, I/O). */
int nf_tune_apply(struct nf_tune *t, const struct nf_sysctl *s, int n, const char *root,
                  const char *state_path, char *err, size_t errlen);
/* Set files directly (doctor --tune): each file's original is read and the
 * state file written before anything changes, as for --sysctl.  `what`
 * prefixes error lines ("--sysctl: ", "doctor --tune: "); root (may be
 * NULL) is the --root the paths lie under, recorded for doctor --restore.
 * Returns as nf_tune_apply (NF_EINPUT only for a value the kernel
 * rejects). */
struct nf_tune_file {
    const char *name; /* shown and kept in the state file */
    const char *path; /* the file, root included */
    const char *value;
};
int nf_tune_apply_files(struct nf_tune *t, const struct nf_tune_file *f, size_t n, const char *root,
                        const char *state_path, const char *what, char *err, size_t errlen);
/* The --sysctl options of a run spec (nf_tune_apply); a no-op without any. */
int nf_tune_apply_spec(struct nf_tune *t, const struct nf_runspec *spec, char *err, size_t errlen);

/* Put every original back and remove the state file.  On a failure the
 * state file stays (for doctor --restore), err says what, and -1. */
int nf_tune_restore(struct nf_tune *t, char *err, size_t errlen);
/* nf_tune_restore, a warning on failure, and the memory freed: for `run`. */
void nf_tune_finish(struct nf_tune *t);
void nf_tune_free(struct nf_tune *t);

/* Read a state file that a killed run or doctor --tune left, as a tuning
 * to restore (nf_tune_restore; then nf_tune_free).  1 when t holds it; 0
 * when there is no such file; -1 with err, and t empty, when the file is
 * not to be trusted (see above), is not a state file, names a file that may
 * not be tuned, or belongs to a noisefloor still running. */
int nf_tune_load_state(struct nf_tune *t, const char *path, char *err, size_t errlen);
/* doctor --restore of one file: nf_tune_load_state, nf_tune_restore, one
 * line per setting put back on log (may be NULL).  Returns the number of
 * settings put back (0: no state file), or -1 with err (the file stays). */
int nf_tune_restore_from_state(const char *path, FILE *log, char *err, size_t errlen);

#endif
