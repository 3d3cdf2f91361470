/* version.h - the release number and the features compiled in. */
#ifndef NCPV_VERSION_H
#define NCPV_VERSION_H

#ifndef NCPV_VERSION
#define NCPV_VERSION "0.1.0"
#endif

#ifndef NCPV_FEATURES
#define NCPV_FEATURES "epoll splice sendfile msg-trunc"
#endif

#endif
