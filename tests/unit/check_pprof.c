// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The rbflame authors
/*
 * The pprof writer: the decompressed protobuf against a golden file (zlib
 * may change its bytes, protobuf's encoding does not), decoded again
 * with protobuf-c: string 0 is "", values add up to the samples, leaf
 * first, labels on timed samples.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "profile.pb-c.h"
#include "writer_fixture.h"

START_TEST(test_golden)
{
	struct profile *p = fixture_hostile();
	size_t len, plen;
	char *out = fixture_write(&output_pprof, p, &len);
	char *pb = fixture_gunzip(out, len, 0, &plen);
	Perftools__Profiles__Profile *pr;
	int64_t count = 0, ns = 0;
	size_t labelled = 0;

	ck_assert_uint_eq((unsigned char)out[0], 0x1f);
	fixture_golden("pprof.golden", pb, plen);
	pr = perftools__profiles__profile__unpack(NULL, plen,
						  (const uint8_t *)pb);
	ck_assert_ptr_nonnull(pr);
	ck_assert_str_eq(pr->string_table[0], "");
	ck_assert_uint_eq(pr->n_sample_type, 2);
	ck_assert_str_eq(pr->string_table[pr->sample_type[1]->type], "wall");
	ck_assert_int_eq(pr->period, 10000000);
	for (size_t i = 0; i < pr->n_sample; i++) {
		count += pr->sample[i]->value[0];
		ns += pr->sample[i]->value[1];
		labelled += pr->sample[i]->n_label > 0;
	}
	ck_assert_int_eq(count, 14);
	ck_assert_int_eq(ns, 14 * 10000000ll);
	ck_assert_uint_gt(labelled, 0);
	ck_assert_uint_eq(pr->n_location, p->nframes);
	ck_assert_uint_eq(pr->n_mapping, 2);
	perftools__profiles__profile__free_unpacked(pr, NULL);
	free(pb);
	free(out);
	profile_destroy(p);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("pprof");
	TCase *tc = tcase_create("writer");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_golden);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
