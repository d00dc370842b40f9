/* The version of this build, as `git describe` gave it when the binary was
 * made ("0.1" outside a git checkout). */
#ifndef NF_CORE_VERSION_H
#define NF_CORE_VERSION_H

extern const char nf_version[];

#endif
