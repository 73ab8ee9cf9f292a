/*
 * icount-loop N: a guest program whose instruction count is known. It runs a
 * loop of exactly two instructions (subs, b.ne) N times, so the counts of two
 * runs whose N differ by D differ by exactly 2*D. N is read digit by digit
 * without libc, so runs whose N have the same number of digits run the same
 * instructions outside the loop. The plugin test (test-plugin.sh) relies on it.
 */

static unsigned long spin(unsigned long n)
{
    __asm__ volatile("1:\n\t"
                     "subs %0, %0, #1\n\t"
                     "b.ne 1b"
                     : "+r"(n)
                     :
                     : "cc");
    return n;
}

int main(int argc, char **argv)
{
    unsigned long n = 0;
    if (argc != 2 || argv[1][0] == '\0')
        return 2;
    for (const char *p = argv[1]; *p != '\0'; p++) {
        if (*p < '0' || *p > '9')
            return 2;
        n = n * 10 + (unsigned long)(*p - '0');
    }
    if (n == 0)
        return 2;
    return (int)spin(n); /* 0 */
}
