/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the worker's main loop for paced replay ([replay] pace),
 * from an RX queue or the fanout ring, with or without held frames.
 */
#include "worker_loop.h"

int
wk_loop_paced(struct hgw_worker *w)
{
	if (w->rx_ring != NULL)
		return w->hold_on ? wl_run(w, WL_PACED | WL_RING | WL_HOLD) :
				    wl_run(w, WL_PACED | WL_RING);
	return w->hold_on ? wl_run(w, WL_PACED | WL_HOLD) :
			    wl_run(w, WL_PACED);
}
