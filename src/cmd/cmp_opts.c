#include "cmd/cmp_opts.h"

#include "core/util.h"

struct nf_cmp_opts nf_cmp_defaults(void)
{
    return (struct nf_cmp_opts){0.05, 1.0, NF_TEST_WELCH, 1, 0};
}

int nf_cmp_option(const char *cmd, int c, const char *arg, struct nf_cmp_opts *co)
{
    long seed;
    switch (c) {
    case NF_OPT_ALPHA:
        if (nf_parse_double(arg, &co->alpha) || co->alpha <= 0 || co->alpha >= 0.5) {
            nf_err("%s: --alpha must be in (0, 0.5), not '%s'", cmd, arg);
            return -1;
        }
        return 1;
    case NF_OPT_THRESHOLD:
        if (nf_parse_double(arg, &co->threshold_pct) || co->threshold_pct <= 0 ||
            co->threshold_pct >= 100) {
            nf_err("%s: --threshold must be a percentage in (0, 100), not '%s'", cmd, arg);
            return -1;
        }
        return 1;
    case NF_OPT_TEST:
        if (nf_test_parse(arg, &co->test)) {
            nf_err("%s: --test must be welch, utest or bootstrap, not '%s'", cmd, arg);
            return -1;
        }
        return 1;
    case NF_OPT_SEED:
        if (nf_parse_long(arg, 0, 0x7fffffffL, &seed)) {
            nf_err("%s: --seed wants a non-negative integer, not '%s'", cmd, arg);
            return -1;
        }
        co->seed = (unsigned long)seed;
        return 1;
    default:
        return 0;
    }
}
