// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt node mode: check the prototypes of the kernel functions that node
 * latency probes against the running kernel's BTF.
 *
 * The probes (hotplug/nodelat.c) read their arguments from registers in the
 * layout compat.h gives for each supported kernel series, and the return
 * probes change return values. A kernel of a supported series whose stable
 * update changed one of those prototypes would have the probes read the
 * wrong registers inside every NUMA hinting fault. So before the first
 * device registers the probes, every probed function's prototype, as the
 * running kernel's own BTF (/sys/kernel/btf/vmlinux) describes it, is
 * formatted as C and compared with the one compat.h was written against
 * (CXD_NL_PROTOS). Any difference, or a function BTF does not list, keeps
 * node latency off with one log line naming the function and both
 * prototypes.
 *
 * A kernel without BTF (CONFIG_DEBUG_INFO_BTF off) cannot be checked: node
 * latency stays off there too, unless the module parameter nl_unchecked is
 * set (the test lanes' debug kernel, built from the same Debian sources as
 * the checked one); then one line says the prototypes were not checked.
 *
 * The BTF format is the kernel's (Documentation/bpf/btf.rst); the kernel
 * exports no lookup of vmlinux's BTF to modules, so the type section is
 * walked here, once per module load.
 */
#include <linux/btf.h>
#include <linux/kernel.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "cxdvirt.h"
#include "compat.h"
#include "nodelat.h"

#define CXD_BTF_PATH	"/sys/kernel/btf/vmlinux"
#define CXD_BTF_MAX	(64u << 20)	/* bytes: vmlinux's is about 5 MiB */
#define CXD_BTF_DEPTH	8		/* type references followed */
#define CXD_PROTO_LEN	256		/* bytes of a formatted prototype */
#define CXD_PROTO_LEN_PARAM	CXD_PROTO_LEN

static bool nl_unchecked;
module_param(nl_unchecked, bool, 0644);
MODULE_PARM_DESC(nl_unchecked,
		 "Enable node latency on a kernel without BTF, whose probe prototypes cannot be checked (default off)");

/* One more prototype to require, for the tests of this check (empty: none) */
static char nl_extra_proto[CXD_PROTO_LEN_PARAM];
module_param_string(nl_extra_proto, nl_extra_proto, sizeof(nl_extra_proto),
		    0644);
MODULE_PARM_DESC(nl_extra_proto,
		 "Also require this prototype (\"RET NAME(TYPE NAME, ...)\") in BTF; for testing the check");


/* The parsed BTF: types by id (1-based) and the string section. */
struct cxd_btf {
	const struct btf_type **types;
	u32 ntypes;
	const char *str;
	u32 str_len;
};

/* Bytes after struct btf_type of a type of @kind with @vlen members, or -1. */
static int cxd_btf_extra(u32 kind, u32 vlen)
{
	switch (kind) {
	case BTF_KIND_INT:
		return sizeof(u32);
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return vlen * sizeof(struct btf_param);
	case BTF_KIND_VAR:
		return sizeof(struct btf_var);
	case BTF_KIND_DATASEC:
		return vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG:
		return sizeof(struct btf_decl_tag);
	case BTF_KIND_ENUM64:
		return vlen * sizeof(struct btf_enum64);
	}
	return -1;
}

/*
 * Walk the type section of @data (@size bytes); with @b->types set, store
 * each type there. Return: NULL or why @data is not usable BTF.
 */
static const char *cxd_btf_walk(struct cxd_btf *b, const void *data,
				size_t size)
{
	const struct btf_header *h = data;
	const u8 *t, *end;
	u32 n = 0;
	int extra;

	if (size < sizeof(*h) || h->magic != BTF_MAGIC || h->version != 1 ||
	    h->hdr_len > size || h->type_off > size - h->hdr_len ||
	    h->type_len > size - h->hdr_len - h->type_off ||
	    h->str_off > size - h->hdr_len ||
	    h->str_len > size - h->hdr_len - h->str_off || !h->str_len)
		return "not a BTF image";
	t = (const u8 *)data + h->hdr_len + h->type_off;
	end = t + h->type_len;
	b->str = (const char *)data + h->hdr_len + h->str_off;
	b->str_len = h->str_len;
	if (b->str[b->str_len - 1])
		return "string section not terminated";
	while (t < end) {
		const struct btf_type *bt = (const void *)t;

		if (end - t < sizeof(*bt))
			return "truncated type";
		extra = cxd_btf_extra(BTF_INFO_KIND(bt->info),
				      BTF_INFO_VLEN(bt->info));
		if (extra < 0 || end - t - sizeof(*bt) < extra)
			return "unknown or truncated type";
		n++;
		if (b->types)
			b->types[n] = bt;
		t += sizeof(*bt) + extra;
	}
	b->ntypes = n;
	return NULL;
}

static const char *cxd_btf_name(const struct cxd_btf *b, u32 off)
{
	return off < b->str_len ? b->str + off : "?";
}

/*
 * Append the C spelling of type @id to @buf (@len bytes, NUL-terminated):
 * "long unsigned int", "struct page *", "gfp_t", "int *", "void".
 * Return: false if a type cannot be spelled or the depth is exceeded.
 */
static bool cxd_btf_type_str(const struct cxd_btf *b, u32 id, char *buf,
			     size_t len, int depth)
{
	const struct btf_type *t;
	const char *name;
	size_t l;

	if (!id) {
		strlcat(buf, "void", len);
		return true;
	}
	if (id > b->ntypes || depth > CXD_BTF_DEPTH)
		return false;
	t = b->types[id];
	name = cxd_btf_name(b, t->name_off);
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_FLOAT:
		strlcat(buf, name, len);
		return true;
	case BTF_KIND_STRUCT:
		strlcat(buf, "struct ", len);
		strlcat(buf, name, len);
		return true;
	case BTF_KIND_UNION:
		strlcat(buf, "union ", len);
		strlcat(buf, name, len);
		return true;
	case BTF_KIND_FWD:
		strlcat(buf, BTF_INFO_KFLAG(t->info) ? "union " : "struct ", len);
		strlcat(buf, name, len);
		return true;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		strlcat(buf, "enum ", len);
		strlcat(buf, name, len);
		return true;
	case BTF_KIND_CONST:
		strlcat(buf, "const ", len);
		return cxd_btf_type_str(b, t->type, buf, len, depth + 1);
	case BTF_KIND_VOLATILE:
		strlcat(buf, "volatile ", len);
		return cxd_btf_type_str(b, t->type, buf, len, depth + 1);
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		return cxd_btf_type_str(b, t->type, buf, len, depth + 1);
	case BTF_KIND_PTR:
		if (!cxd_btf_type_str(b, t->type, buf, len, depth + 1))
			return false;
		l = strlen(buf);
		strlcat(buf, l && buf[l - 1] == '*' ? "*" : " *", len);
		return true;
	case BTF_KIND_FUNC_PROTO:
		strlcat(buf, "fn", len);
		return true;
	}
	return false;
}

/*
 * Spell function @t (a BTF_KIND_FUNC) as "RET NAME(T1 N1, T2 N2)" into @buf
 * (CXD_PROTO_LEN bytes); a pointer's name follows its '*' directly.
 */
static bool cxd_btf_func_str(const struct cxd_btf *b,
			     const struct btf_type *t, char *buf)
{
	const struct btf_type *p;
	const struct btf_param *a;
	u32 i, n;
	size_t l;

	buf[0] = '\0';
	if (t->type > b->ntypes)
		return false;
	p = b->types[t->type];
	if (BTF_INFO_KIND(p->info) != BTF_KIND_FUNC_PROTO)
		return false;
	if (!cxd_btf_type_str(b, p->type, buf, CXD_PROTO_LEN, 0))
		return false;
	l = strlen(buf);
	if (l && buf[l - 1] != '*')
		strlcat(buf, " ", CXD_PROTO_LEN);
	strlcat(buf, cxd_btf_name(b, t->name_off), CXD_PROTO_LEN);
	strlcat(buf, "(", CXD_PROTO_LEN);
	n = BTF_INFO_VLEN(p->info);
	a = (const struct btf_param *)(p + 1);
	for (i = 0; i < n; i++) {
		if (i)
			strlcat(buf, ", ", CXD_PROTO_LEN);
		if (!cxd_btf_type_str(b, a[i].type, buf, CXD_PROTO_LEN, 0))
			return false;
		l = strlen(buf);
		if (l && buf[l - 1] != '*')
			strlcat(buf, " ", CXD_PROTO_LEN);
		strlcat(buf, cxd_btf_name(b, a[i].name_off), CXD_PROTO_LEN);
	}
	strlcat(buf, ")", CXD_PROTO_LEN);
	return strlen(buf) < CXD_PROTO_LEN - 1;
}

/*
 * Read CXD_BTF_PATH whole into a vmalloc()ed *@out. (kernel_read_file()
 * would pass the read to the security modules as an unknown kind of file,
 * which IPE on 6.12 warns about.) Return: its size, or a negative errno.
 */
static ssize_t cxd_btf_read(void **out)
{
	struct file *f = filp_open(CXD_BTF_PATH, O_RDONLY, 0);
	loff_t size, pos = 0;
	ssize_t r = 0;
	void *buf;

	if (IS_ERR(f))
		return PTR_ERR(f);
	size = i_size_read(file_inode(f));
	if (size <= 0 || size > CXD_BTF_MAX) {
		filp_close(f, NULL);
		return -EFBIG;
	}
	buf = vmalloc(size);
	if (!buf) {
		filp_close(f, NULL);
		return -ENOMEM;
	}
	while (pos < size) {
		r = kernel_read(f, buf + pos, size - pos, &pos);
		if (r <= 0)
			break;
	}
	filp_close(f, NULL);
	if (pos < size) {
		vfree(buf);
		return r < 0 ? r : -EIO;
	}
	*out = buf;
	return size;
}

/* The name in prototype @proto ("RET NAME(...)") into @name (@len bytes). */
static void cxd_proto_name(const char *proto, char *name, size_t len)
{
	const char *open = strchr(proto, '('), *s = open;

	name[0] = '\0';
	if (!open)
		return;
	while (s > proto && s[-1] != ' ' && s[-1] != '*')
		s--;
	strscpy(name, s, min_t(size_t, len, open - s + 1));
}

/*
 * Compare @want's function with every BTF function of its name. Return: 0,
 * or -EOPNOTSUPP after one log line for @dev.
 */
static int cxd_btf_check_one(const struct cxd_btf *b, const char *want,
			     const char *dev, char *have)
{
	char name[64];
	u32 id, found = 0;

	cxd_proto_name(want, name, sizeof(name));
	for (id = 1; id <= b->ntypes; id++) {
		const struct btf_type *t = b->types[id];

		if (BTF_INFO_KIND(t->info) != BTF_KIND_FUNC ||
		    strcmp(cxd_btf_name(b, t->name_off), name))
			continue;
		found++;
		if (!cxd_btf_func_str(b, t, have) || strcmp(have, want)) {
			pr_warn(CXD_NAME ": %s: power: node_latency: %s has prototype '%s' in this kernel's BTF, not the checked '%s': this kernel is not supported\n",
				dev, name, have, want);
			return -EOPNOTSUPP;
		}
	}
	if (!found) {
		pr_warn(CXD_NAME ": %s: power: node_latency: %s is not in this kernel's BTF, so its prototype cannot be checked: this kernel is not supported\n",
			dev, name);
		return -EOPNOTSUPP;
	}
	return 0;
}

/**
 * cxd_nl_btf_check() - check the probed functions' prototypes against the
 * running kernel's BTF.
 * @dev:    device name, for the log.
 * @protos: the prototypes the probes were written against, as C: "RET
 *          NAME(TYPE NAME, ...)", INT types as BTF names them ("long
 *          unsigned int"), a pointer's name right after its '*'.
 * @n:      entries of @protos.
 *
 * Reads /sys/kernel/btf/vmlinux (about 5 MiB, freed before returning) and
 * compares, for each of @protos, every BTF function of that name with it.
 * Without BTF the check fails unless the nl_unchecked module parameter is
 * set.
 *
 * Context: process, may sleep; cxd_cfg_mutex held by the caller (the result
 * is not cached: each first user of the probes checks again).
 * Return: 0 if every prototype matches (or nl_unchecked with no BTF);
 * -EOPNOTSUPP after one log line naming the cause; -ENOMEM.
 */
int cxd_nl_btf_check(const char *dev, const char *const *protos,
		     unsigned int n)
{
	struct cxd_btf b = { };
	void *data = NULL;
	const char *why;
	char *have = NULL, *extra = NULL, *e;
	unsigned int i;
	ssize_t r;
	int ret = 0;

	r = cxd_btf_read(&data);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		if (READ_ONCE(nl_unchecked)) {
			pr_info(CXD_NAME ": %s: power: node_latency: cannot read %s (%zd); prototypes of the probed functions NOT checked (nl_unchecked=1)\n",
				dev, CXD_BTF_PATH, r);
			return 0;
		}
		pr_warn(CXD_NAME ": %s: power: node_latency: cannot read %s (%zd) to check the probed functions' prototypes: node latency needs a kernel with BTF (CONFIG_DEBUG_INFO_BTF), or nl_unchecked=1 at your own risk\n",
			dev, CXD_BTF_PATH, r);
		return -EOPNOTSUPP;
	}
	why = cxd_btf_walk(&b, data, r);
	if (why)
		goto bad;
	b.types = kvmalloc_array(b.ntypes + 1, sizeof(*b.types), GFP_KERNEL);
	have = kmalloc(CXD_PROTO_LEN, GFP_KERNEL);
	extra = kmalloc(CXD_PROTO_LEN, GFP_KERNEL);
	if (!b.types || !have || !extra) {
		ret = -ENOMEM;
		goto out;
	}
	why = cxd_btf_walk(&b, data, r);
	if (why)
		goto bad;
	for (i = 0; i < n && !ret; i++)
		ret = cxd_btf_check_one(&b, protos[i], dev, have);
	/* module parameters are read unlocked: take a terminated copy */
	strscpy(extra, nl_extra_proto, CXD_PROTO_LEN);
	e = strim(extra);
	if (!ret && e[0])
		ret = cxd_btf_check_one(&b, e, dev, have);
	goto out;
bad:
	pr_warn(CXD_NAME ": %s: power: node_latency: %s: %s: this kernel is not supported\n",
		dev, CXD_BTF_PATH, why);
	ret = -EOPNOTSUPP;
out:
	kfree(extra);
	kfree(have);
	kvfree(b.types);
	vfree(data);
	return ret;
}
