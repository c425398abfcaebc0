// SPDX-License-Identifier: GPL-2.0
/*
 * NAND timing and geometry presets for `create --preset`. This table is the
 * only place the numbers live; docs/tools.md cites where each comes from.
 */
#include <string.h>

#include "cxdvirt-dev.h"

static const struct preset presets[] = {
	{
		.name = "znand",
		.what = "Samsung Z-NAND SLC (Cheong et al., ISSCC'18), as CXDVirt's preset",
		.kv = {
			{ "t_read_ns",		3000 },
			{ "t_prog_ns",		100000 },
			{ "channels",		8 },
			{ "dies_per_channel",	16 },
			{ "channel_mbps",	1200 },
			{ "nand_page_size",	4096 },
		},
	},
	{
		.name = "tlc",
		.what = "FEMU's default NAND (Li et al., FAST'18); 800 MB/s channel is ours",
		.kv = {
			{ "t_read_ns",		40000 },
			{ "t_prog_ns",		200000 },
			{ "channels",		8 },
			{ "dies_per_channel",	8 },
			{ "channel_mbps",	800 },
			{ "nand_page_size",	4096 },
		},
	},
};

/**
 * preset_find() - the preset called @name, or NULL.
 * @name:	"znand" or "tlc".
 */
const struct preset *preset_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (!strcmp(presets[i].name, name))
			return &presets[i];
	return NULL;
}

/**
 * preset_print_all() - one line per preset with its settings, for --help.
 * @f:	where to print.
 */
void preset_print_all(FILE *f)
{
	size_t i, k;

	for (i = 0; i < sizeof(presets) / sizeof(presets[0]); i++) {
		fprintf(f, "  %-6s %s:\n        ", presets[i].name, presets[i].what);
		for (k = 0; k < PRESET_MAX_KV && presets[i].kv[k].attr; k++)
			fprintf(f, "%s%s=%llu", k ? " " : "", presets[i].kv[k].attr,
				(unsigned long long)presets[i].kv[k].val);
		fputc('\n', f);
	}
}
