#include "cmd/measured.h"

#include <string.h>
#include <sys/utsname.h>

#include "cmd/cmd.h"
#include "cmd/db.h"
#include "core/util.h"
#include "measure/env.h"
#include "measure/runner.h"

int nf_measured_begin(const char *cmd, const struct nf_runspec *spec, struct nf_measured *m)
{
    memset(m, 0, sizeof(*m));
    int rc = NF_EXIT_OK;
    m->store = nf_cmd_open_store(cmd, 1, &rc);
    if (!m->store)
        return rc;
    struct utsname u;
    uname(&u);
    struct nf_session_variant v = {spec->label ? spec->label : u.release, spec};
    struct nf_session_opts o = {.warmup = spec->warmup,
                                .min_rounds = spec->repeat,
                                .max_rounds = spec->repeat,
                                .progress = nf_g.progress};
    char err[NF_ERR_LEN];
    rc = nf_session_begin(&m->s, m->store, &v, 1, &o, err, sizeof(err));
    if (rc) {
        nf_err("%s: %s", cmd, err);
        return nf_exit_code(rc);
    }
    m->run = m->s.runs[0];
    return NF_EXIT_OK;
}

int nf_cmd_session_run(const char *cmd, struct nf_session *s)
{
    char err[NF_ERR_LEN];
    int rc = NF_EXIT_OK;
    int r = nf_session_run(s, err, sizeof(err));
    if (r == NF_SESSION_INTERRUPTED && s->nv == 1) {
        nf_err("%s: interrupted by signal %d; %ld repetitions kept", cmd, s->signal, s->reps[0]);
        rc = 128 + s->signal;
    } else if (r == NF_SESSION_INTERRUPTED) {
        nf_err("%s: interrupted by signal %d after %ld rounds; what finished is stored", cmd,
               s->signal, s->rounds);
        rc = 128 + s->signal;
    } else if (r < 0) {
        nf_err("%s: %s", cmd, err);
        rc = nf_exit_code(r);
    }
    /* One line per failure: when the session failed already, its store
     * failing again at the end (a server that went away) says nothing new. */
    if (nf_session_finish(s, err, sizeof(err)) && rc == NF_EXIT_OK) {
        nf_err("%s: %s", cmd, err);
        rc = NF_EXIT_FAIL;
    }
    return rc;
}

int nf_measured_loop(const char *cmd, const struct nf_runspec *spec, struct nf_measured *m)
{
    int rc = nf_cmd_session_run(cmd, &m->s);
    nf_runner_report_counters(spec, m->run);
    return rc;
}

void nf_measured_end(struct nf_measured *m)
{
    nf_session_free(&m->s);
    if (m->store)
        nf_store_close(m->store);
    memset(m, 0, sizeof(*m));
}

int nf_cmd_check_source(const char *cmd, const struct nf_runspec *spec)
{
    char err[NF_ERR_LEN];
    int rc = spec->source ? nf_env_source_check(spec->source, err, sizeof(err)) : 0;
    if (rc == NF_EINPUT) {
        nf_err("%s: %s", cmd, err);
        return NF_EXIT_USAGE;
    }
    if (rc)
        nf_warn("%s: %s", cmd, err);
    return NF_EXIT_OK;
}
