/* The numbers in perf stat's text output, for its importer
 * (import_perf_text.c; declared in formats/import_perf_int.h).
 *
 * perf formats numbers in the locale's LC_NUMERIC: counts with thousands
 * grouped (1,234,567 in en_US; 1.234.567 in de_DE, 1 234 567 with a narrow
 * no-break space in fr_FR, 1’234’567 in de_CH, 12,34,567 in en_IN) and a
 * decimal point that may be a comma.  A count has no decimals or exactly
 * two ("%'.2f"; six in perf before 4.x), and groups of three digits end
 * it: so the last separator is the decimal point unless three digits
 * follow it.  Times ("%.9f", never grouped) and percentages have one
 * separator, the decimal point. */
#include "formats/import_perf_int.h"

#include <string.h>

/* The length of the thousands separator at s (',', '.', '\'', or in UTF-8
 * a no-break space U+00A0, a thin space U+2009, a narrow no-break space
 * U+202F or a right single quote U+2019), 0 for none. */
static size_t group_sep(const char *s, size_t len)
{
    if (len >= 1 && (s[0] == ',' || s[0] == '.' || s[0] == '\''))
        return 1;
    if (len >= 2 && memcmp(s, "\xc2\xa0", 2) == 0)
        return 2;
    if (len >= 3 && (memcmp(s, "\xe2\x80\x89", 3) == 0 || memcmp(s, "\xe2\x80\xaf", 3) == 0 ||
                     memcmp(s, "\xe2\x80\x99", 3) == 0))
        return 3;
    return 0;
}

/* digits.digits with '.' or ',' as the point, or digits: a time or a
 * percentage (never grouped). */
int perf_text_decimal(const char *s, size_t len, double *out)
{
    char buf[64];
    if (len == 0 || len >= sizeof(buf))
        return -1;
    memcpy(buf, s, len);
    int points = 0;
    for (size_t i = 0; i < len; i++)
        if (buf[i] == ',' || buf[i] == '.') {
            buf[i] = '.';
            points++;
        } else if ((buf[i] < '0' || buf[i] > '9') && !(i == 0 && buf[i] == '-')) {
            return -1;
        }
    return points > 1 ? -1 : nf_import_number(buf, len, out);
}

/* A count as perf prints it in any locale (see the top of this file). */
int perf_text_count(const char *s, size_t len, double *out)
{
    char buf[96];
    size_t k = 0, i = 0;
    if (len && s[0] == '-')
        buf[k++] = s[i++];
    /* The digit runs and the separators between them. */
    size_t run_at[32], run_len[32], sep_at[32], sep_len[32], nruns = 0;
    while (i < len) {
        size_t d = i;
        while (i < len && s[i] >= '0' && s[i] <= '9')
            i++;
        if (i == d || nruns == 32)
            return -1;
        run_at[nruns] = d;
        run_len[nruns++] = i - d;
        if (i == len)
            break;
        size_t g = group_sep(s + i, len - i);
        if (g == 0)
            return -1;
        sep_at[nruns - 1] = i;
        sep_len[nruns - 1] = g;
        i += g;
        if (i == len)
            return -1;
    }
    if (nruns == 0)
        return -1;
    /* The last separator is the decimal point unless three digits end the
     * number; every other one groups, and is the same separator. */
    size_t last = nruns - 1;
    int point = nruns > 1 && run_len[last] != 3;
    if (point && (sep_len[last - 1] != 1 || s[sep_at[last - 1]] == '\''))
        return -1;
    size_t groups = point ? last : nruns; /* the runs before the point */
    for (size_t r = 0; r < groups; r++) {
        if (groups > 1 && r == 0 && (run_len[0] > 3 || s[run_at[0]] == '0'))
            return -1;
        if (r > 0 && (run_len[r] < 2 || run_len[r] > 3 || (r == groups - 1 && run_len[r] != 3)))
            return -1;
        if (r > 0 && (sep_len[r - 1] != sep_len[0] ||
                      memcmp(s + sep_at[r - 1], s + sep_at[0], sep_len[0]) != 0))
            return -1;
    }
    if (point && groups > 1 && sep_len[0] == 1 && s[sep_at[0]] == s[sep_at[last - 1]])
        return -1; /* "1,234,56": the point is not a separator of its own */
    for (size_t r = 0; r < nruns; r++) {
        if (k + run_len[r] + 2 > sizeof(buf))
            return -1;
        if (point && r == last)
            buf[k++] = '.';
        memcpy(buf + k, s + run_at[r], run_len[r]);
        k += run_len[r];
    }
    return nf_import_number(buf, k, out);
}
