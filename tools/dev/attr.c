// SPDX-License-Identifier: GPL-2.0
/*
 * The configfs attributes of a device (docs/interface.md) as the tool knows
 * them, from the module's parameter table (include/cxdvirt/params.h): the
 * order list shows them in, and how a value is checked before it is
 * written. The check is syntax only (a size is a size, a node is a
 * number); ranges are the kernel's to judge. Attributes missing from the
 * table (a newer module) are shown and written verbatim.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <cxdvirt/params.h>

#include "cxdvirt-dev.h"

/* The table's unit of a parameter as -u prints it. */
#define ATTR_UNIT_none		UNIT_NONE
#define ATTR_UNIT_bytes		UNIT_BYTES
#define ATTR_UNIT_ns		UNIT_NS
#define ATTR_UNIT_ms		UNIT_NONE
#define ATTR_UNIT_MBps		UNIT_MBPS
#define ATTR_UNIT_pct		UNIT_NONE
#define ATTR_UNIT_permille	UNIT_NONE
#define ATTR_UNIT_lines		UNIT_NONE
#define ATTR_UNIT_pages		UNIT_NONE
#define ATTR_UNIT_blocks	UNIT_NONE
#define ATTR_UNIT_strides	UNIT_NONE
#define ATTR_UNIT_rounds	UNIT_NONE
#define ATTR_UNIT_evictions	UNIT_NONE

/* The check of a parameter's value by its type in the table. */
#define ATTR_TYPE_OF(t, fl)						\
	((t) == CXD_PT_ENUM ? ATTR_WORD : (t) == CXD_PT_BOOL ? ATTR_BOOL :\
	 (t) == CXD_PT_INT ? ATTR_NODE : ((fl) & CXD_P_HEX) ? ATTR_ADDR :	\
	 ((fl) & CXD_P_SUFFIX) ? ATTR_SIZE : ATTR_U64)

#define ATTR_ROW_(g, n, f, t, lo, hi, def, fl, u, nm)			\
	{ #n, ATTR_TYPE_OF(t, fl), ATTR_UNIT_##u },

/* Every parameter of the table (include/cxdvirt/params.h), then the rest. */
const struct attr_desc attr_table[] = {
	CXD_PARAMS_ALL(ATTR_ROW_)
	{ "preset",		ATTR_WORD,	UNIT_NONE },
	{ "nand_backing",	ATTR_OTHER,	UNIT_NONE },
	{ "index",		ATTR_RO,	UNIT_NONE },
	{ "power",		ATTR_BOOL,	UNIT_NONE },
	{ "power_fail",		ATTR_BOOL,	UNIT_NONE },
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
		ret = cxu_parse_size(val, &u);
		if (ret) {
			*why = parse_why(ret) ? parse_why(ret) :
			       "not a size (a number with an optional K, M, G or T suffix)";
			return -EINVAL;
		}
		snprintf(out, len, "%" PRIu64, u);
		return 0;
	case ATTR_U64:
		ret = cxu_parse_u64(val, &u);
		if (ret) {
			*why = parse_why(ret) ? parse_why(ret) :
			       "not a number (decimal or 0x-hex)";
			return -EINVAL;
		}
		snprintf(out, len, "%" PRIu64, u);
		return 0;
	case ATTR_NODE:
		ret = cxu_parse_s64(val, &s);
		if (ret || s < -1 || s > INT32_MAX) {
			*why = "not a node number (-1 for any node)";
			return -EINVAL;
		}
		snprintf(out, len, "%" PRId64, s);
		return 0;
	case ATTR_BOOL: {
		bool on;

		/* the module's rule (cxd_parse_flag()), written as 0 or 1 */
		if (cxd_parse_flag(val, strlen(val), &on)) {
			*why = "must be 0, 1, off or on";
			return -EINVAL;
		}
		snprintf(out, len, "%d", on);
		return 0;
	}
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
