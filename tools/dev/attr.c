// SPDX-License-Identifier: GPL-2.0
/*
 * The configfs attributes of a device (docs/interface.md) as the tool knows
 * them: the order list shows them in, and how a value is checked before it
 * is written. The check is syntax only (a size is a size, a node is a
 * number); ranges are the kernel's to judge. Attributes missing from the
 * table (a newer module) are shown and written verbatim.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cxdvirt-dev.h"

const struct attr_desc attr_table[] = {
	{ "capacity",		ATTR_SIZE,	UNIT_BYTES },
	{ "cache_size",		ATTR_SIZE,	UNIT_BYTES },
	{ "backing_node",	ATTR_NODE,	UNIT_NONE },
	{ "phys_addr",		ATTR_ADDR,	UNIT_NONE },
	{ "channels",		ATTR_U64,	UNIT_NONE },
	{ "dies_per_channel",	ATTR_U64,	UNIT_NONE },
	{ "nand_page_size",	ATTR_SIZE,	UNIT_BYTES },
	{ "t_read_ns",		ATTR_U64,	UNIT_NS },
	{ "t_prog_ns",		ATTR_U64,	UNIT_NS },
	{ "channel_mbps",	ATTR_U64,	UNIT_MBPS },
	{ "planes_per_die",	ATTR_U64,	UNIT_NONE },
	{ "pages_per_block",	ATTR_U64,	UNIT_NONE },
	{ "t_bers_ns",		ATTR_U64,	UNIT_NS },
	{ "ways",		ATTR_U64,	UNIT_NONE },
	{ "policy",		ATTR_WORD,	UNIT_NONE },
	{ "seed",		ATTR_U64,	UNIT_NONE },
	{ "cflru_window_pct",	ATTR_U64,	UNIT_NONE },
	{ "bop_score_max",	ATTR_U64,	UNIT_NONE },
	{ "bop_round_max",	ATTR_U64,	UNIT_NONE },
	{ "bop_bad_score",	ATTR_U64,	UNIT_NONE },
	{ "leap_split",		ATTR_U64,	UNIT_NONE },
	{ "leap_window_max",	ATTR_U64,	UNIT_NONE },
	{ "fdp_interval",	ATTR_U64,	UNIT_NONE },
	{ "fdp_accuracy_high",	ATTR_U64,	UNIT_NONE },
	{ "fdp_accuracy_low",	ATTR_U64,	UNIT_NONE },
	{ "fdp_lateness",	ATTR_U64,	UNIT_NONE },
	{ "fdp_pollution",	ATTR_U64,	UNIT_NONE },
	{ "ftl",		ATTR_WORD,	UNIT_NONE },
	{ "op_pct",		ATTR_U64,	UNIT_NONE },
	{ "gc_low",		ATTR_U64,	UNIT_NONE },
	{ "gc_high",		ATTR_U64,	UNIT_NONE },
	{ "ftl_fill",		ATTR_BOOL,	UNIT_NONE },
	{ "prefetch",		ATTR_WORD,	UNIT_NONE },
	{ "prefetch_degree",	ATTR_U64,	UNIT_NONE },
	{ "prefetch_distance",	ATTR_U64,	UNIT_NONE },
	{ "write_alloc",	ATTR_BOOL,	UNIT_NONE },
	{ "skip_unwritten",	ATTR_BOOL,	UNIT_NONE },
	{ "scan_interval_ms",	ATTR_U64,	UNIT_NONE },
	{ "mode",		ATTR_WORD,	UNIT_NONE },
	{ "target_node",	ATTR_NODE,	UNIT_NONE },
	{ "node_latency",	ATTR_WORD,	UNIT_NONE },
	{ "preset",		ATTR_WORD,	UNIT_NONE },
	{ "index",		ATTR_RO,	UNIT_NONE },
	{ "power",		ATTR_BOOL,	UNIT_NONE },
	{ "features",		ATTR_RO,	UNIT_NONE },
};
const size_t attr_table_len = sizeof(attr_table) / sizeof(attr_table[0]);

/**
 * attr_find() - the table entry for attribute @name, or NULL.
 * @name:	attribute (file) name.
 */
const struct attr_desc *attr_find(const char *name)
{
	size_t i;

	for (i = 0; i < attr_table_len; i++)
		if (!strcmp(attr_table[i].name, name))
			return &attr_table[i];
	return NULL;
}

static const char *parse_why(int err)
{
	return err == -ERANGE ? "too large" : NULL;
}

/**
 * attr_normalize() - check @val for attribute @name, give the text to write.
 * @name:	attribute name.
 * @val:	the value as the user typed it.
 * @out:	the text to write: sizes and numbers as plain decimal bytes or
 *		units of the attribute, anything else verbatim.
 * @len:	size of @out in bytes.
 * @why:	on error, a short reason ("not a size", "read-only", ...).
 *
 * Return: 0, or -EINVAL (usage error: nothing was written anywhere).
 */
int attr_normalize(const char *name, const char *val, char *out, size_t len,
		   const char **why)
{
	const struct attr_desc *d = attr_find(name);
	enum attr_type type = d ? d->type : ATTR_OTHER;
	uint64_t u;
	int64_t s;
	int ret;

	*why = NULL;
	if (strpbrk(val, "\n") || strlen(val) + 1 > len) {
		*why = "bad value";
		return -EINVAL;
	}
	switch (type) {
	case ATTR_SIZE:
	case ATTR_ADDR:
		ret = parse_size(val, &u);
		if (ret) {
			*why = parse_why(ret) ? parse_why(ret) :
			       "not a size (a number with an optional K, M, G or T suffix)";
			return -EINVAL;
		}
		snprintf(out, len, "%" PRIu64, u);
		return 0;
	case ATTR_U64:
		ret = parse_u64(val, &u);
		if (ret) {
			*why = parse_why(ret) ? parse_why(ret) :
			       "not a number (decimal or 0x-hex)";
			return -EINVAL;
		}
		snprintf(out, len, "%" PRIu64, u);
		return 0;
	case ATTR_NODE:
		ret = parse_s64(val, &s);
		if (ret || s < -1 || s > INT32_MAX) {
			*why = "not a node number (-1 for any node)";
			return -EINVAL;
		}
		snprintf(out, len, "%" PRId64, s);
		return 0;
	case ATTR_BOOL:
		if (strcmp(val, "0") && strcmp(val, "1")) {
			*why = "must be 0 or 1";
			return -EINVAL;
		}
		snprintf(out, len, "%s", val);
		return 0;
	case ATTR_WORD:
		if (!*val || strpbrk(val, " \t")) {
			*why = "must be one word";
			return -EINVAL;
		}
		snprintf(out, len, "%s", val);
		return 0;
	case ATTR_RO:
		*why = "read-only";
		return -EINVAL;
	case ATTR_OTHER:
		snprintf(out, len, "%s", val);
		return 0;
	}
	*why = "unknown attribute type";
	return -EINVAL;
}
