/* report's page plumbing, shared by its pages (cmd/report.c: the
 * comparison and the history; cmd/report_bisect.c: the bisection). */
#ifndef NF_CMD_REPORT_PAGE_H
#define NF_CMD_REPORT_PAGE_H

#include <stdio.h>

/* 0 when path may be written as a page (absent, empty, "-", or a page
 * this command wrote); NF_EXIT_USAGE with the line said otherwise. */
int nf_report_check_destination(const char *path);
/* The page into path, or to standard output for "-": emit writes it. */
int nf_report_write_html(const char *path, void (*emit)(FILE *out, const void *ctx),
                         const void *ctx);
/* report --bisect: the bisection of a repository as one page. */
int nf_report_bisect(int argc, char **argv);

#endif
