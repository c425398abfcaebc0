// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: name lookup shared by the model's enums and the
 * NAND presets (names.h).
 *
 * Pure C: no kernel or libc calls.
 */
#include "names.h"

bool cxd_str_eq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

int cxd_name_index(const char *const *names, unsigned int n, const char *name)
{
	unsigned int i;

	for (i = 0; name && i < n; i++)
		if (names[i] && cxd_str_eq(name, names[i]))
			return (int)i;
	return -1;
}

const char *cxd_name_at(const char *const *names, unsigned int n,
			unsigned int i)
{
	return i < n ? names[i] : NULL;
}
