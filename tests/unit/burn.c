/* burn_cpu_ms (tests/unit/burn.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../helpers/burn.h"
#include "burn.h"

__attribute__((noinline)) void burn_cpu_ms(double ms)
{
    if (nf_burn_ms(ms))
        fail_msg("no thread CPU clock (CLOCK_THREAD_CPUTIME_ID) here");
}
