/* The version string lives in this one object, which the Makefile rebuilds
 * whenever `git describe` changes: were it compiled into every object that
 * prints it, objects built at different commits would disagree within one
 * binary (--version saying one thing, the environment stored with a run
 * another). */
#include "core/version.h"

#ifndef NF_VERSION
#define NF_VERSION "0.1"
#endif

const char nf_version[] = NF_VERSION;
