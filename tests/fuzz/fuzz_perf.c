// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the perf.data reader (userspace/lib/perfdata.c)
 * and the replay of its records.
 *
 * Beyond "no crash, no sanitizer report", every input is checked against
 * what perfdata.h promises:
 *  - the result is -1, 0 or 1; the message is "fuzz: ..." unless 0;
 *  - the events are in time order when every one is timed; each mmap's
 *    range is non-empty and within 64 bits; each name is NUL-terminated
 *    within its length;
 *  - replaying them leaves every process's mappings non-empty, in order
 *    and disjoint, whatever the records said; and each replayed at once
 *    equals replayed in two steps;
 *  - every mapping prints as a maps line that the pmaps parser reads back.
 * Any violation aborts, which libFuzzer reports as a crash.
 *
 * Build (tests/fuzz/run.sh does this):
 *   clang -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
 *	-Iuserspace/lib tests/fuzz/fuzz_perf.c userspace/lib/\*.c
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata.h"
#include "pmaps.h"
#include "fuzz_check.h"

static void check_data(const struct pmaps_perf_data *d)
{
	size_t i;

	for (i = 0; i < d->nr_events; i++) {
		const struct pmaps_perf_event *ev = &d->events[i];

		if (d->timed && i)
			check(d->events[i - 1].time <= ev->time);
		if (ev->kind == PMAPS_PERF_EV_MMAP) {
			check(ev->len && ev->len <= UINT64_MAX - ev->start);
			check(ev->name);
		}
		if (ev->name)
			check(ev->name[ev->name_len] == '\0' &&
			      strlen(ev->name) <= ev->name_len);
	}
}

/* Every process's mappings: non-empty, in order, disjoint. */
static void check_model(const struct pmaps_perf_model *m, FILE *out)
{
	size_t i, j;

	for (i = 0; i < m->nr_procs; i++) {
		const struct pmaps_perf_proc *p = &m->procs[i];

		for (j = 0; j < p->nr_maps; j++) {
			check(p->maps[j].start < p->maps[j].end);
			check(!j || p->maps[j - 1].end <= p->maps[j].start);
			check(strlen(p->maps[j].perms) == 4);
			if (out)
				pmaps_perf_print_maps_line(out, &p->maps[j]);
		}
	}
}

static char *maps_text(const struct pmaps_perf_model *m, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	check(f);
	check_model(m, f);
	check(!fclose(f));
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pmaps_perf_data d;
	struct pmaps_perf_model m, m2;
	char err[512];
	char *a, *b;
	size_t alen, blen;
	int ret;

	memset(err, 'x', sizeof(err));
	ret = pmaps_perf_parse(data, size, "fuzz", &d, err, sizeof(err));
	check(ret >= -1 && ret <= 1);
	check(memchr(err, '\0', sizeof(err)));
	check(ret ? !strncmp(err, "fuzz: ", 6) : !err[0]);
	if (ret < 0) {
		pmaps_perf_data_free(&d);
		return 0;
	}
	check_data(&d);

	pmaps_perf_model_init(&m, &d);
	if (pmaps_perf_replay(&m, UINT64_MAX, NULL, NULL) == 0) {
		a = maps_text(&m, &alen);
		/* what is printed, the parser reads: one process at a time */
		for (size_t i = 0; i < m.nr_procs; i++) {
			struct pmaps_perf_model one = m;
			struct pmaps_map map;
			char err[256];
			char *t;
			size_t tlen;
			int ret;

			one.procs = &m.procs[i];
			one.nr_procs = 1;
			t = maps_text(&one, &tlen);
			/* in this host's pages, as pmaps perf reads it */
			ret = pmaps_parse_buf_as(t, tlen, "fuzz",
						 pmaps_page_size(), &map, err,
						 sizeof(err));
			if (ret)
				fprintf(stderr, "reparse: %s\n", err);
			check(!ret);
			check(map.nr_vmas == m.procs[i].nr_maps);
			pmaps_map_free(&map);
			free(t);
		}
		/* in two steps, the same */
		pmaps_perf_model_init(&m2, &d);
		if (d.nr_events && d.timed &&
		    !pmaps_perf_replay(&m2, d.events[d.nr_events / 2].time,
				       NULL, NULL) &&
		    !pmaps_perf_replay(&m2, UINT64_MAX, NULL, NULL)) {
			b = maps_text(&m2, &blen);
			check(alen == blen && !memcmp(a, b, alen));
			free(b);
		}
		pmaps_perf_model_free(&m2);
		free(a);
	}
	pmaps_perf_model_free(&m);
	pmaps_perf_data_free(&d);
	return 0;
}
