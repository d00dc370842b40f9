/* From one repetition's records to profile entries: the records of all ring
 * buffers are merged by time and replayed, so that each sample is resolved
 * against the mappings its process had when it was taken (a process that
 * exec'd, or a child forked from one, included). */
#ifndef NF_PROFILE_RESOLVE_H
#define NF_PROFILE_RESOLVE_H

#include "profile/events.h"
#include "profile/profile.h"
#include "profile/symbols.h"

/* Sorts ev's records by time (ev is reordered), then adds every sample to
 * prof as (symbol, dso): user addresses through the mappings and the ELF
 * files' symbols, kernel addresses through kallsyms (or one "[kernel]"
 * symbol when it is hidden); an address nothing covers is "[unknown]" in
 * the dso that holds it (or "[unknown]" too).  A file is read for symbols
 * only when it is the one that was mapped (the pinned file, or the one at
 * its path: symbols.h); when neither is, its samples are "[unknown]" in
 * "PATH (replaced)" or "PATH (deleted)", and its table in syms says
 * changed.  ev->lost is added to prof->lost. */
void nf_prof_resolve(struct nf_prof_events *ev, struct nf_symcache *syms, struct nf_profile *prof);

#endif
