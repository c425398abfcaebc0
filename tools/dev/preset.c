// SPDX-License-Identifier: GPL-2.0
/*
 * NAND presets for `create --preset`. The numbers are not here: they come
 * from the model's table (cxd_preset_find() and cxd_preset_at() in
 * driver/model/nand.c, linked in from tools/libcxdmodel.a), the same table
 * the kernel loads when `preset` is written to configfs. This file only
 * turns a preset into the configfs attributes create writes: every NAND
 * parameter of the table (include/cxdvirt/params.h), stripe included.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <cxdvirt/params.h>

#include "cxdvirt-dev.h"

static const struct cxd_param nand_params[] = {
	CXD_PARAMS_NAND(CXD_P_DESC_)
};

/* A NAND configuration where the table's paths (nand.channels...) lead. */
struct nand_holder {
	struct cxd_nand_cfg nand;
};

/* The value of NAND parameter @id in @cxd_p_c. */
static uint64_t nand_get(const struct nand_holder *cxd_p_c, int id)
{
	switch (id) {
	CXD_PARAMS_NAND(CXD_P_GET_)
	}
	return 0;
}

/*
 * Fill @out from the model's preset @p: every NAND parameter of the table
 * (CXD_PARAMS_NAND), the enums (xfer_model, stripe) by name.
 */
static void preset_fill(const struct cxd_preset *p, struct preset *out)
{
	const struct nand_holder c = { p->nand };
	const struct cxd_param *q;
	uint64_t v;
	size_t k;

	_Static_assert(sizeof(nand_params) / sizeof(nand_params[0]) ==
		       PRESET_MAX_KV, "PRESET_MAX_KV: every NAND parameter");
	out->name = p->name;
	out->what = p->source;
	for (k = 0; k < PRESET_MAX_KV; k++) {
		q = &nand_params[k];
		v = nand_get(&c, q->id);
		out->kv[k].attr = q->name;
		if (q->type == CXD_PT_ENUM && q->names(v))
			snprintf(out->kv[k].val, sizeof(out->kv[k].val), "%s",
				 q->names(v));
		else
			snprintf(out->kv[k].val, sizeof(out->kv[k].val),
				 "%" PRIu64, v);
	}
}

/**
 * preset_find() - the attributes of the model's preset @name.
 * @name:	"znand", "femu", "tlc", ... (cxd_preset_find()).
 * @out:	filled when found.
 *
 * Return: 0, or -1 if the model has no such preset.
 */
int preset_find(const char *name, struct preset *out)
{
	const struct cxd_preset *p = cxd_preset_find(name);

	if (!p)
		return -1;
	preset_fill(p, out);
	return 0;
}

/**
 * preset_names() - "znand, femu or tlc": the model's preset names, for
 * messages.
 */
const char *preset_names(void)
{
	static char buf[256];
	const struct cxd_preset *p;
	unsigned int i, n = 0;
	size_t len = 0;

	while (cxd_preset_at(n))
		n++;
	buf[0] = '\0';
	for (i = 0; i < n && len < sizeof(buf); i++) {
		p = cxd_preset_at(i);
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s",
					!i ? "" : i + 1 == n ? " or " : ", ", p->name);
	}
	return buf;
}

/* Print @text folded at blanks to lines of at most @width, indented @ind. */
static void print_folded(FILE *f, const char *text, int ind, int width)
{
	const char *s = text, *brk, *end;
	int col;

	while (*s) {
		end = s + strlen(s);
		brk = NULL;
		for (col = 0; s + col < end && col < width; col++)
			if (s[col] == ' ')
				brk = s + col;
		if (s + col >= end || !brk)
			brk = s + col;
		fprintf(f, "%*s%.*s\n", ind, "", (int)(brk - s), s);
		s = brk;
		while (*s == ' ')
			s++;
	}
}

/**
 * preset_print_all() - each preset with its settings and source, for --help.
 * @f:	where to print.
 */
void preset_print_all(FILE *f)
{
	const struct cxd_preset *p;
	struct preset ps;
	unsigned int i;
	size_t k;

	for (i = 0; (p = cxd_preset_at(i)); i++) {
		preset_fill(p, &ps);
		fprintf(f, "  %s:", ps.name);
		for (k = 0; k < PRESET_MAX_KV; k++)
			fprintf(f, "%s%s=%s", k && !(k % 5) ? "\n   " : " ",
				ps.kv[k].attr, ps.kv[k].val);
		fputc('\n', f);
		print_folded(f, ps.what, 4, 72);
	}
}
