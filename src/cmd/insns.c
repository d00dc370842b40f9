/* noisefloor insns: the instruction mix of functions in ELF files, side by
 * side for patch variants (doc/cases.md, the third case: `mul` counted in
 * objdump's output of one function to explain a speed difference). */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/insns_select.h"
#include "core/numfmt.h"
#include "core/util.h"
#include "elf/demangle.h"
#include "disasm/disasm.h"

#define MAX_PATTERNS 64

/* --- a small text table: a label column, then per file a value and, after
 * the first file, the difference to it ---------------------------------- */

struct table {
    size_t nfiles, nrows;
    char **cell; /* per row: label, then value and diff per file */
};

static size_t row_width(const struct table *t)
{
    return 1 + 2 * t->nfiles;
}

static char **add_row(struct table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static char **add_row(struct table *t, const char *fmt, ...)
{
    size_t w = row_width(t);
    t->cell = nf_xrealloc(t->cell, (t->nrows + 1) * w * sizeof(char *));
    char **r = &t->cell[t->nrows++ * w];
    for (size_t i = 0; i < w; i++)
        r[i] = NULL;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&r[0], fmt, ap) < 0)
        r[0] = NULL;
    va_end(ap);
    return r;
}

/* A row of counts; have[i] is 0 when the function is missing in file i. */
static void count_row(struct table *t, const char *label, const long long *v, const int *have)
{
    char **r = add_row(t, "%s", label);
    for (size_t i = 0; i < t->nfiles; i++) {
        r[1 + 2 * i] = have[i] ? nf_xasprintf("%lld", v[i]) : nf_xstrdup("-");
        if (i > 0 && have[i] && have[0] && v[i] != v[0])
            r[2 + 2 * i] = nf_xasprintf("(%+lld)", v[i] - v[0]);
    }
}

static void print_table(FILE *out, struct table *t)
{
    size_t w = row_width(t);
    size_t *width = nf_xcalloc(w, sizeof(size_t));
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t c = 0; c < w; c++)
            if (t->cell[r * w + c] && strlen(t->cell[r * w + c]) > width[c])
                width[c] = strlen(t->cell[r * w + c]);
    size_t linelen = 1;
    for (size_t c = 0; c < w; c++)
        linelen += width[c] + 2;
    char *line = nf_xmalloc(linelen);
    for (size_t r = 0; r < t->nrows; r++) {
        char **row = &t->cell[r * w];
        size_t at = 0;
        for (size_t c = 0; c < w; c++) {
            const char *s = row[c] ? row[c] : "";
            if (c == 0)
                at += (size_t)snprintf(line + at, linelen - at, "%-*s", (int)width[0], s);
            else if (c % 2 == 1) /* a value: right-aligned */
                at += (size_t)snprintf(line + at, linelen - at, "  %*s", (int)width[c], s);
            else if (width[c]) /* a difference: left-aligned after it */
                at += (size_t)snprintf(line + at, linelen - at, " %-*s", (int)width[c], s);
        }
        while (at > 0 && line[at - 1] == ' ')
            at--;
        line[at] = '\0';
        fprintf(out, "%s\n", line);
    }
    free(line);
    for (size_t i = 0; i < t->nrows * w; i++)
        free(t->cell[i]);
    free(t->cell);
    free(width);
    t->cell = NULL;
    t->nrows = 0;
}

/* --- the command -------------------------------------------------------- */

struct opts {
    struct nf_optlist funcs;
    const char *patterns[MAX_PATTERNS];
    char *pattern_buf[MAX_PATTERNS];
    size_t npatterns;
    long top;
    int json;
};

/* The instructions whose mnemonic matches any of the patterns, each once
 * (imul matches both "mul" and "imul"): the total of a --match family,
 * all the multiplies of mul,madd,msub at once. */
static long matched_any(const struct opts *o, const struct nf_mix *m)
{
    long n = 0;
    for (size_t j = 0; j < m->nmn; j++)
        for (size_t p = 0; p < o->npatterns; p++)
            if (nf_mnemonic_match(o->patterns[p], m->mn[j].mnemonic)) {
                n += m->mn[j].count;
                break;
            }
    return n;
}

/* --match LIST: comma-separated patterns, added to those given before. */
static int add_patterns(const struct nf_option *opt, void *base, const char *list, char *err,
                        size_t errlen)
{
    struct opts *o = base;
    (void)opt;
    char *copy = nf_xstrdup(list);
    char *save = NULL;
    int bad = !*list || list[strlen(list) - 1] == ',' || list[0] == ',' || strstr(list, ",,");
    for (char *tok = strtok_r(copy, ",", &save); tok && !bad; tok = strtok_r(NULL, ",", &save)) {
        if (o->npatterns == MAX_PATTERNS) {
            snprintf(err, errlen, "too many --match patterns (at most %d)", MAX_PATTERNS);
            free(copy);
            return -1;
        }
        if (strcmp(tok, "^") == 0 || strcmp(tok, "$") == 0 || strcmp(tok, "^$") == 0) {
            bad = 1;
            break;
        }
        o->pattern_buf[o->npatterns] = nf_xstrdup(tok);
        o->patterns[o->npatterns] = o->pattern_buf[o->npatterns];
        o->npatterns++;
    }
    free(copy);
    if (bad) {
        snprintf(err, errlen, "--match wants comma-separated mnemonic patterns, not '%s'", list);
        return -1;
    }
    return 0;
}

static void insns_notes(FILE *out)
{
    fprintf(out,
            "\nMnemonics are capstone's (Intel syntax on x86, as objdump -M intel).\n"
            "Symbols come from .symtab, else (no functions there) .dynsym.  Architectures:\n%s.\n"
            "Data inside ARM/AArch64 code (mapping symbols $d) is counted as skipped\n"
            "bytes, not as instructions.  So are the bytes of an instruction capstone\n"
            "cannot decode (capstone 4.0.2: many AVX-512 ones), stepped over whole and\n"
            "counted as 'undecodable insns'; where an x86 encoding's length is unknown\n"
            "too, a warning says from which address the function's counts are unsure.\n"
            "capstone: $NOISEFLOOR_LIBCAPSTONE, else libcapstone.so.5, else .so.4.\n",
            nf_disasm_archs);
}

const struct nf_opts nf_cmd_insns_opts = {
    .usage = "noisefloor insns [OPTIONS] ELF [ELF...]",
    .about = "Disassemble functions of ELF files (executables, shared objects, .o, vmlinux)\n"
             "and count their instructions: in total, per mnemonic, and those matching\n"
             "--match.  With several files, one column per file and the difference to the\n"
             "first, to compare patch variants.",
    .options =
        (const struct nf_option[]){
            NF_OPT_LIST_NOEMPTY(0, "func", struct opts, funcs, 0, "NAME",
                                "this function (exact symbol name, or a C++ name\n"
                                "demangled as shown; repeatable); it must exist in\n"
                                "every file",
                                NF_DEF_TEXT("the largest functions")),
            NF_OPT_INT(0, "top", struct opts, top, 0, 1000000000L, "a count", "N",
                       "without --func: the N largest (0 = all)", NF_DEF("20")),
            NF_OPT_CALLBACK(0, "match", add_patterns, "LIST",
                            "comma-separated mnemonic patterns to count (repeatable).\n"
                            "A pattern matches a mnemonic that contains it, ignoring\n"
                            "case: 'mul' counts mul, imul, mulx, fmul, vpmulld, smull,\n"
                            "umulh.  '^' anchors at the start, '$' at the end:\n"
                            "'^mul$' counts mul only.  The mnemonic includes its\n"
                            "prefixes ('lock add', 'rep stosq'): '^add$' misses\n"
                            "lock add, '^stos' misses rep stosq.  Multiplies\n"
                            "(doc/cases.md): ARM --match mul,mla,mls,mia;\n"
                            "AArch64 --match mul,madd,msub (madd counts smaddl,\n"
                            "umaddl and fmadd too)"),
            NF_OPT_FLAG(0, "json", struct opts, json,
                        "print {\"files\":[{\"path\",\"arch\",\"functions\":[...]}]}"),
            NF_OPT_END,
        },
    .epilogue = insns_notes,
};

/* The function's name as shown (allocated): demangled, and "#2" for the
 * second of that name. */
static char *key_label(const struct nf_insns_key *k)
{
    char *dm;
    const char *name = nf_demangle_show(k->name, &dm);
    char *label = k->dup == 1 ? nf_xstrdup(name) : nf_xasprintf("%s#%d", name, k->dup);
    free(dm);
    return label;
}

static void print_text(FILE *out, const struct opts *o, struct nf_delf **files, size_t n,
                       const struct nf_insns_key *keys, size_t nkeys, struct nf_mix *mix,
                       const struct nf_dfunc **fn)
{
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s: %s, %s, %zu function symbols (%s)\n", files[i]->path, files[i]->arch,
                files[i]->type, files[i]->nfuncs, files[i]->symtab);
    long long *v = nf_xcalloc(n, sizeof(*v));
    int *have = nf_xcalloc(n, sizeof(*have));
    struct table t = {.nfiles = n};
    for (size_t k = 0; k < nkeys; k++) {
        struct nf_mix *m = &mix[k * n];
        const struct nf_dfunc **f = &fn[k * n];
        char buf[512];
        fputc('\n', out);
        /* A long name (a C++ template) on a line of its own, not widening
         * the label column of every row. */
        char *label = key_label(&keys[k]);
        int own_line = strlen(label) > 40;
        if (own_line)
            fprintf(out, "%s\n", label);
        char **r = add_row(&t, "%s", own_line ? "" : label);
        free(label);
        for (size_t i = 0; i < n; i++) {
            r[1 + 2 * i] = nf_xstrdup(files[i]->path);
            have[i] = f[i] != NULL;
        }
        r = add_row(&t, "  address");
        for (size_t i = 0; i < n; i++)
            r[1 + 2 * i] =
                f[i] ? nf_xasprintf("0x%llx", (unsigned long long)f[i]->addr) : nf_xstrdup("-");
        uint64_t skipped = 0;
        long undecodable = 0;
        int unsure = 0;
        for (size_t i = 0; i < n; i++) {
            v[i] = (long long)m[i].bytes;
            skipped |= m[i].skipped;
            undecodable |= m[i].undecodable;
            unsure |= m[i].unsure;
        }
        count_row(&t, "  bytes", v, have);
        for (size_t i = 0; i < n; i++)
            v[i] = m[i].insns;
        count_row(&t, "  instructions", v, have);
        if (skipped) {
            for (size_t i = 0; i < n; i++)
                v[i] = (long long)m[i].skipped;
            count_row(&t, "  skipped bytes", v, have);
        }
        if (undecodable) {
            for (size_t i = 0; i < n; i++)
                v[i] = m[i].undecodable;
            count_row(&t, "  undecodable insns", v, have);
        }
        if (unsure) {
            r = add_row(&t, "  unsure from");
            for (size_t i = 0; i < n; i++)
                r[1 + 2 * i] = m[i].unsure
                                   ? nf_xasprintf("0x%llx", (unsigned long long)m[i].unsure_at)
                                   : nf_xstrdup("-");
        }
        for (size_t p = 0; p < o->npatterns; p++) {
            for (size_t i = 0; i < n; i++)
                v[i] = f[i] ? m[i].matched[p] : 0;
            snprintf(buf, sizeof(buf), "  match '%s'", o->patterns[p]);
            count_row(&t, buf, v, have);
        }
        if (o->npatterns > 1) {
            for (size_t i = 0; i < n; i++)
                v[i] = f[i] ? matched_any(o, &m[i]) : 0;
            count_row(&t, "  match any (total)", v, have);
        }
        add_row(&t, "  mnemonics");
        /* Every mnemonic of any file, in the order of the first file that
         * has it (by count), so the biggest stand on top. */
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < m[i].nmn; j++) {
                const char *mn = m[i].mn[j].mnemonic;
                int seen = 0;
                for (size_t e = 0; e < i && !seen; e++)
                    for (size_t q = 0; q < m[e].nmn && !seen; q++)
                        seen = strcmp(m[e].mn[q].mnemonic, mn) == 0;
                if (seen)
                    continue;
                for (size_t e = 0; e < n; e++) {
                    v[e] = 0;
                    for (size_t q = 0; q < m[e].nmn; q++)
                        if (strcmp(m[e].mn[q].mnemonic, mn) == 0)
                            v[e] = m[e].mn[q].count;
                }
                snprintf(buf, sizeof(buf), "    %s", mn);
                count_row(&t, buf, v, have);
            }
        print_table(out, &t);
    }
    free(v);
    free(have);
}

/* JSON: "demangled" beside the symbol of a C++ name (elf/demangle.h). */
static void set_demangled(json_t *o, const char *sym)
{
    char *d = nf_demangle(sym);
    if (d)
        json_object_set_new(o, "demangled", json_string(d));
    free(d);
}

/* s as JSON text: bytes that are not UTF-8 (a symbol or path may have
 * any) become '?', as profile stores them, so that no name is lost. */
static json_t *jtext(const char *s)
{
    char *d = nf_xstrdup(s);
    size_t len = strlen(d), at = 0, bad;
    while (!nf_utf8_valid(d + at, len - at, &bad)) {
        d[at + bad] = '?';
        at += bad + 1;
    }
    json_t *j = json_string(d);
    free(d);
    return j;
}

/* Set key (cleaned as jtext) of o to v; -1 when jansson fails. */
static int jset(json_t *o, const char *key, json_t *v)
{
    json_t *k = jtext(key);
    int rc = k && v ? json_object_set_new(o, json_string_value(k), v) : -1;
    if (rc && v && !k)
        json_decref(v);
    json_decref(k);
    return rc;
}

static int print_json(FILE *out, const struct opts *o, struct nf_delf **files, size_t n,
                      size_t nkeys, struct nf_mix *mix, const struct nf_dfunc **fn)
{
    int bad = 0;
    json_t *jfiles = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *jfuncs = json_array();
        for (size_t k = 0; k < nkeys; k++) {
            const struct nf_dfunc *f = fn[k * n + i];
            const struct nf_mix *m = &mix[k * n + i];
            if (!f)
                continue;
            char addr[32], unsure[32];
            snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)f->addr);
            snprintf(unsure, sizeof(unsure), "0x%llx", (unsigned long long)m->unsure_at);
            json_t *mn = json_object(), *matched = json_object();
            for (size_t j = 0; j < m->nmn; j++)
                bad |= jset(mn, m->mn[j].mnemonic, json_integer(m->mn[j].count));
            for (size_t p = 0; p < o->npatterns; p++)
                bad |= jset(matched, o->patterns[p], json_integer(m->matched[p]));
            json_t *jf = json_pack(
                "{s:o, s:s, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:o}", "name", jtext(f->name),
                "addr", addr, "size", (json_int_t)f->size, "insns", (json_int_t)m->insns, "bytes",
                (json_int_t)m->bytes, "skipped_bytes", (json_int_t)m->skipped, "undecodable",
                (json_int_t)m->undecodable, "unsure_from",
                m->unsure ? json_string(unsure) : json_null(), "mnemonics", mn, "matched", matched);
            if (jf && o->npatterns)
                bad |= json_object_set_new(jf, "matched_any", json_integer(matched_any(o, m)));
            if (jf)
                set_demangled(jf, f->name);
            if (jf && f->dup > 1)
                bad |= json_object_set_new(jf, "dup", json_integer(f->dup));
            bad |= !jf || json_array_append_new(jfuncs, jf);
        }
        json_t *jfile = json_pack("{s:o, s:s, s:s, s:s, s:o}", "path", jtext(files[i]->path),
                                  "arch", files[i]->arch, "type", files[i]->type, "symtab",
                                  files[i]->symtab, "functions", jfuncs);
        bad |= !jfile || json_array_append_new(jfiles, jfile);
    }
    json_t *root = json_pack("{s:o}", "files", jfiles);
    if (bad || !root) {
        json_decref(root);
        return -1;
    }
    nf_json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', out);
    json_decref(root);
    return 0;
}

/* One warning per function whose counts are unsure (mix.h: an x86
 * encoding capstone cannot decode, whose length is not known either). */
static void warn_unsure(struct nf_delf **files, size_t n, size_t nkeys, const struct nf_mix *mix,
                        const struct nf_dfunc **fn)
{
    for (size_t k = 0; k < nkeys; k++)
        for (size_t i = 0; i < n; i++)
            if (fn[k * n + i] && mix[k * n + i].unsure)
                nf_warn("insns: %s: '%s': bytes at 0x%llx that capstone cannot decode, of unknown "
                        "length; its counts from there on may be wrong",
                        files[i]->path, fn[k * n + i]->name,
                        (unsigned long long)mix[k * n + i].unsure_at);
}

int cmd_insns(int argc, char **argv)
{
    struct opts o = {0}; /* the table's defaults, by nf_cmd_parse */
    int first, rc;
    if (nf_cmd_parse("insns", &nf_cmd_insns_opts, &o, argc, argv, &first, &rc))
        goto out_opts;
    if (first >= argc) {
        nf_err("insns: no ELF file given (try 'noisefloor insns --help')");
        rc = NF_EXIT_USAGE;
        goto out_opts;
    }
    size_t n = (size_t)(argc - first);
    struct nf_delf **files = nf_xcalloc(n, sizeof(*files));
    struct nf_insns_key *keys = NULL;
    size_t nkeys = 0;
    struct nf_mix *mix = NULL;
    const struct nf_dfunc **fn = NULL;
    char err[NF_ERR_LEN];
    for (size_t i = 0; i < n; i++)
        if ((rc = nf_delf_open(argv[first + (int)i], &files[i], err, sizeof(err))))
            goto fail;
    if ((rc = nf_insns_select(files, n, o.funcs.v, o.funcs.n, (size_t)o.top, &keys, &nkeys, err,
                              sizeof(err))))
        goto fail;
    mix = nf_xcalloc(nkeys * n, sizeof(*mix));
    fn = nf_xcalloc(nkeys * n, sizeof(*fn));
    for (size_t k = 0; k < nkeys; k++)
        for (size_t i = 0; i < n; i++) {
            fn[k * n + i] = nf_delf_find(files[i], keys[k].name, keys[k].dup);
            if (fn[k * n + i] && (rc = nf_delf_mix(files[i], fn[k * n + i], o.patterns, o.npatterns,
                                                   &mix[k * n + i], err, sizeof(err))))
                goto fail;
        }
    warn_unsure(files, n, nkeys, mix, fn);
    errno = 0;
    if (o.json) {
        if (print_json(stdout, &o, files, n, nkeys, mix, fn)) {
            nf_err("insns: cannot build the JSON output");
            rc = NF_EXIT_FAIL;
            goto out;
        }
    } else {
        print_text(stdout, &o, files, n, keys, nkeys, mix, fn);
    }
    rc = NF_EXIT_OK;
    /* The listing is the result: a failed write (a full disk, /dev/full)
     * fails the command with the line every command gives. */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        nf_err("cannot write the output: %s", errno ? strerror(errno) : "write error");
        rc = NF_EXIT_FAIL;
    }
    goto out;
fail:
    nf_err("insns: %s", err);
    rc = nf_exit_code(rc);
out:
    for (size_t i = 0; mix && i < nkeys * n; i++)
        nf_mix_free(&mix[i]);
    free(mix);
    free(fn);
    free(keys);
    for (size_t i = 0; i < n; i++)
        nf_delf_close(files[i]);
    free(files);
out_opts:
    for (size_t i = 0; i < o.npatterns; i++)
        free(o.pattern_buf[i]);
    nf_optlist_free(&o.funcs);
    return rc;
}
