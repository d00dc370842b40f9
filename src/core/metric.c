#include "core/metric.h"

#include <stdio.h>
#include <string.h>

#include "core/run.h"
#include "core/util.h"

const char *nf_better_name(enum nf_better b)
{
    return b == NF_BETTER_HIGHER ? "higher" : "lower";
}

int nf_better_parse(const char *s, enum nf_better *out)
{
    if (strcmp(s, "lower") == 0)
        *out = NF_BETTER_LOWER;
    else if (strcmp(s, "higher") == 0)
        *out = NF_BETTER_HIGHER;
    else
        return -1;
    return 0;
}

const char *const nf_rusage_names[NF_RUSAGE_NMETRICS] = {
    "user",
    "sys",
    "voluntary-context-switches",
    "involuntary-context-switches",
    "minor-page-faults",
    "major-page-faults",
    "max-rss",
};

int nf_metric_is_rusage(const char *name)
{
    for (int i = 0; i < NF_RUSAGE_NMETRICS; i++)
        if (strcmp(name, nf_rusage_names[i]) == 0)
            return 1;
    return 0;
}

enum nf_metric_kind nf_metric_kind(const char *name)
{
    return strncmp(name, "cpu.", 4) == 0 || strncmp(name, "sched.", 6) == 0 ? NF_METRIC_MACHINE
                                                                            : NF_METRIC_MEASURED;
}

const char *nf_metric_kind_name(enum nf_metric_kind k)
{
    return k == NF_METRIC_MACHINE ? "machine" : "measured";
}

int nf_metric_is_machine(const char *name)
{
    return nf_metric_kind(name) == NF_METRIC_MACHINE;
}

int nf_word_check(const char *what, const char *kind, const char *s, char *err, size_t errlen)
{
    size_t len = strlen(s);
    if (len == 0) {
        snprintf(err, errlen, "%s: %s cannot be empty", what, kind);
        return -1;
    }
    int utf8 = nf_utf8_valid(s, len, NULL);
    int control = 0, blank = 0, invisible = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        /* C0, DEL, and C1 (U+0080..U+009F: 0xc2 0x80..0x9f in UTF-8) */
        control |= *p < 0x20 || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f);
        invisible |= utf8 && nf_invisible_at(p) != 0;
        /* U+00A0, the no-break space, is a blank too */
        blank |= *p == ' ' || (p[0] == 0xc2 && p[1] == 0xa0);
    }
    if (utf8 && !control && !blank && !invisible)
        return 0;
    char shown[96];
    nf_label_escape(shown, sizeof(shown), s, utf8);
    snprintf(err, errlen, "%s '%s' %s: %s is one word of printable text", what, shown,
             !utf8       ? "is not UTF-8"
             : control   ? "contains a control character"
             : invisible ? "contains an invisible or bidirectional control character"
                         : "contains a blank",
             kind);
    return -1;
}

int nf_metric_name_check(const char *what, const char *name, char *err, size_t errlen)
{
    return nf_word_check(what, "a metric name", name, err, errlen);
}

int nf_metric_unit_check(const char *what, const char *unit, char *err, size_t errlen)
{
    return nf_word_check(what, "a unit", unit, err, errlen);
}
