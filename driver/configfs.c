// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt configuration through configfs, in the style of null_blk:
 * mkdir /sys/kernel/config/cxdvirt/<name> makes a device, its attributes are
 * written, then `power` 1 brings it up as /dev/cxdvirt<index>.
 *
 * Each parameter's attribute is generated from the table in
 * include/cxdvirt/params.h, and so is the `features` list. Every store
 * parses its value first, then takes cxd_cfg_mutex, then either refuses
 * with -EBUSY (a setting that may not change while powered) or checks the
 * value against the table's bounds and the rest of the configuration and
 * stores it, applying it to the running model at once if the device is
 * powered ("live"). A bad value returns -EINVAL, changes nothing and logs
 * one line with the reason.
 */
#include <linux/ctype.h>
#include <linux/idr.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <cxdvirt/params.h>

#include "cxdvirt.h"

#define CXD_CAPACITY_ALIGN	(2ull << 20)

static DEFINE_IDA(cxd_index_ida);

static inline struct cxd_dev *to_cxd(struct config_item *item)
{
	return container_of(item, struct cxd_dev, item);
}

/* The table (include/cxdvirt/params.h), indexed by enum cxd_param_id. */
static const struct cxd_param cxd_params[CXD_PARAM_NR] = {
	CXD_PARAMS_ALL(CXD_P_DESC_)
};

/* The value of kernel parameter @id in @cxd_p_c (an INT's two's complement). */
static u64 cxd_cfg_get_kernel(const struct cxd_cfg *cxd_p_c, int id)
{
	switch (id) {
	CXD_PARAMS_KERNEL(CXD_P_GET_)
	}
	return 0;
}

/* The value of parameter @id in @c (an INT's two's complement). */
static u64 cxd_cfg_get(const struct cxd_cfg *c, int id)
{
	const struct cxd_params *cxd_p_c = &c->p;

	switch (id) {
	CXD_PARAMS_SHARED(CXD_P_GET_)
	}
	return cxd_cfg_get_kernel(c, id);
}

/* Write @p's names, blank-separated, to @buf. */
static const char *cxd_fmt_names(char *buf, size_t len,
				 const struct cxd_param *p)
{
	unsigned int i;
	int n = 0;

	buf[0] = '\0';
	for (i = 0; i <= p->max && p->names(i); i++)
		n += scnprintf(buf + n, len - n, "%s%s", i ? " " : "",
			       p->names(i));
	return buf;
}

/*
 * cxd_name_arg() - copy a name written to an attribute into @buf (@len
 * bytes), dropping one trailing newline. Return: 0, or -EINVAL for an empty,
 * too long or NUL-containing value.
 */
static int cxd_name_arg(const char *page, size_t count, char *buf, size_t len)
{
	if (count && page[count - 1] == '\n')
		count--;
	if (!count || count >= len || strnlen(page, count) != count)
		return -EINVAL;
	memcpy(buf, page, count);
	buf[count] = '\0';
	return 0;
}

/*
 * cxd_param_read() - the text written to @p's attribute as a value, by
 * cxd_param_parse() (driver/model/param.c, the tools' parser too): a name
 * of an enum (or, CXD_P_NUMALIAS, its index), 0/1/off/on for a bool, a
 * signed decimal for an INT, otherwise decimal or 0x-hex with a K/M/G/T
 * suffix if CXD_P_SUFFIX. Syntax only, bounds are checked later. Return: 0
 * or -EINVAL (one line logged).
 */
static int cxd_param_read(struct cxd_dev *d, const struct cxd_param *p,
			  const char *page, size_t count, u64 *v)
{
	const char *why = cxd_param_parse(p, page, count, v);
	char names[96];

	if (!why)
		return 0;
	if (p->type == CXD_PT_ENUM)
		cxd_warn(d, "%s: unknown %s (supported: %s)", p->name, p->name,
			 cxd_fmt_names(names, sizeof(names), p));
	else if (p->type == CXD_PT_BOOL)
		cxd_warn(d, "%s: not 0, 1, off or on", p->name);
	else
		cxd_warn(d, "%s: %s", p->name, why);
	return -EINVAL;
}

/*
 * cxd_param_relate() - the checks beyond a parameter's own bounds: against
 * the rest of the configuration or the machine, then, for a parameter of a
 * mode, the mode's own (cxd_mode_param_check()). Caller holds
 * cxd_cfg_mutex. Return: NULL, or the reason with *@err the error
 * (-EINVAL, or -EOPNOTSUPP for what this kernel cannot do).
 */
static const char *cxd_param_relate(struct cxd_dev *d, int id, u64 v,
				    int *err)
{
	const struct cxd_cfg *c = &d->cfg;
	struct { struct cxd_pf_params pf; } w = { c->p.pf };
	s64 sv = (s64)v;

	*err = -EINVAL;
	switch (id) {
	case CXD_PARAM_capacity:
		if (v % CXD_CAPACITY_ALIGN)
			return "not a multiple of 2M";
		if (c->cache_size_set && v < c->p.cache_size)
			return "smaller than cache_size (lower cache_size first)";
		return NULL;
	case CXD_PARAM_cache_size:
		if (v % CXD_HOST_PAGE_SIZE)
			return "not a multiple of 4K";
		if (v > c->p.capacity)
			return "larger than capacity";
		return NULL;
	case CXD_PARAM_phys_addr:
		if (v && *c->nand_backing)
			return "a NAND image (nand_backing) is the device's backing: write ram to nand_backing first";
		return v % CXD_CAPACITY_ALIGN ? "not 2M aligned" : NULL;
	case CXD_PARAM_mode:
		if (v == CXD_MODE_NODE && *c->nand_backing)
			return "node mode onlines host RAM: a NAND image (nand_backing) is devdax only (write ram to nand_backing first)";
		break;
	case CXD_PARAM_backing_node:
		if (sv != NUMA_NO_NODE &&
		    (sv >= MAX_NUMNODES || !node_state(sv, N_MEMORY)))
			return "not -1 or an online node with memory";
		return NULL;
	case CXD_PARAM_ways:
		if (v > c->p.cache_size / CXD_HOST_PAGE_SIZE)
			return "not 0 (fully associative) or at most the cache lines";
		return NULL;
	case CXD_PARAM_drain_high_pct:
		if (v <= c->p.drain_low_pct)
			return "not above drain_low_pct (lower drain_low_pct first)";
		return NULL;
	case CXD_PARAM_drain_low_pct:
		if (v >= c->p.drain_high_pct)
			return "not below drain_high_pct";
		return NULL;
	case CXD_PARAM_bop_score_max ... CXD_PARAM_fdp_pollution:
		CXD_PARAMS_SET(&w, id, v, CXD_PARAMS_PF);
		return cxd_pf_params_check(&w.pf);
	}
	/* The modes' own parameters (node mode: target_node, node_latency). */
	return cxd_mode_param_check(id, v, err);
}

/* Apply a live change to the running model. Caller holds cxd_cfg_mutex. */
static void cxd_apply_live(struct cxd_dev *d)
{
	struct cxd_live *live = d->live;

	cxd_model_lock(live);
	cxd_model_apply_runtime(&live->model, &d->cfg);
	spin_unlock(&live->lock);
	cxd_apply_policy(live, &d->cfg);
	if (READ_ONCE(live->scan_interval_ms) != d->cfg.scan_interval_ms)
		live->ops->scan_interval(live, d->cfg.scan_interval_ms);
}

/*
 * cxd_param_store() - the store of every parameter's attribute, in the
 * style of null_blk: parse, take cxd_cfg_mutex, refuse with -EBUSY a
 * setting that may not change while powered, check the bounds of the table
 * and the relations to the rest of the configuration (-EINVAL, one log
 * line naming the bounds or the reason), store, then apply to the running
 * model if powered. Nothing changes on an error.
 */
static ssize_t cxd_param_store(struct cxd_dev *d, int id, const char *page,
			       size_t count)
{
	const struct cxd_param *p = &cxd_params[id];
	char val[24], lo[24], hi[24];
	const char *why;
	int ret;
	u64 v;

	ret = cxd_param_read(d, p, page, count, &v);
	if (ret)
		return ret;

	mutex_lock(&cxd_cfg_mutex);
	if (d->live && !(p->flags & CXD_P_LIVE)) {
		cxd_warn(d, "%s: cannot change while powered (write 0 to power first)",
			 p->name);
		ret = -EBUSY;
		goto out;
	}
	why = cxd_param_bad(p, v);
	if (why) {
		cxd_warn(d, "%s: %s rejected: %s [%s, %s]%s%s", p->name,
			 cxd_param_format(p, v, val, sizeof(val)), why,
			 cxd_param_format(p, p->min, lo, sizeof(lo)),
			 cxd_param_format(p, p->max, hi, sizeof(hi)),
			 *p->unit ? " " : "", p->unit);
		ret = -EINVAL;
		goto out;
	}
	why = cxd_param_relate(d, id, v, &ret);
	if (why && ret == -EOPNOTSUPP) {
		/* Not this value but this kernel: say only that. */
		cxd_warn(d, "%s: %s", p->name, why);
		goto out;
	}
	if (why) {
		cxd_warn(d, "%s: %s rejected: %s", p->name,
			 cxd_param_format(p, v, val, sizeof(val)), why);
		goto out;
	}
	CXD_PARAMS_SET(&d->cfg.p, id, v, CXD_PARAMS_SHARED);
	CXD_PARAMS_SET(&d->cfg, id, v, CXD_PARAMS_KERNEL);
	if (id == CXD_PARAM_cache_size)
		d->cfg.cache_size_set = true;
	/* Until cache_size is written, it follows capacity: capacity / 8. */
	if (id == CXD_PARAM_capacity && !d->cfg.cache_size_set)
		d->cfg.p.cache_size = max_t(u64, CXD_HOST_PAGE_SIZE,
					  round_down(v / 8, CXD_HOST_PAGE_SIZE));
	if (d->live)
		cxd_apply_live(d);
	/* A new seed takes effect at once: the random policy restarts. */
	if (d->live && id == CXD_PARAM_seed) {
		cxd_model_lock(d->live);
		cxd_model_set_seed(&d->live->model, d->cfg.p.seed);
		spin_unlock(&d->live->lock);
	}
	ret = count;
out:
	mutex_unlock(&cxd_cfg_mutex);
	return ret;
}

static ssize_t cxd_param_show(struct cxd_dev *d, int id, char *page)
{
	const struct cxd_param *p = &cxd_params[id];
	u64 v = cxd_cfg_get(&d->cfg, id);

	if (p->type == CXD_PT_ENUM)
		return sysfs_emit(page, "%s\n", p->names(v) ? p->names(v) : "?");
	if (p->type == CXD_PT_INT)
		return sysfs_emit(page, "%d\n", (int)(s64)v);
	if (p->flags & CXD_P_HEX)
		return sysfs_emit(page, "0x%llx\n", v);
	return sysfs_emit(page, "%llu\n", v);
}

/* One configfs attribute per parameter of the table. */
#define CXD_P_ATTR_(g, n, f, t, lo, hi, def, fl, u, nm)			\
static ssize_t cxd_##n##_show(struct config_item *item, char *page);	\
static ssize_t cxd_##n##_store(struct config_item *item,		\
			       const char *page, size_t count);		\
CONFIGFS_ATTR(cxd_, n);							\
static ssize_t cxd_##n##_show(struct config_item *item, char *page)	\
{									\
	return cxd_param_show(to_cxd(item), CXD_PARAM_##n, page);	\
}									\
static ssize_t cxd_##n##_store(struct config_item *item,		\
			       const char *page, size_t count)		\
{									\
	return cxd_param_store(to_cxd(item), CXD_PARAM_##n, page, count);\
}

CXD_PARAMS_ALL(CXD_P_ATTR_)

/*
 * preset: write a name to load that preset's NAND configuration, every NAND
 * parameter of the table (CXD_PARAMS_NAND, struct cxd_nand_cfg).
 */
static ssize_t cxd_preset_show(struct config_item *item, char *page)
{
	const struct cxd_preset *p;
	unsigned int i;
	int n = 0;

	for (i = 0; (p = cxd_preset_at(i)); i++)
		n += sysfs_emit_at(page, n, "%s%s", i ? " " : "", p->name);
	return n + sysfs_emit_at(page, n, "\n");
}

static ssize_t cxd_preset_store(struct config_item *item, const char *page,
				size_t count)
{
	struct cxd_dev *d = to_cxd(item);
	const struct cxd_preset *p = NULL;
	char buf[16];
	int ret = -EINVAL;

	if (!cxd_name_arg(page, count, buf, sizeof(buf)))
		p = cxd_preset_find(buf);
	if (!p) {
		cxd_warn(d, "preset: unknown preset (read the attribute for the list)");
		return -EINVAL;
	}
	mutex_lock(&cxd_cfg_mutex);
	if (d->live) {
		cxd_warn(d, "preset: cannot change while powered (write 0 to power first)");
		ret = -EBUSY;
	} else {
		d->cfg.p.nand = p->nand;
		ret = count;
	}
	mutex_unlock(&cxd_cfg_mutex);
	return ret;
}
CONFIGFS_ATTR(cxd_, preset);

/*
 * nand_backing: "ram" (the default: host memory backs every device page) or
 * the absolute path of a NAND image, a regular file or a block device
 * (driver/devdax/image.c),
 * checked and created at power-on. Devdax mode only, without phys_addr.
 */
static ssize_t cxd_nand_backing_show(struct config_item *item, char *page)
{
	const char *path = to_cxd(item)->cfg.nand_backing;

	return sysfs_emit(page, "%s\n", *path ? path : "ram");
}

static ssize_t cxd_nand_backing_store(struct config_item *item,
				      const char *page, size_t count)
{
	struct cxd_dev *d = to_cxd(item);
	char buf[CXD_PATH_MAX];
	const char *why = NULL;
	int ret;

	if (cxd_name_arg(page, count, buf, sizeof(buf))) {
		cxd_warn(d, "nand_backing: not ram or a path of 1-%d bytes",
			 CXD_PATH_MAX - 1);
		return -EINVAL;
	}
	if (!strcmp(buf, "ram"))
		*buf = '\0';
	else if (*buf != '/')
		why = "not ram or an absolute path";
	mutex_lock(&cxd_cfg_mutex);
	ret = -EINVAL;
	if (d->live) {
		why = "cannot change while powered (write 0 to power first)";
		ret = -EBUSY;
	} else if (!why && *buf && d->cfg.mode == CXD_MODE_NODE) {
		why = "node mode onlines host RAM: a NAND image is devdax only";
	} else if (!why && *buf && d->cfg.phys_addr) {
		why = "phys_addr is the device's backing: write 0 to phys_addr first";
	}
	if (why) {
		cxd_warn(d, "nand_backing: %s", why);
	} else {
		strscpy(d->cfg.nand_backing, buf, sizeof(d->cfg.nand_backing));
		ret = count;
	}
	mutex_unlock(&cxd_cfg_mutex);
	return ret;
}
CONFIGFS_ATTR(cxd_, nand_backing);

static ssize_t cxd_index_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", to_cxd(item)->index);
}
CONFIGFS_ATTR_RO(cxd_, index);

/* Every parameter, then the attributes that are not parameters. */
static ssize_t cxd_features_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%s\n",
			  CXD_PARAMS_ALL(CXD_P_NAME_) "preset nand_backing index power_fail power");
}
CONFIGFS_ATTR_RO(cxd_, features);

static ssize_t cxd_power_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", to_cxd(item)->live ? 1 : 0);
}

static ssize_t cxd_power_store(struct config_item *item, const char *page,
			       size_t count)
{
	struct cxd_dev *d = to_cxd(item);
	bool on;
	int ret = 0;

	if (cxd_parse_flag(page, count, &on)) {
		cxd_warn(d, "power: not 0, 1, off or on");
		return -EINVAL;
	}
	mutex_lock(&cxd_cfg_mutex);
	if (on && !d->live)
		ret = cxd_power_on(d);
	else if (!on && d->live)
		ret = cxd_power_off(d);
	mutex_unlock(&cxd_cfg_mutex);
	return ret ? ret : count;
}
CONFIGFS_ATTR(cxd_, power);

/*
 * power_fail: write 1 to model a sudden loss of power of a powered devdax
 * device with a NAND image: it powers off and its dirty lines are lost
 * (cxd_power_fail()). Refused (EINVAL) when off or without an image, EBUSY
 * while open or mapped.
 */
static ssize_t cxd_power_fail_store(struct config_item *item,
				    const char *page, size_t count)
{
	struct cxd_dev *d = to_cxd(item);
	const char *why = NULL;
	bool on;
	int ret = -EINVAL;

	if (cxd_parse_flag(page, count, &on) || !on) {
		cxd_warn(d, "power_fail: write 1 to fail the power");
		return -EINVAL;
	}
	mutex_lock(&cxd_cfg_mutex);
	if (!d->live)
		why = "the device is not powered";
	else if (!*d->cfg.nand_backing)
		why = "only with a NAND image (nand_backing): host RAM keeps nothing across power cycles";
	if (why)
		cxd_warn(d, "power_fail: %s", why);
	else
		ret = cxd_power_fail(d);
	mutex_unlock(&cxd_cfg_mutex);
	return ret ? ret : count;
}
CONFIGFS_ATTR_WO(cxd_, power_fail);

#define CXD_P_ATTR_PTR_(g, n, f, t, lo, hi, def, fl, u, nm)	\
	[CXD_PARAM_##n] = &cxd_attr_##n,

static struct configfs_attribute *cxd_attrs[] = {
	CXD_PARAMS_ALL(CXD_P_ATTR_PTR_)
	[CXD_PARAM_NR] = &cxd_attr_preset,
	&cxd_attr_nand_backing,
	&cxd_attr_index,
	&cxd_attr_features,
	&cxd_attr_power,
	&cxd_attr_power_fail,
	NULL,
};

static void cxd_item_release(struct config_item *item)
{
	struct cxd_dev *d = to_cxd(item);

	ida_free(&cxd_index_ida, d->index);
	kfree(d);
}

static struct configfs_item_operations cxd_item_ops = {
	.release = cxd_item_release,
};

static const struct config_item_type cxd_dev_type = {
	.ct_item_ops	= &cxd_item_ops,
	.ct_attrs	= cxd_attrs,
	.ct_owner	= THIS_MODULE,
};

/* Defaults: the table's (include/cxdvirt/params.h). */
static void cxd_cfg_defaults(struct cxd_cfg *c)
{
	CXD_PARAMS_DEFAULTS(&c->p, CXD_PARAMS_SHARED);
	CXD_PARAMS_DEFAULTS(c, CXD_PARAMS_KERNEL);
	c->cache_size_set = false;
}

static bool cxd_name_ok(const char *name)
{
	size_t i, len = strlen(name);

	if (!len || len >= CXD_NAME_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum(name[i]) && !strchr("_.-", name[i]))
			return false;
	return true;
}

static struct config_item *cxd_make_item(struct config_group *group,
					 const char *name)
{
	struct cxd_dev *d;
	int index;

	if (!cxd_name_ok(name)) {
		pr_warn(CXD_NAME ": mkdir %s: name must be 1-31 characters of [A-Za-z0-9_.-]\n",
			name);
		return ERR_PTR(-EINVAL);
	}
	index = ida_alloc_max(&cxd_index_ida, CXD_MAX_DEVICES - 1, GFP_KERNEL);
	if (index < 0) {
		pr_warn(CXD_NAME ": mkdir %s: no free device index (at most %d devices)\n",
			name, CXD_MAX_DEVICES);
		return ERR_PTR(index);
	}
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d) {
		ida_free(&cxd_index_ida, index);
		return ERR_PTR(-ENOMEM);
	}
	d->index = index;
	cxd_cfg_defaults(&d->cfg);
	config_item_init_type_name(&d->item, name, &cxd_dev_type);
	return &d->item;
}

/*
 * rmdir. configfs refuses it with -EBUSY while a devdax device is open (its
 * open files pin the item: struct cxd_live, "Open files") or a node-mode
 * device is powered (hotplug/node.c); an idle powered device is powered off
 * here.
 */
static void cxd_drop_item(struct config_group *group, struct config_item *item)
{
	struct cxd_dev *d = to_cxd(item);

	mutex_lock(&cxd_cfg_mutex);
	if (d->live)
		WARN_ON(cxd_power_off(d));
	mutex_unlock(&cxd_cfg_mutex);
	config_item_put(item);
}

static struct configfs_group_operations cxd_subsys_ops = {
	.make_item	= cxd_make_item,
	.drop_item	= cxd_drop_item,
};

static const struct config_item_type cxd_subsys_type = {
	.ct_group_ops	= &cxd_subsys_ops,
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem cxd_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf = CXD_NAME,
			.ci_type = &cxd_subsys_type,
		},
	},
};

int cxd_configfs_init(void)
{
	config_group_init(&cxd_subsys.su_group);
	mutex_init(&cxd_subsys.su_mutex);
	return configfs_register_subsystem(&cxd_subsys);
}

void cxd_configfs_exit(void)
{
	configfs_unregister_subsystem(&cxd_subsys);
}
