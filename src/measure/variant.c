#include "measure/variant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/run.h"
#include "core/util.h"

/* NAME=SPEC into a variant; one line in err on failure. */
static int parse_one(struct nf_variant *v, const char *arg, char *err, size_t errlen)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg) { /* shown quoted: it may hold a newline or an escape */
        char q[64];
        nf_quote(q, sizeof(q), arg, strlen(arg));
        snprintf(err, errlen, "variant '%s' is not NAME=SPEC", q);
        return -1;
    }
    v->name = nf_xstrdup(arg);
    v->name[eq - arg] = 0;
    if (nf_label_check("variant name", v->name, err, errlen)) /* the runs' label */
        return -1;
    int n;
    char **w = nf_split_words(eq + 1, &n, err, errlen);
    if (!w)
        return -1;
    if (n == 0) {
        nf_free_words(w);
        snprintf(err, errlen, "variant '%s' has an empty SPEC", v->name);
        return -1;
    }
    /* Put "ab" in front, as argv[0] of the spec's own option parsing. */
    v->words = nf_xcalloc((size_t)n + 2, sizeof(char *));
    v->words[0] = nf_xstrdup("ab");
    memcpy(v->words + 1, w, ((size_t)n + 1) * sizeof(char *));
    free(w);
    int help;
    char e2[NF_ERR_LEN];
    if (nf_runspec_parse(&v->spec, n + 1, v->words, &help, e2, sizeof(e2)) || help) {
        snprintf(err, errlen, "variant '%s': %s", v->name, help ? "--help is not a SPEC" : e2);
        return -1;
    }
    return 0;
}

int nf_variants_parse(char **args, size_t n, struct nf_variant **out, char *err, size_t errlen)
{
    struct nf_variant *v = nf_xcalloc(n ? n : 1, sizeof(*v));
    *out = v;
    for (size_t i = 0; i < n; i++) {
        if (parse_one(&v[i], args[i], err, errlen))
            return -1;
        for (size_t k = 0; k < i; k++)
            if (strcmp(v[k].name, v[i].name) == 0) {
                snprintf(err, errlen, "variant name '%s' given twice", v[i].name);
                return -1;
            }
    }
    return 0;
}

void nf_variants_free(struct nf_variant *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++) {
        nf_runspec_free(&v[i].spec);
        nf_free_words(v[i].words);
        free(v[i].name);
    }
    free(v);
}
