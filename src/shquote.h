/* SPDX-License-Identifier: ISC */
/* shquote.h - the one way a user's string goes into a shell command line
 * (POSIX single quotes), and a small model of sh's word splitting that
 * checks quoted lines parse back to exactly the intended words. Pure. */
#ifndef NCPV_SHQUOTE_H
#define NCPV_SHQUOTE_H

#include <stddef.h>

/* Write s into out as one shell word that sh and bash read back as exactly
 * s: left bare when every byte is in [A-Za-z0-9_@%+:,./-] (and s is not
 * empty), else in single quotes with each ' written '\''. Returns the
 * length the word needs (as snprintf); out holds it when that is < len. */
size_t shq_quote(const char *s, char *out, size_t len);

/* Split line as sh would, for the subset shq_quote produces: words of bare
 * [A-Za-z0-9_@%+:,./-] bytes, '...' quotes and backslash escapes, separated
 * by spaces or tabs. Anything else sh would act on ($ ` ; | & < > ( ) * ? [
 * ~ = # " and the rest, or a backslash before a newline) makes it return
 * -1: such a line may run more than plain words. The words go into buf
 * (NUL-separated) and up to maxwords pointers into it go into words.
 * Returns the word count, or -1 (also when buf or words are too small). */
int shq_split(const char *line, char *buf, size_t buflen, char **words, int maxwords);

#endif
