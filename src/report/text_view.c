/* The comparison with printable names (report/text_view.h). */
#include "report/text_view.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static char *keep(struct nf_text_view *v, const char *s)
{
    char *p = nf_xprintable(s);
    if (p)
        v->own[v->nown++] = p;
    return p;
}

void nf_text_view_make(struct nf_text_view *v, const struct nf_comparison *c)
{
    v->c = *c;
    v->nown = 0;
    v->own = nf_xcalloc(1 + c->nlabels + c->nblocks * (4 + 3 * c->nlabels), sizeof(char *));
    const char **labels = nf_xcalloc(c->nlabels ? c->nlabels : 1, sizeof(*labels));
    for (size_t l = 0; l < c->nlabels; l++)
        labels[l] = keep(v, c->labels[l]);
    v->c.labels = labels;
    v->c.metric = keep(v, c->metric);
    v->c.blocks = nf_xcalloc(c->nblocks ? c->nblocks : 1, sizeof(*v->c.blocks));
    for (size_t i = 0; i < c->nblocks; i++) {
        struct nf_cmp_block *b = &v->c.blocks[i];
        *b = c->blocks[i];
        b->metric = keep(v, b->metric);
        b->unit = keep(v, b->unit);
        b->name = keep(v, b->name);
        b->family = keep(v, b->family);
        b->cells = nf_xcalloc(c->nlabels ? c->nlabels : 1, sizeof(*b->cells));
        for (size_t l = 0; l < c->nlabels; l++) {
            struct nf_cmp_cell *x = &b->cells[l];
            *x = c->blocks[i].cells[l];
            x->twin = keep(v, x->twin);
            x->advice_fix = keep(v, x->advice_fix);
            /* advice_who names a label: the view's, so that it is still
             * found among them. */
            const char *who = x->advice_who;
            x->advice_who = NULL;
            for (size_t k = 0; who && !x->advice_who && k < c->nlabels; k++)
                if (strcmp(who, c->labels[k]) == 0)
                    x->advice_who = labels[k];
            if (who && !x->advice_who)
                x->advice_who = keep(v, who);
        }
    }
}

void nf_text_view_free(struct nf_text_view *v)
{
    for (size_t i = 0; i < v->nown; i++)
        free(v->own[i]);
    free(v->own);
    for (size_t i = 0; i < v->c.nblocks; i++)
        free(v->c.blocks[i].cells);
    free(v->c.blocks);
    free((void *)v->c.labels);
    memset(v, 0, sizeof(*v));
}
