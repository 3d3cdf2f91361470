/* SPDX-License-Identifier: ISC */
/* compare.c - two saved bench runs side by side (see compare.h). */
#include "compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The values of a method's good runs (malloc'd into *v); returns the count. */
static size_t good_runs(const struct jvalue *method, double **v)
{
	const struct jvalue *runs = jv_get(method, "runs");
	size_t n = 0;

	*v = NULL;
	if (runs == NULL || runs->type != JV_ARRAY || (*v = calloc(runs->n + 1, sizeof(double))) == NULL)
		return 0;
	for (size_t i = 0; i < runs->n; i++) {
		const struct jvalue *ok = jv_get(&runs->items[i], "ok");

		if (ok != NULL && ok->type == JV_TRUE)
			(*v)[n++] = jv_number(&runs->items[i], "value", 0);
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
	row->na = ma ? good_runs(ma, &va) : 0;
	row->nb = mb ? good_runs(mb, &vb) : 0;
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

int compare_runs(const struct jvalue *a, const struct jvalue *b, double alpha, struct compare_row *rows,
		 size_t max, int *more, char *err, size_t errlen)
{
	const struct jvalue *ta = tests_of(a), *tb = tests_of(b);
	size_t n = 0;

	*more = 0;
	if (ta == NULL || tb == NULL) {
		snprintf(err, errlen, "%s is not the JSON of ncpv bench --json (no \"tests\")", ta ? "B" : "A");
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
