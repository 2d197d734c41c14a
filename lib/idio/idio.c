/* SPDX-License-Identifier: BSD-3-Clause
 * hedgewire: cache-aware RX buffers: CPU detection and line maintenance.
 */
#include "hgw_idio.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/* The instructions are emitted with their own target attribute, so the
 * library builds for any x86-64 and only runs them where CPUID says so. */
__attribute__((target("clflushopt"))) static void
lines_clflushopt(uintptr_t line, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++, line += HGW_IDIO_LINE)
		__builtin_ia32_clflushopt((void *)line);
}

static void
lines_cldemote(uintptr_t line, uint32_t n)
{
	/* cldemote is a hint encoded as NOP on CPUs without it; spelled
	 * as bytes since older assemblers do not know it. */
	for (uint32_t i = 0; i < n; i++, line += HGW_IDIO_LINE)
		__asm__ volatile(".byte 0x0f, 0x1c, 0x00" : : "a"(line) : "memory");
}
#endif

void
hgw_idio_detect(struct hgw_idio_cpu *cpu)
{
	memset(cpu, 0, sizeof(*cpu));
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d;

	if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
		cpu->clflushopt = (b >> 23) & 1;
		cpu->cldemote = (c >> 25) & 1;
	}
#elif defined(__aarch64__)
	uint64_t ctr;

	/* CTR_EL0 is readable at EL0 on Linux (SCTLR_EL1.UCT); DminLine,
	 * bits 19:16, is log2 of the smallest data line in 4-byte words. */
	__asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
	cpu->dc_civac = 1;
	cpu->dc_line = 4u << ((ctr >> 16) & 0xf);
#endif
}

const char *
hgw_idio_inval_insn(const struct hgw_idio_cpu *cpu, enum hgw_idio_inval m,
		    int *active)
{
	*active = 0;
	if (m == HGW_IDIO_INVAL_INVALIDATE && cpu->clflushopt) {
		*active = 1;
		return "clflushopt";
	}
	if (m == HGW_IDIO_INVAL_INVALIDATE && cpu->dc_civac) {
		*active = 1;
		return "dc civac";
	}
	if (m == HGW_IDIO_INVAL_DEMOTE && cpu->cldemote) {
		*active = 1;
		return "cldemote";
	}
	return "none";
}

void
hgw_idio_inval(const struct hgw_idio_cpu *cpu, enum hgw_idio_inval m,
	       const void *p, uint32_t len)
{
	uintptr_t line;
	uint32_t n = hgw_idio_lines((uintptr_t)p, len, &line);

	if (n == 0 || m == HGW_IDIO_INVAL_OFF)
		return;
#if defined(__x86_64__) || defined(__i386__)
	if (m == HGW_IDIO_INVAL_INVALIDATE && cpu->clflushopt)
		lines_clflushopt(line, n);
	else if (m == HGW_IDIO_INVAL_DEMOTE && cpu->cldemote)
		lines_cldemote(line, n);
#elif defined(__aarch64__)
	/* by the CPU's own line, which may be smaller than HGW_IDIO_LINE */
	if (m == HGW_IDIO_INVAL_INVALIDATE && cpu->dc_line != 0) {
		uintptr_t end = (uintptr_t)p + len;

		for (line = (uintptr_t)p & ~(uintptr_t)(cpu->dc_line - 1);
		     line < end; line += cpu->dc_line)
			__asm__ volatile("dc civac, %0" : : "r"(line) : "memory");
	}
#else
	(void)cpu;
	(void)line;
#endif
}

void
hgw_idio_pf_init(struct hgw_idio_pf *c, uint64_t window_cycles,
		 uint32_t min_burst, uint32_t max_depth)
{
	memset(c, 0, sizeof(*c));
	c->window = window_cycles ? window_cycles : 1;
	c->min_burst = min_burst;
	c->max_depth = max_depth;
}
