/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers for the cxdvirt model unit tests (cmocka).
 */
#ifndef CXD_TEST_H
#define CXD_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <cxdvirt/model.h>

/* The configfs defaults: 8 channels x 4 dies, 4 KiB pages, 1200 MB/s. */
#define T_R	3000ull
#define T_PROG	100000ull
#define XFER_4K	3414ull	/* ceil(4096 * 1000 / 1200) */

static inline struct cxd_nand_cfg test_cfg(uint32_t channels, uint32_t dies,
					   uint32_t page_size)
{
	struct cxd_nand_cfg cfg = {
		.channels = channels,
		.dies_per_channel = dies,
		.nand_page_size = page_size,
		.t_read_ns = T_R,
		.t_prog_ns = T_PROG,
		.channel_mbps = 1200,
	};

	return cfg;
}

static inline struct cxd_nand_cfg default_cfg(void)
{
	return test_cfg(8, 4, 4096);
}

/* Buffer of @size bytes filled with junk: init must not rely on zeroing. */
static inline void *junk_alloc(size_t size)
{
	void *p;

	assert_true(size > 0);
	p = malloc(size);
	assert_non_null(p);
	memset(p, 0xa5, size);
	return p;
}

#endif /* CXD_TEST_H */
