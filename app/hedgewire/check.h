/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire --check: the host preflight for this configuration.
 */
#ifndef HGW_APP_CHECK_H
#define HGW_APP_CHECK_H

#include <stdint.h>

#include "config.h"

/* Reports every host item for the lcores the EAL was given and the
 * ports the configuration uses, then spins stall_ms on the worker
 * lcores' cpus (0: not measured). Trades nothing, configures no port.
 * Returns the exit status: 1 when an item failed, else 0. */
int hgw_check_run(const struct hgw_config *c, uint32_t stall_ms);

#endif /* HGW_APP_CHECK_H */
