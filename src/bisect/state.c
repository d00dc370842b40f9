/* state.c — the bisection's state, in its file or the store (bisect/state.h). */
#define _XOPEN_SOURCE 700
#include "bisect/state.h"

#include <errno.h>
#include <ftw.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/numfmt.h"
#include "core/run.h"
#include "core/safefile.h"
#include "core/util.h"
#include "store/store.h"

#define STATE_VERSION 1

static const char *const kinds[] = {"endpoint", "step", "confirm"};

void nf_bstate_path(const char *dir, char *out, size_t outlen)
{
    snprintf(out, outlen, "%s/state.json", dir);
}

int nf_bstate_exists(const char *dir)
{
    char p[4200];
    nf_bstate_path(dir, p, sizeof(p));
    return access(p, F_OK) == 0;
}

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *to_json(const struct nf_bstate *s)
{
    json_t *j = json_object();
    json_object_set_new(j, "version", json_integer(STATE_VERSION));
    json_object_set_new(j, "repo", json_string(s->repo));
    json_object_set_new(j, "good", json_string(s->good));
    json_object_set_new(j, "bad", json_string(s->bad));
    json_object_set_new(j, "build", str_or_null(s->build));
    json_object_set_new(j, "metric", str_or_null(s->metric));
    json_object_set_new(j, "next_hook", str_or_null(s->next_hook));
    json_object_set_new(j, "db", str_or_null(s->db));
    json_object_set_new(j, "alpha", json_real(s->alpha));
    json_object_set_new(j, "threshold_pct", json_real(s->threshold_pct));
    json_object_set_new(j, "boot", json_boolean(s->boot));
    json_object_set_new(j, "rate", json_integer(s->rate));
    json_object_set_new(j, "higher", json_integer(s->higher));
    json_object_set_new(j, "seed", json_integer((json_int_t)s->seed));
    json_t *sp = json_array();
    for (size_t i = 0; i < s->nspec; i++)
        json_array_append_new(sp, json_string(s->spec[i]));
    json_object_set_new(j, "spec", sp);
    json_t *bs = json_array();
    for (size_t i = 0; i < s->nb; i++)
        json_array_append_new(bs, json_pack("{s:s,s:b}", "sha", s->b[i].sha, "ok", s->b[i].ok));
    json_object_set_new(j, "builds", bs);
    json_t *ts = json_array();
    for (size_t i = 0; i < s->nt; i++) {
        const struct nf_btest *t = &s->t[i];
        json_t *rs = json_array();
        for (size_t k = 0; k < t->n; k++) {
            json_t *r = json_array();
            for (int c = 0; c < 3; c++)
                json_array_append_new(r, num_or_null(t->v[k][c]));
            json_array_append_new(rs, r);
        }
        json_array_append_new(ts, json_pack("{s:s,s:s,s:b,s:s,s:o}", "kind", kinds[t->kind], "rev",
                                            t->rev, "skipped", t->skipped, "session", t->session,
                                            "rounds", rs));
    }
    json_object_set_new(j, "tests", ts);
    json_t *bo = json_array();
    for (size_t i = 0; i < s->nboots; i++)
        json_array_append_new(bo, json_pack("{s:s,s:o}", "sha", s->boots[i].sha, "value",
                                            num_or_null(s->boots[i].value)));
    json_object_set_new(j, "boots", bo);
    json_t *mk = json_array();
    for (size_t i = 0; i < s->nmarks; i++) {
        const char *w = s->marks[i].what == 'g' ? "good" : s->marks[i].what == 'b' ? "bad" : "skip";
        json_array_append_new(mk, json_pack("{s:s,s:s}", "sha", s->marks[i].sha, "mark", w));
    }
    json_object_set_new(j, "marks", mk);
    return j;
}

/* In kernel mode, the state's row of the store. */
static int save_store(const struct nf_bstate *s, int create, char *err, size_t errlen)
{
    if (!s->store) {
        snprintf(err, errlen, "internal: a kernel-mode bisection without its store");
        return -1;
    }
    json_t *j = to_json(s);
    char *text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    int r = nf_store_save_bisection(s->store, s->repo, text, create);
    free(text);
    if (r == NF_STORE_EXISTS) {
        snprintf(err, errlen,
                 "a bisection is in progress in %s (in the store %s; bisect status shows it; "
                 "bisect reset ends it)",
                 s->repo, nf_store_name(s->store));
        return NF_EINPUT;
    }
    if (r) {
        snprintf(err, errlen, "%s", nf_store_error(s->store));
        return r == NF_STORE_NOTFOUND ? NF_EINPUT : -1;
    }
    return 0;
}

int nf_bstate_create(const struct nf_bstate *s, char *err, size_t errlen)
{
    return s->boot ? save_store(s, 1, err, errlen) : nf_bstate_save(s, err, errlen);
}

int nf_bstate_save(const struct nf_bstate *s, char *err, size_t errlen)
{
    if (s->boot && s->store)
        return save_store(s, 0, err, errlen);
    json_t *j = to_json(s);
    char path[4200];
    int r = -1;
    if (mkdir(s->dir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", s->dir, strerror(errno));
        json_decref(j);
        return -1;
    }
    nf_bstate_path(s->dir, path, sizeof(path));
    struct nf_newfile nf;
    if (nf_newfile_open(&nf, path, 0666, err, errlen) == 0) {
        if (nf_json_dumpf(j, nf.f, NF_JSON_FLAGS) != 0) {
            snprintf(err, errlen, "cannot write %s", path);
            nf_newfile_abort(&nf);
        } else {
            fputc('\n', nf.f);
            r = nf_newfile_commit(&nf, NF_NEWFILE_REPLACE, err, errlen);
        }
    }
    json_decref(j);
    return r;
}

static char *dup_or_null(json_t *v)
{
    return json_is_string(v) ? nf_xstrdup(json_string_value(v)) : NULL;
}

static void copy_sha(char *dst, json_t *v)
{
    snprintf(dst, NF_SHA_LEN + 1, "%s", json_is_string(v) ? json_string_value(v) : "");
}

static double num(json_t *v)
{
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* s from the JSON object j (s zeroed, dir set); where names it in
 * messages: 0 or -1. */
static int from_json(struct nf_bstate *s, json_t *j, const char *where, char *err, size_t errlen)
{
    if (!json_is_object(j) || json_integer_value(json_object_get(j, "version")) != STATE_VERSION) {
        snprintf(err, errlen, "%s: not a bisection state (bisect reset removes it)", where);
        return -1;
    }
    json_t *v = json_object_get(j, "repo");
    snprintf(s->repo, sizeof(s->repo), "%s", json_is_string(v) ? json_string_value(v) : "");
    copy_sha(s->good, json_object_get(j, "good"));
    copy_sha(s->bad, json_object_get(j, "bad"));
    s->build = dup_or_null(json_object_get(j, "build"));
    s->metric = dup_or_null(json_object_get(j, "metric"));
    s->next_hook = dup_or_null(json_object_get(j, "next_hook"));
    s->db = dup_or_null(json_object_get(j, "db"));
    s->alpha = num(json_object_get(j, "alpha"));
    s->threshold_pct = num(json_object_get(j, "threshold_pct"));
    s->boot = json_is_true(json_object_get(j, "boot"));
    v = json_object_get(j, "rate");
    s->rate = json_is_integer(v) ? (int)json_integer_value(v) : -1;
    v = json_object_get(j, "higher");
    s->higher = json_is_integer(v) ? (int)json_integer_value(v) : -1;
    s->seed = (unsigned long)json_integer_value(json_object_get(j, "seed"));
    json_t *sp = json_object_get(j, "spec");
    s->nspec = json_array_size(sp);
    s->spec = nf_xcalloc(s->nspec + 1, sizeof(char *));
    for (size_t i = 0; i < s->nspec; i++) {
        const char *w = json_string_value(json_array_get(sp, i));
        s->spec[i] = nf_xstrdup(w ? w : "");
    }
    json_t *bs = json_object_get(j, "builds");
    for (size_t i = 0; i < json_array_size(bs); i++) {
        json_t *b = json_array_get(bs, i);
        char sha[NF_SHA_LEN + 1];
        copy_sha(sha, json_object_get(b, "sha"));
        nf_bstate_set_build(s, sha, json_is_true(json_object_get(b, "ok")));
    }
    json_t *ts = json_object_get(j, "tests");
    for (size_t i = 0; i < json_array_size(ts); i++) {
        json_t *t = json_array_get(ts, i);
        const char *k = json_string_value(json_object_get(t, "kind"));
        enum nf_btest_kind kind = NF_BTEST_ENDPOINT;
        for (int c = 0; c < 3; c++)
            if (k && strcmp(k, kinds[c]) == 0)
                kind = (enum nf_btest_kind)c;
        char rev[NF_SHA_LEN + 1];
        copy_sha(rev, json_object_get(t, "rev"));
        struct nf_btest *bt = nf_bstate_add_test(s, kind, rev);
        bt->skipped = json_is_true(json_object_get(t, "skipped"));
        const char *ses = json_string_value(json_object_get(t, "session"));
        snprintf(bt->session, sizeof(bt->session), "%s", ses ? ses : "");
        json_t *rs = json_object_get(t, "rounds");
        for (size_t r = 0; r < json_array_size(rs); r++) {
            json_t *row = json_array_get(rs, r);
            nf_btest_add_round(bt, num(json_array_get(row, 0)), num(json_array_get(row, 1)),
                               num(json_array_get(row, 2)));
        }
    }
    json_t *bo = json_object_get(j, "boots");
    for (size_t i = 0; i < json_array_size(bo); i++) {
        json_t *b = json_array_get(bo, i);
        char sha[NF_SHA_LEN + 1];
        copy_sha(sha, json_object_get(b, "sha"));
        nf_bstate_add_boot(s, sha, num(json_object_get(b, "value")));
    }
    json_t *mk = json_object_get(j, "marks");
    for (size_t i = 0; i < json_array_size(mk); i++) {
        json_t *m = json_array_get(mk, i);
        char sha[NF_SHA_LEN + 1];
        copy_sha(sha, json_object_get(m, "sha"));
        const char *w = json_string_value(json_object_get(m, "mark"));
        nf_bstate_add_mark(s, sha, w ? w[0] : 's');
    }
    if (strlen(s->good) != NF_SHA_LEN || strlen(s->bad) != NF_SHA_LEN || !s->repo[0]) {
        snprintf(err, errlen, "%s: not a bisection state (bisect reset removes it)", where);
        return -1;
    }
    return 0;
}

int nf_bstate_load(struct nf_bstate *s, const char *dir, char *err, size_t errlen)
{
    memset(s, 0, sizeof(*s));
    char path[4200];
    nf_bstate_path(dir, path, sizeof(path));
    if (access(path, F_OK) != 0) {
        snprintf(err, errlen, "no bisection in progress (start one with 'bisect start')");
        return NF_EINPUT;
    }
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    if (!j) {
        snprintf(err, errlen, "%s: not a bisection state file: %s (bisect reset removes it)", path,
                 je.text);
        return -1;
    }
    snprintf(s->dir, sizeof(s->dir), "%s", dir);
    int r = from_json(s, j, path, err, errlen);
    json_decref(j);
    if (r)
        nf_bstate_free(s);
    return r;
}

int nf_bstate_load_store(struct nf_bstate *s, struct nf_store *st, const char *repo,
                         const char *dir, char *err, size_t errlen)
{
    memset(s, 0, sizeof(*s));
    char *text = NULL;
    int r = nf_store_load_bisection(st, repo, &text);
    if (r == NF_STORE_NOTFOUND) {
        snprintf(err, errlen,
                 "no bisection in progress in %s (none in its state file, none in the store %s; "
                 "start one with 'bisect start')",
                 repo, nf_store_name(st));
        return NF_EINPUT;
    }
    if (r) {
        snprintf(err, errlen, "%s", nf_store_error(st));
        return -1;
    }
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    free(text);
    char where[4200];
    snprintf(where, sizeof(where), "the bisection of %s in the store", repo);
    snprintf(s->dir, sizeof(s->dir), "%s", dir);
    r = j ? from_json(s, j, where, err, errlen) : -1;
    if (!j)
        snprintf(err, errlen, "%s: not a bisection state: %s (bisect reset removes it)", where,
                 je.text);
    json_decref(j);
    if (r) {
        nf_bstate_free(s);
        return r;
    }
    s->store = st;
    return 0;
}

void nf_bstate_free(struct nf_bstate *s)
{
    free(s->build);
    free(s->metric);
    free(s->next_hook);
    free(s->db);
    nf_free_words(s->spec);
    for (size_t i = 0; i < s->nt; i++)
        free(s->t[i].v);
    free(s->t);
    free(s->b);
    free(s->boots);
    free(s->marks);
    memset(s, 0, sizeof(*s));
}

struct nf_btest *nf_bstate_add_test(struct nf_bstate *s, enum nf_btest_kind kind, const char *rev)
{
    s->t = nf_xrealloc(s->t, (s->nt + 1) * sizeof(*s->t));
    struct nf_btest *t = &s->t[s->nt++];
    memset(t, 0, sizeof(*t));
    t->kind = kind;
    snprintf(t->rev, sizeof(t->rev), "%s", rev ? rev : "");
    return t;
}

void nf_btest_add_round(struct nf_btest *t, double a, double b, double c)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 16;
        t->v = nf_xrealloc(t->v, t->cap * sizeof(*t->v));
    }
    t->v[t->n][0] = a;
    t->v[t->n][1] = b;
    t->v[t->n][2] = c;
    t->n++;
}

const struct nf_bbuild *nf_bstate_build(const struct nf_bstate *s, const char *sha)
{
    for (size_t i = 0; i < s->nb; i++)
        if (strcmp(s->b[i].sha, sha) == 0)
            return &s->b[i];
    return NULL;
}

void nf_bstate_set_build(struct nf_bstate *s, const char *sha, int ok)
{
    for (size_t i = 0; i < s->nb; i++)
        if (strcmp(s->b[i].sha, sha) == 0) {
            s->b[i].ok = ok;
            return;
        }
    s->b = nf_xrealloc(s->b, (s->nb + 1) * sizeof(*s->b));
    snprintf(s->b[s->nb].sha, sizeof(s->b[s->nb].sha), "%s", sha);
    s->b[s->nb++].ok = ok;
}

void nf_bstate_add_boot(struct nf_bstate *s, const char *sha, double value)
{
    s->boots = nf_xrealloc(s->boots, (s->nboots + 1) * sizeof(*s->boots));
    snprintf(s->boots[s->nboots].sha, sizeof(s->boots[s->nboots].sha), "%s", sha);
    s->boots[s->nboots++].value = value;
}

void nf_bstate_add_mark(struct nf_bstate *s, const char *sha, char what)
{
    s->marks = nf_xrealloc(s->marks, (s->nmarks + 1) * sizeof(*s->marks));
    snprintf(s->marks[s->nmarks].sha, sizeof(s->marks[s->nmarks].sha), "%s", sha);
    s->marks[s->nmarks++].what = what == 'g' || what == 'b' ? what : 's';
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    return (flag == FTW_DP ? rmdir(path) : unlink(path)) == 0 || errno == ENOENT ? 0 : -1;
}

int nf_rmtree(const char *path)
{
    if (access(path, F_OK) != 0)
        return 0;
    return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
