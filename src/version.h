/* SPDX-License-Identifier: ISC */
/* version.h - the release number and the features compiled in. */
#ifndef NCPV_VERSION_H
#define NCPV_VERSION_H

#include <limits.h> /* any libc header: it defines __GLIBC__ on glibc */

#ifndef NCPV_VERSION
#define NCPV_VERSION "0.1.0"
#endif

/* target_clones dispatches through an ifunc, which glibc resolves at start-up and
 * musl does not (a static musl binary would jump to address 0). */
#if defined(__x86_64__) && defined(__GLIBC__) && !defined(NCPV_NO_TARGET_CLONES)
#define NCPV_TARGET_CLONES 1
#define NCPV_FEATURE_CLONES " avx2-clones"
#else
#define NCPV_FEATURE_CLONES ""
#endif

/* The Makefile adds what only it knows (link mode, sanitizers, the devtcp library),
 * through the generated build/.../features.h. */
#ifndef NCPV_BUILD_FEATURES
#define NCPV_BUILD_FEATURES ""
#endif

#ifndef NCPV_FEATURES
#define NCPV_FEATURES "epoll splice sendfile msg-trunc" NCPV_FEATURE_CLONES NCPV_BUILD_FEATURES
#endif

#endif
