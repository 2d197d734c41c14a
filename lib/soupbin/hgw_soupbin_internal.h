/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: the SoupBinTCP client session, inside the library.
 *
 * Internal: included by the library's own .c files only, never by users
 * of hgw_soupbin_dep (its include path holds hgw_soupbin.h alone).
 */
#ifndef HGW_SOUPBIN_INTERNAL_H
#define HGW_SOUPBIN_INTERNAL_H

/* The Login Request: its length, type included, and its fields' widths. */
#define HGW_SOUP_LOGIN_LEN        49    /* length 2 + type + 46 */
#define SOUP_USER       6
#define SOUP_PASS       10
#define SOUP_SESSION    10
#define SOUP_SEQ        20

#endif /* HGW_SOUPBIN_INTERNAL_H */
