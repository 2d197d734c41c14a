/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: a worker lcore's entry point. It picks the worker's main
 * loop once, by RX mode (worker_loop_*.c); the loops call the stages
 * (worker.c), which call the hold buffer (worker_hold.c): the worker's
 * files import one another in that one direction.
 */
#include "worker_int.h"

/* One main loop per RX mode, chosen here once (worker_loop.h). */
int
hgw_worker_main(void *arg)
{
	struct hgw_worker *w = arg;

	wk_flush_pick(w);
	if (w->pace != HGW_PACE_OFF)
		return wk_loop_paced(w);
	if (w->rx_ring != NULL)
		return wk_loop_fanout(w);
	if (w->hold_on)
		return wk_loop_lines(w);
	return wk_loop_queue(w);
}
