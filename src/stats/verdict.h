/* TEMPORARY: replaced by the statistics module. */
#ifndef NF_STATS_VERDICT_H
#define NF_STATS_VERDICT_H
enum nf_better { NF_BETTER_LOWER = 0, NF_BETTER_HIGHER = 1 };
#endif
