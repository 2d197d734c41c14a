/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the worker's main loop on its own RX queue (queues, mirror):
 * the production path, with nothing of the other modes in it.
 */
#include "worker_loop.h"

int
wk_loop_queue(struct hgw_worker *w)
{
	return wl_run(w, 0);
}
