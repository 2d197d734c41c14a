/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: minimal unit-test harness printing TAP.
 *
 * HGW_CHECK(cond) records a failure with file:line and carries on;
 * HGW_TEST(fn) runs one test function and prints "ok N - fn" or
 * "not ok N - fn"; hgw_test_done() prints the plan and returns the exit
 * status for main (1 if anything failed).
 */
#ifndef HGW_TEST_H
#define HGW_TEST_H

#include <inttypes.h>
#include <stdio.h>

static int hgw_test_failures;   /* checks failed in the current test */
static int hgw_test_count;      /* tests run */
static int hgw_test_failed;     /* tests failed */

#define HGW_CHECK(cond) do {                                              \
	if (!(cond)) {                                                    \
		hgw_test_failures++;                                      \
		printf("# %s:%d: check failed: %s\n", __FILE__, __LINE__, \
		       #cond);                                            \
	}                                                                 \
} while (0)

#define HGW_CHECK_EQ(a, b) do {                                           \
	uint64_t hgw_a_ = (uint64_t)(a), hgw_b_ = (uint64_t)(b);          \
	if (hgw_a_ != hgw_b_) {                                           \
		hgw_test_failures++;                                      \
		printf("# %s:%d: %s == %s failed: %" PRIu64 " != %"      \
		       PRIu64 "\n", __FILE__, __LINE__, #a, #b, hgw_a_,   \
		       hgw_b_);                                           \
	}                                                                 \
} while (0)

#define HGW_TEST(fn) do {                                                 \
	hgw_test_failures = 0;                                            \
	fn();                                                             \
	hgw_test_count++;                                                 \
	if (hgw_test_failures) hgw_test_failed++;                         \
	printf("%sok %d - %s\n", hgw_test_failures ? "not " : "",         \
	       hgw_test_count, #fn);                                      \
} while (0)

static inline int hgw_test_done(void)
{
	printf("1..%d\n", hgw_test_count);
	return hgw_test_failed ? 1 : 0;
}

#endif /* HGW_TEST_H */
