/* SPDX-License-Identifier: ISC */
/* compare.c - two saved bench runs side by side (see compare.h). */
#include "compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "result.h"
#include "../stats.h"

/* The tests array of a bench document, or NULL. */
static const struct jvalue *tests_of(const struct jvalue *doc)
{
	const struct jvalue *t = jv_get(doc, "tests");

	return t != NULL && t->type == JV_ARRAY ? t : NULL;
}

static const struct jvalue *find_named(const struct jvalue *arr, const char *key, const char *name)
{
	for (size_t i = 0; arr != NULL && i < arr->n; i++)
		if (strcmp(jv_string(&arr->items[i], key, ""), name) == 0)
			return &arr->items[i];
	return NULL;
}

/* A run's rate and its key: schema 4 names the unit (bytes_per_s for the
 * stream test, transfers_per_s for files); 1 to 3 called it "value". With
 * neither, the name of 4 (for the error that says it is missing). */
static const char *rate_key(const struct jvalue *run, const char *test)
{
	const char *key = strcmp(test, "stream") == 0 ? "bytes_per_s" : "transfers_per_s";

	return jv_get(run, key) == NULL && jv_get(run, "value") != NULL ? "value" : key;
}

/* A test's setting under its schema-4 key, or its key of 1 to 3. */
static double setting(const struct jvalue *test, const char *key, const char *old)
{
	return jv_get(test, key) != NULL ? jv_number(test, key, -1) : jv_number(test, old, -1);
}

/* The values of a method's good runs (malloc'd into *v); returns the count. */
static size_t good_runs(const struct jvalue *method, const char *test, double **v)
{
	const struct jvalue *runs = jv_get(method, "runs");
	size_t n = 0;

	*v = NULL;
	if (runs == NULL || runs->type != JV_ARRAY || (*v = calloc(runs->n + 1, sizeof(double))) == NULL)
		return 0;
	for (size_t i = 0; i < runs->n; i++) {
		const struct jvalue *ok = jv_get(&runs->items[i], "ok");

		if (ok != NULL && ok->type == JV_TRUE)
			(*v)[n++] = jv_number(&runs->items[i], rate_key(&runs->items[i], test), 0);
	}
	return n;
}

static double median(double *v, size_t n)
{
	struct stats_summary s;
	double *copy = malloc((n + 1) * sizeof(double));

	if (copy == NULL)
		return 0;
	memcpy(copy, v, n * sizeof(double));
	stats_summarize(copy, n, &s);
	free(copy);
	return s.median;
}

static void fill(struct compare_row *row, const char *test, const struct jvalue *ma, const struct jvalue *mb,
		 double alpha)
{
	double *va = NULL, *vb = NULL;
	const struct jvalue *m = ma ? ma : mb;
	struct stats_test st;

	memset(row, 0, sizeof(*row));
	snprintf(row->test, sizeof(row->test), "%s", test);
	snprintf(row->method, sizeof(row->method), "%s", jv_string(m, "name", "?"));
	snprintf(row->unit, sizeof(row->unit), "%s", jv_string(m, "unit", ""));
	row->p = 1;
	row->na = ma ? good_runs(ma, test, &va) : 0;
	row->nb = mb ? good_runs(mb, test, &vb) : 0;
	row->median_a = row->na ? median(va, row->na) : 0;
	row->median_b = row->nb ? median(vb, row->nb) : 0;
	if (ma == NULL || row->na == 0)
		row->verdict = "only in B";
	else if (mb == NULL || row->nb == 0)
		row->verdict = "only in A";
	if (row->verdict != NULL)
		goto out;
	row->ratio = row->median_a > 0 ? row->median_b / row->median_a : 0;
	row->verdict = "too few runs";
	if (bench_min_p(row->na, row->nb) < alpha && stats_mann_whitney(vb, row->nb, va, row->na, &st) == 0) {
		row->p = st.p;
		row->verdict = st.p >= alpha ? "same" : row->median_b > row->median_a ? "faster" : "slower";
	}
out:
	free(va);
	free(vb);
}

static int is_type(const struct jvalue *v, enum jv_type type)
{
	return v != NULL && v->type == type;
}

/* One method of test (index ti): a name, a known unit and good runs with a
 * rate, so that a hand-edited or foreign file is not read as a 0 B/s run. */
static int check_method(const struct jvalue *m, size_t ti, const char *test, size_t mi, char *err, size_t errlen)
{
	const struct jvalue *runs = jv_get(m, "runs");
	const char *unit = strcmp(test, "stream") == 0 ? "B/s" : "transfers/s";

	if (!is_type(jv_get(m, "name"), JV_STRING) || !is_type(runs, JV_ARRAY)) {
		snprintf(err, errlen, "tests[%zu].methods[%zu] has no \"name\" or no \"runs\" array", ti, mi);
		return -1;
	}
	if (runs->n > 0 && strcmp(jv_string(m, "unit", ""), unit) != 0) {
		snprintf(err, errlen, "%s method %s: unit '%s', expected %s", test, jv_string(m, "name", ""),
			 jv_string(m, "unit", ""), unit);
		return -1;
	}
	for (size_t k = 0; k < runs->n; k++) {
		const char *key = rate_key(&runs->items[k], test);
		const struct jvalue *run = &runs->items[k], *ok = jv_get(run, "ok"), *v = jv_get(run, key);

		if (!is_type(ok, JV_TRUE) && !is_type(ok, JV_FALSE)) {
			snprintf(err, errlen, "%s method %s run %zu: \"ok\" is not true or false", test,
				 jv_string(m, "name", ""), k + 1);
			return -1;
		}
		if (ok->type == JV_TRUE && (!is_type(v, JV_NUMBER) || !(v->number >= 0))) {
			snprintf(err, errlen, "%s method %s run %zu: \"%s\" is not a rate of 0 or more", test,
				 jv_string(m, "name", ""), k + 1, key);
			return -1;
		}
	}
	return 0;
}

/* A bench document this version can read: schema_version absent (the first
 * format, same fields) or 1..BENCH_SCHEMA_VERSION, tests named once each. */
static int check_doc(const struct jvalue *doc, char *err, size_t errlen)
{
	const struct jvalue *t = tests_of(doc), *ver = jv_get(doc, "schema_version");

	if (t == NULL) {
		snprintf(err, errlen, "is not the JSON of ncpv bench --json (no \"tests\" array)");
		return -1;
	}
	if (ver != NULL && (ver->type != JV_NUMBER || ver->number < 1 || ver->number != (double)(int)ver->number)) {
		snprintf(err, errlen, "is not the JSON of ncpv bench --json (schema_version is not 1, 2, ...)");
		return -1;
	}
	if (ver != NULL && ver->number > BENCH_SCHEMA_VERSION) {
		snprintf(err, errlen, "was written by a newer ncpv (schema_version %d; this one reads up to %d)",
			 (int)ver->number, BENCH_SCHEMA_VERSION);
		return -1;
	}
	for (size_t i = 0; i < t->n; i++) {
		const char *test = jv_string(&t->items[i], "test", "");
		const struct jvalue *ms = jv_get(&t->items[i], "methods");
		char detail[200] = "";

		if (strcmp(test, "stream") != 0 && strcmp(test, "files") != 0)
			snprintf(detail, sizeof(detail), "tests[%zu] is neither the stream nor the files test", i);
		else if (find_named(t, "test", test) != &t->items[i])
			snprintf(detail, sizeof(detail), "the %s test is there twice", test);
		else if (!is_type(ms, JV_ARRAY))
			snprintf(detail, sizeof(detail), "the %s test has no \"methods\" array", test);
		for (size_t k = 0; detail[0] == 0 && k < ms->n; k++)
			if (check_method(&ms->items[k], i, test, k, detail, sizeof(detail)) < 0)
				break;
		if (detail[0]) {
			snprintf(err, errlen, "is not the JSON of ncpv bench --json (%s)", detail);
			return -1;
		}
	}
	return 0;
}

/* "what: A's, B's" into buf (after "; " when buf holds something) */
static void differs(char *buf, size_t len, const char *what, const char *va, const char *vb)
{
	size_t used = strlen(buf);

	if (strcmp(va, vb) != 0 && used < len)
		snprintf(buf + used, len - used, "%s%s %s in A, %s in B", used ? "; " : "", what, va, vb);
}

void compare_setup(const struct jvalue *a, const struct jvalue *b, char *buf, size_t len)
{
	/* Test, key (schema 4), key of 1 to 3, the setting's name. */
	static const char *const keys[][4] = { { "stream", "duration_s", "duration", "duration" },
					       { "files", "count", "count", "count" },
					       { "files", "size_bytes", "size", "size" } };
	const struct jvalue *ta = tests_of(a), *tb = tests_of(b);

	buf[0] = 0;
	for (int side = 0; side < 2; side++)
		if (is_type(jv_get(side ? b : a, "interrupted"), JV_TRUE)) {
			size_t used = strlen(buf);

			snprintf(buf + used, len - used, "%s%s was interrupted: partial results", used ? "; " : "",
				 side ? "B" : "A");
		}
	differs(buf, len, "path", jv_string(a, "path", "?"), jv_string(b, "path", "?"));
	differs(buf, len, "server", jv_string(a, "server", "?"), jv_string(b, "server", "?"));
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		const struct jvalue *xa = find_named(ta, "test", keys[k][0]), *xb = find_named(tb, "test", keys[k][0]);
		char va[32], vb[32], what[32];

		if (xa == NULL || xb == NULL)
			continue;
		snprintf(va, sizeof(va), "%g", setting(xa, keys[k][1], keys[k][2]));
		snprintf(vb, sizeof(vb), "%g", setting(xb, keys[k][1], keys[k][2]));
		snprintf(what, sizeof(what), "%s %s", keys[k][0], keys[k][3]);
		differs(buf, len, what, va, vb);
	}
}

int compare_runs(const struct jvalue *a, const struct jvalue *b, double alpha, struct compare_row *rows,
		 size_t max, int *more, char *err, size_t errlen)
{
	const struct jvalue *ta = tests_of(a), *tb = tests_of(b);
	size_t n = 0;

	*more = 0;
	for (int side = 0; side < 2; side++)
		if (check_doc(side ? b : a, err + 2, errlen > 2 ? errlen - 2 : 0) < 0) {
			err[0] = side ? 'B' : 'A';
			err[1] = ' ';
			return -1;
		}
	/* A's tests and methods in A's order, then what only B has. */
	for (int side = 0; side < 2; side++) {
		const struct jvalue *mine = side ? tb : ta, *other = side ? ta : tb;

		for (size_t i = 0; i < mine->n; i++) {
			const char *test = jv_string(&mine->items[i], "test", "?");
			const struct jvalue *ot = find_named(other, "test", test);
			const struct jvalue *ms = jv_get(&mine->items[i], "methods"), *om = jv_get(ot, "methods");

			for (size_t k = 0; ms != NULL && ms->type == JV_ARRAY && k < ms->n; k++) {
				const struct jvalue *m = &ms->items[k];
				const struct jvalue *o = find_named(om, "name", jv_string(m, "name", ""));

				if (side == 1 && o != NULL)
					continue; /* already a row from A's side */
				if (n == max) {
					*more = 1;
					return (int)n;
				}
				fill(&rows[n++], test, side ? o : m, side ? m : o, alpha);
			}
		}
	}
	return (int)n;
}
