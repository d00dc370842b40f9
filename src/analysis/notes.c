/* A cell's notes (analysis/compare.h): what the building of a comparison
 * (compare.c) and the pairing (pairing.c) tell the reader beyond the
 * numbers, printed under the table and kept in the compare JSON. */
#include "analysis/compare.h"

#include <stdarg.h>
#include <stdio.h>

#include "core/util.h"

void nf_cmp_note(struct nf_cmp_cell *cell, const char *fmt, ...)
{
    va_list ap;
    char *s;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    if (!s)
        return;
    cell->notes = nf_xrealloc(cell->notes, (cell->nnotes + 1) * sizeof(char *));
    cell->notes[cell->nnotes++] = s;
}
