/* The defaults that several places share, each under one name: the option
 * tables show them in --help (the row's NF_DEF, core/options.h) and the
 * code that applies them uses the same name, so that --help, the parse
 * and the man page cannot drift apart (benchstat keeps its thresholds in
 * one DefaultThresholds; perf's bench_repeat is one commented variable).
 * A default only one table uses is written in its row alone. */
#ifndef NF_CORE_DEFAULTS_H
#define NF_CORE_DEFAULTS_H

/* Repetitions of a run (run -r/--repeat): perf stat --repeat's customary
 * 10, enough for a mean and a spread, few enough to run twice. */
#define NF_DEFAULT_REPEAT 10

/* Repetitions run first and not counted (run --warmup): one, for the
 * caches and the page cache a first repetition fills. */
#define NF_DEFAULT_WARMUP 1

/* The significance level (compare, ab, report, profdiff --alpha; the
 * confidence of every interval shown, 1 - alpha): 0.05, a 95% CI. */
#define NF_DEFAULT_ALPHA 0.05

/* The equivalence margin in percent (compare, ab, report --threshold): a
 * change whose CI lies inside +-1% is "equivalent" (doc/statistics.md). */
#define NF_DEFAULT_THRESHOLD_PCT 1

/* Text for a default: NF_STR(NF_DEFAULT_REPEAT) is "10". */
#define NF_STR_(x) #x
#define NF_STR(x) NF_STR_(x)

#endif
