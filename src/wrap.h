/* SPDX-License-Identifier: ISC */
/* wrap.h - a summary's clauses laid out in lines no wider than a terminal: breaks fall between
 * clauses, never inside one, and a line after the first is indented by two spaces. Pure. */
#ifndef NCPV_WRAP_H
#define NCPV_WRAP_H

#include <stddef.h>

#define WRAP_INDENT "  "

/* The n clauses (empty ones skipped) joined by single spaces into out (cut to len,
 * NUL-terminated, no final newline), with a newline and WRAP_INDENT instead of the space
 * where the next clause would take the line past width columns (bytes: the summaries are
 * ASCII but for names, which count a column a byte, never fewer than a terminal shows). A
 * clause wider than width alone still takes a line of its own. Returns out. */
char *wrap_clauses(char *out, size_t len, const char *const *clauses, size_t n, size_t width);

/* "" for 1 and "s" for every other count: "1 connection", "2 connections". */
const char *wrap_s(unsigned long long n);

#endif
