/* A shared library loaded when first needed, not linked: libpq for a
 * PostgreSQL store (store/pq.h), capstone for insns (disasm/cs.h).  Each
 * keeps a table of the functions it calls, filled here by name; what a
 * program that never needs the library pays is nothing. */
#ifndef NF_CORE_DL_H
#define NF_CORE_DL_H

#include <stddef.h>

/* dlopen (RTLD_NOW | RTLD_LOCAL) the file $env names, or dflt when env is
 * unset or empty: the handle, with *name the file tried; or NULL with
 * *name set and the loader's reason in why. */
void *nf_dl_open(const char *env, const char *dflt, const char **name, char *why, size_t whylen);

/* The address of sym in h into *slot, storage for a function pointer; when
 * h has no sym, *slot is NULL and the first name missing is kept in
 * *missing. */
void nf_dl_sym(void *h, const char *sym, void *slot, const char **missing);

#endif
