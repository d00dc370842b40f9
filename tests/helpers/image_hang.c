/* image_hang.so: LD_PRELOADed by tests/e2e/t_image.sh.  In a workload's
 * image (argv[1] starts with --nf-image) it never returns from its
 * constructor, so the image is never ready: only the run's --timeout can
 * end it.  Any other process it leaves alone. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__attribute__((constructor)) static void hang_in_image(void)
{
    char buf[256] = {0};
    FILE *f = fopen("/proc/self/cmdline", "re");
    if (!f)
        return;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    const char *arg1 = memchr(buf, 0, n); /* argv[0] ends here */
    if (arg1 && strncmp(arg1 + 1, "--nf-image", 10) == 0)
        for (;;)
            pause();
}
