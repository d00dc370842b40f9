/* core/numfmt: the shortest text that reads back as the same double, and
 * JSON with every real in that form. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/numfmt.h"

static void test_known(void **st)
{
    (void)st;
    char b[NF_NUM_LEN];
    /* The forms Python's repr() gives these (its float repr is the
     * shortest that reads back), in C's %g spelling. */
    assert_string_equal(nf_num_shortest(b, 0.05), "0.05");
    assert_string_equal(nf_num_shortest(b, 0.1 + 0.2), "0.30000000000000004");
    assert_string_equal(nf_num_shortest(b, 1.0 / 3.0), "0.3333333333333333");
    assert_string_equal(nf_num_shortest(b, 2.0 / 3.0), "0.6666666666666666");
    assert_string_equal(nf_num_shortest(b, 1e-9), "1e-09");
    assert_string_equal(nf_num_shortest(b, 123456789012345680.0), "1.2345678901234568e+17");
    assert_string_equal(nf_num_shortest(b, 5e-324), "5e-324");
    assert_string_equal(nf_num_shortest(b, 1.7976931348623157e308), "1.7976931348623157e+308");
    assert_string_equal(nf_num_shortest(b, 42.0), "42");
    assert_string_equal(nf_num_shortest(b, -0.0), "-0");
    assert_string_equal(nf_num_shortest(b, 2.5e-6), "2.5e-06");
    /* Plain notation for exponents -4 to 15, as repr() (which adds ".0"
     * to an integral value; nf_num_shortest does not). */
    assert_string_equal(nf_num_shortest(b, 100.0), "100");
    assert_string_equal(nf_num_shortest(b, 110.0), "110");
    assert_string_equal(nf_num_shortest(b, 0.0001), "0.0001");
    assert_string_equal(nf_num_shortest(b, 0.00001), "1e-05");
    assert_string_equal(nf_num_shortest(b, 1e15), "1000000000000000");
    assert_string_equal(nf_num_shortest(b, 1e16), "1e+16");
    assert_string_equal(nf_num_shortest(b, 123456.789), "123456.789");
    assert_string_equal(nf_num_shortest(b, 1234567890123456.8), "1234567890123456.8");
    assert_string_equal(nf_num_shortest(b, -2.5e-5), "-2.5e-05");
    assert_string_equal(nf_num_shortest(b, 1e22), "1e+22");
    assert_string_equal(nf_num_shortest(b, 0.0), "0");
}

/* For doubles of every magnitude (random bit patterns, a fixed seed): the
 * text reads back as the same double, and one digit fewer would not. */
static void test_random_exact_and_shortest(void **st)
{
    (void)st;
    uint64_t x = 0x9e3779b97f4a7c15u;
    char b[NF_NUM_LEN], shorter[400];
    int tested = 0;
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        double v;
        memcpy(&v, &x, sizeof(v));
        if (!isfinite(v))
            continue;
        nf_num_shortest(b, v);
        assert_true(strtod(b, NULL) == v);
        /* Significant digits: those of the mantissa, without leading
         * zeros, nor trailing ones when it has no point (100 has one). */
        char dig[NF_NUM_LEN];
        int nd = 0, point = 0;
        for (const char *p = b; *p && *p != 'e'; p++) {
            point |= *p == '.';
            if (*p >= '0' && *p <= '9' && (nd || *p != '0'))
                dig[nd++] = *p;
        }
        while (!point && nd > 1 && dig[nd - 1] == '0')
            nd--;
        int digits = nd;
        /* Exponent notation exactly outside the exponents -4 to 15. */
        int x = (int)floor(log10(fabs(v)));
        if (v != 0 && fabs(v) >= 1e-300)
            assert_int_equal(strchr(b, 'e') != NULL, x < -4 || x >= 16);
        if (digits > 1) {
            snprintf(shorter, sizeof(shorter), "%.*g", digits - 1, v);
            assert_false(strtod(shorter, NULL) == v);
        }
        tested++;
    }
    assert_true(tested > 19000);
}

static char *dump(const json_t *j, size_t flags)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(nf_json_dumpf(j, f, flags), 0);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static void test_json(void **st)
{
    (void)st;
    json_t *j = json_pack("{s:f, s:f, s:f, s:f, s:f, s:i, s:s, s:[f, f]}", "alpha", 0.05, "one",
                          1.0, "big", 1e20, "tiny", -2.5e-10, "neg0", -0.0, "n", 3, "text",
                          "0.050000000000000003 \"1.5\" \\ 0.1", "a\"b\\", 0.1, 1e300);
    assert_non_null(j);
    char *s = dump(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    /* Reals shortest (an integral one keeps ".0", exponents as jansson
     * spells them); an integer, a string that holds numbers and a key with
     * escapes as they were. */
    assert_string_equal(s, "{\"a\\\"b\\\\\":[0.1,1e300],\"alpha\":0.05,\"big\":1e20,"
                           "\"n\":3,\"neg0\":-0.0,\"one\":1.0,"
                           "\"text\":\"0.050000000000000003 \\\"1.5\\\" \\\\ 0.1\","
                           "\"tiny\":-2.5e-10}");
    /* What jansson reads back is the same, bit for bit. */
    json_error_t e;
    json_t *back = json_loads(s, 0, &e);
    assert_non_null(back);
    assert_true(json_equal(j, back));
    assert_true(json_real_value(json_object_get(back, "alpha")) == 0.05);
    assert_true(signbit(json_real_value(json_object_get(back, "neg0"))));
    json_decref(back);
    free(s);
    /* Indented: the same numbers, jansson's layout. */
    s = dump(json_object_get(j, "a\"b\\"), JSON_INDENT(2));
    assert_string_equal(s, "[\n  0.1,\n  1e300\n]");
    free(s);
    json_decref(j);
}

/* Control characters in strings, keys too, are escaped: C0 by jansson,
 * DEL and C1 (U+009B is a terminal's CSI) on the way out; other text, a
 * no-break space (U+00A0) and a 1.5 in a string among them, is kept. */
static void test_json_controls(void **st)
{
    (void)st;
    json_t *j = json_pack("{s:s, s:f}", "l\x7f",
                          "a\x1b[1m\xc2\x9b"
                          "2J\xc2\x80\xc2\xa0 1.5",
                          "k\xc2\x85", 1.5);
    char *s = dump(j, JSON_COMPACT | JSON_SORT_KEYS);
    assert_string_equal(s, "{\"k\\u0085\":1.5,\"l\\u007F\":\"a\\u001B[1m\\u009B2J\\u0080\xc2\xa0 "
                           "1.5\"}");
    json_error_t e;
    json_t *back = json_loads(s, 0, &e);
    assert_non_null(back);
    assert_true(json_equal(j, back));
    json_decref(back);
    free(s);
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known),
        cmocka_unit_test(test_random_exact_and_shortest),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_json_controls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
