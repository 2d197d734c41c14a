/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the worker's main loop on one or two lines ([feed] lines,
 * [recovery]): frames past a sequence gap are held until it is filled.
 */
#include "worker_loop.h"

int
wk_loop_lines(struct hgw_worker *w)
{
	return wl_run(w, WL_HOLD);
}
