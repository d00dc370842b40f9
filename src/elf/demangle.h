/* C++ symbol names as people read them: `_ZN3foo3barEi` shown as
 * `foo::bar(int)`, as perf report and objdump -C show them.
 *
 * Demangling is for display only: stored profiles, the pairing of
 * symbols in profdiff and insns --func keep the names in the file.  The
 * demangler is libstdc++'s __cxa_demangle (the one g++ itself uses, kept
 * up with the ABI), loaded with dlopen the first time a mangled name is
 * shown, as capstone is (disasm/cs.h): nothing to build against, nothing
 * paid by a process that shows no C++ name.  Without libstdc++, names
 * stay as they are. */
#ifndef NF_ELF_DEMANGLE_H
#define NF_ELF_DEMANGLE_H

/* The demangled form of sym (malloc'd), or NULL when sym is not a mangled
 * C++ name (Itanium ABI: "_Z...") or cannot be demangled here. */
char *nf_demangle(const char *sym);

/* sym demangled, else sym: a name to show.  *tofree is what to free
 * afterwards (NULL when sym itself is returned). */
const char *nf_demangle_show(const char *sym, char **tofree);

#endif
