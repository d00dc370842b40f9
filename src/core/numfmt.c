/* Shortest exact numbers (core/numfmt.h). */
#include "core/numfmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *nf_num_shortest(char buf[NF_NUM_LEN], double v)
{
    /* The fewest significant digits p that read back as v; then, as
     * Python's repr, plain notation for decimal exponents from -4 to 15
     * (100, not %.1g's 1e+02) and exponent notation outside them. */
    int p = 1;
    for (; p < 17; p++) {
        snprintf(buf, NF_NUM_LEN, "%.*e", p - 1, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    snprintf(buf, NF_NUM_LEN, "%.*e", p - 1, v);
    int x = atoi(strchr(buf, 'e') + 1);
    if (x >= -4 && x < 16)
        snprintf(buf, NF_NUM_LEN, "%.*f", p - 1 - x > 0 ? p - 1 - x : 0, v);
    return buf;
}

/* The JSON text of a real as jansson would print it, shortest: no '+' in
 * the exponent, no leading zeros in it, ".0" on an integral value. */
static size_t json_real_text(char out[NF_NUM_LEN], double v)
{
    char buf[NF_NUM_LEN];
    nf_num_shortest(buf, v);
    size_t n = 0;
    const char *e = strchr(buf, 'e');
    size_t mant = e ? (size_t)(e - buf) : strlen(buf);
    memcpy(out, buf, mant);
    n = mant;
    if (!memchr(buf, '.', mant) && !e) {
        memcpy(out + n, ".0", 2);
        n += 2;
    }
    if (e) {
        out[n++] = 'e';
        e++;
        if (*e == '+')
            e++;
        else if (*e == '-')
            out[n++] = *e++;
        while (*e == '0' && e[1])
            e++;
        while (*e)
            out[n++] = *e++;
    }
    out[n] = '\0';
    return n;
}

/* jansson hands each number to the callback as one piece of its own, and
 * a string as several (its quotes among them).  So the state of the text
 * so far (inside a string, after a backslash) says whether a piece that
 * looks like a number is one. */
struct shorten {
    json_dump_callback_t cb;
    void *data;
    int in_string, escaped;
};

static int is_real_token(const char *buf, size_t n)
{
    if (n == 0 || n >= NF_NUM_LEN || !(buf[0] == '-' || (buf[0] >= '0' && buf[0] <= '9')))
        return 0;
    int real = 0;
    for (size_t i = 0; i < n; i++) {
        char c = buf[i];
        if (c == '.' || c == 'e' || c == 'E')
            real = 1;
        else if (!(c == '-' || c == '+' || (c >= '0' && c <= '9')))
            return 0;
    }
    return real;
}

static int shorten_cb(const char *buf, size_t n, void *data)
{
    struct shorten *s = data;
    if (!s->in_string && is_real_token(buf, n)) {
        char tok[NF_NUM_LEN], out[NF_NUM_LEN];
        memcpy(tok, buf, n);
        tok[n] = '\0';
        char *end;
        double v = strtod(tok, &end);
        if (*end == '\0') {
            size_t m = json_real_text(out, v);
            return s->cb(out, m, s->data);
        }
    }
    /* In a string, DEL and the C1 controls (U+0080..U+009F, two bytes
     * in UTF-8) as \u escapes, as jansson writes C0: JSON printed on a
     * terminal does not act on it (jansson cuts a string's pieces between
     * characters, never inside one). */
    size_t from = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)buf[i], d = i + 1 < n ? (unsigned char)buf[i + 1] : 0;
        size_t ctl = !s->in_string || s->escaped           ? 0
                     : c == 0x7f                           ? 1
                     : c == 0xc2 && d >= 0x80 && d <= 0x9f ? 2
                                                           : 0;
        if (ctl) {
            char esc[8];
            snprintf(esc, sizeof(esc), "\\u%04X", ctl == 1 ? c : d);
            if ((i > from && s->cb(buf + from, i - from, s->data)) || s->cb(esc, 6, s->data))
                return -1;
            i += ctl - 1;
            from = i + 1;
        } else if (s->escaped)
            s->escaped = 0;
        else if (s->in_string && buf[i] == '\\')
            s->escaped = 1;
        else if (buf[i] == '"')
            s->in_string = !s->in_string;
    }
    return s->cb(buf + from, n - from, s->data);
}

int nf_json_dump_callback(const json_t *j, json_dump_callback_t cb, void *data, size_t flags)
{
    struct shorten s = {.cb = cb, .data = data};
    return json_dump_callback(j, shorten_cb, &s, flags);
}

static int file_cb(const char *buf, size_t n, void *data)
{
    return fwrite(buf, 1, n, data) == n ? 0 : -1;
}

int nf_json_dumpf(const json_t *j, FILE *out, size_t flags)
{
    return nf_json_dump_callback(j, file_cb, out, flags);
}
