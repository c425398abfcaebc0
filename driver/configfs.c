// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt configuration through configfs, in the style of null_blk:
 * mkdir /sys/kernel/config/cxdvirt/<name> makes a device, its attributes are
 * written, then `power` 1 brings it up as /dev/cxdvirt<index>.
 *
 * Every store parses its value first, then takes cxd_cfg_mutex, then checks
 * the value against the rest of the configuration. Each attribute makes one
 * visible decision: may it change while the device is powered ("live"), in
 * which case the new value is applied to the running model at once. A bad
 * value returns -EINVAL, changes nothing and logs one line with the reason.
 */
#include <linux/ctype.h>
#include <linux/idr.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "cxdvirt.h"
#include "node.h"

#define CXD_MIN_CAPACITY	(2ull << 20)
#define CXD_MAX_CAPACITY	(64ull << 30)
#define CXD_CAPACITY_ALIGN	(2ull << 20)

static DEFINE_IDA(cxd_index_ida);

static inline struct cxd_dev *to_cxd(struct config_item *item)
{
	return container_of(item, struct cxd_dev, item);
}

/*
 * cxd_parse_u64() - strict number parser for configfs values.
 * Accepts decimal or 0x-hex, one optional trailing newline and, if @suffix,
 * one K, M or G (binary multiples). Rejects empty strings, signs, embedded
 * NULs, trailing garbage and overflow. Return: 0 or -EINVAL.
 */
static int cxd_parse_u64(const char *page, size_t count, bool suffix, u64 *out)
{
	char buf[32];
	unsigned int shift = 0;
	size_t len = count, i;
	u64 v;

	if (len && page[len - 1] == '\n')
		len--;
	if (!len || len >= sizeof(buf) || strnlen(page, len) != len)
		return -EINVAL;
	memcpy(buf, page, len);
	buf[len] = '\0';

	if (suffix && len > 1) {
		switch (buf[len - 1]) {
		case 'k': case 'K':
			shift = 10;
			break;
		case 'm': case 'M':
			shift = 20;
			break;
		case 'g': case 'G':
			shift = 30;
			break;
		}
		if (shift)
			buf[--len] = '\0';
	}
	/*
	 * Not kstrtou64(buf, 0): base 0 reads a leading 0 as octal ("0100" is
	 * 64), and the documented syntax is decimal or 0x-hex only.
	 */
	if (buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')) {
		/* base 16 would skip a second "0x" itself */
		for (i = 2; buf[i]; i++)
			if (!isxdigit(buf[i]))
				return -EINVAL;
		if (i == 2 || kstrtou64(buf + 2, 16, &v))
			return -EINVAL;
	} else if (!isdigit(buf[0]) || kstrtou64(buf, 10, &v)) {
		return -EINVAL;
	}
	if (shift && v > (U64_MAX >> shift))
		return -EINVAL;
	*out = v << shift;
	return 0;
}

enum cxd_kind { CXD_U64, CXD_U32, CXD_INT };

/**
 * struct cxd_attr_desc - how one numeric attribute is parsed and checked.
 * @name:	attribute name, for log lines.
 * @kind:	width of the field in struct cxd_cfg.
 * @suffix:	K/M/G accepted.
 * @live:	may change while powered; applied to the running model.
 * @check:	returns NULL if @v is acceptable for @d, else the reason.
 * @stored:	optional; called after a value was stored (cxd_cfg_mutex held).
 */
struct cxd_attr_desc {
	const char *name;
	enum cxd_kind kind;
	bool suffix;
	bool live;
	const char *(*check)(struct cxd_dev *d, s64 v);
	void (*stored)(struct cxd_dev *d);
};

static const char *cxd_check_capacity(struct cxd_dev *d, s64 v)
{
	if (v < CXD_MIN_CAPACITY || v > CXD_MAX_CAPACITY)
		return "out of range [2M, 64G]";
	if (v % CXD_CAPACITY_ALIGN)
		return "not a multiple of 2M";
	if (d->cfg.cache_size_set && v < d->cfg.cache_size)
		return "smaller than cache_size (lower cache_size first)";
	return NULL;
}

/* Until cache_size is written, it follows capacity: capacity / 8. */
static void cxd_stored_capacity(struct cxd_dev *d)
{
	if (!d->cfg.cache_size_set)
		d->cfg.cache_size = max_t(u64, CXD_HOST_PAGE_SIZE,
					  round_down(d->cfg.capacity / 8,
						     CXD_HOST_PAGE_SIZE));
}

static void cxd_stored_cache_size(struct cxd_dev *d)
{
	d->cfg.cache_size_set = true;
}

static const char *cxd_check_cache_size(struct cxd_dev *d, s64 v)
{
	if (v < CXD_HOST_PAGE_SIZE || v % CXD_HOST_PAGE_SIZE)
		return "not a positive multiple of 4K";
	if (v > d->cfg.capacity)
		return "larger than capacity";
	return NULL;
}

static const char *cxd_check_node(struct cxd_dev *d, s64 v)
{
	if (v == NUMA_NO_NODE)
		return NULL;
	if (v < 0 || v >= MAX_NUMNODES || !node_state(v, N_MEMORY))
		return "not -1 or an online node with memory";
	return NULL;
}

static const char *cxd_check_phys(struct cxd_dev *d, s64 v)
{
	if ((u64)v % CXD_CAPACITY_ALIGN)
		return "not 2M aligned";
	return NULL;
}

static const char *cxd_check_count(struct cxd_dev *d, s64 v)
{
	if (v < 1 || v > CXD_MAX_CHANNELS)
		return "out of range [1, 64]";
	return NULL;
}

static const char *cxd_check_nand_page(struct cxd_dev *d, s64 v)
{
	if (v < CXD_MIN_NAND_PAGE || v > CXD_MAX_NAND_PAGE || (v & (v - 1)))
		return "not a power of two in [4K, 64K]";
	return NULL;
}

static const char *cxd_check_latency(struct cxd_dev *d, s64 v)
{
	if ((u64)v > CXD_MAX_LATENCY_NS)
		return "above 100000000 ns (100 ms)";
	return NULL;
}

static const char *cxd_check_mbps(struct cxd_dev *d, s64 v)
{
	if (v < 1 || v > CXD_MAX_CHANNEL_MBPS)
		return "out of range [1, 100000] MB/s";
	return NULL;
}

static const char *cxd_check_target(struct cxd_dev *d, s64 v)
{
	if (v == NUMA_NO_NODE)
		return NULL;
	return cxd_node_check_target(v);
}

static const char *cxd_check_planes(struct cxd_dev *d, s64 v)
{
	if (v < 1 || v > CXD_MAX_PLANES)
		return "out of range [1, 16]";
	return NULL;
}

static const char *cxd_check_ppb(struct cxd_dev *d, s64 v)
{
	if (v < 0 || v > CXD_MAX_PAGES_PER_BLOCK)
		return "out of range [0 (no erase), 65536]";
	return NULL;
}

static const char *cxd_check_ways(struct cxd_dev *d, s64 v)
{
	if (v < 0 || v > (s64)(d->cfg.cache_size / CXD_HOST_PAGE_SIZE))
		return "not 0 (fully associative) or at most the cache lines";
	return NULL;
}

static const char *cxd_check_degree(struct cxd_dev *d, s64 v)
{
	if (v < 0 || v > CXD_MAX_PREFETCH_DEGREE)
		return "out of range [0, 16]";
	return NULL;
}

static const char *cxd_check_distance(struct cxd_dev *d, s64 v)
{
	if (v < 0 || v > CXD_PF_WINDOW)
		return "out of range [0, 64] strides";
	return NULL;
}

static const char *cxd_check_bool(struct cxd_dev *d, s64 v)
{
	if (v != 0 && v != 1)
		return "not 0 or 1";
	return NULL;
}

static const char *cxd_check_drain_high(struct cxd_dev *d, s64 v)
{
	if (v < 1 || v > 100)
		return "out of range [1, 100] %";
	if (v <= d->cfg.drain_low_pct)
		return "not above drain_low_pct (lower drain_low_pct first)";
	return NULL;
}

static const char *cxd_check_drain_low(struct cxd_dev *d, s64 v)
{
	if (v < 0 || v >= d->cfg.drain_high_pct)
		return "not in [0, drain_high_pct)";
	return NULL;
}

static const char *cxd_check_pct(struct cxd_dev *d, s64 v)
{
	if (v < 0 || v > 100)
		return "out of range [0, 100] %";
	return NULL;
}

static const char *cxd_check_op(struct cxd_dev *d, s64 v)
{
	if (v < 0 || v > CXD_FTL_MAX_OP_PCT)
		return "out of range [0, 100] %";
	return NULL;
}

static const char *cxd_check_gc(struct cxd_dev *d, s64 v)
{
	if (v < 1 || v > 65536)
		return "out of range [1, 65536] blocks";
	return NULL;
}

/*
 * CXD_PF_CHECK() - check of a learned-prefetcher parameter: the parameters
 * with @_f set to the new value must pass cxd_pf_params_check().
 */
#define CXD_PF_CHECK(_f)						\
static const char *cxd_check_##_f(struct cxd_dev *d, s64 v)		\
{									\
	struct cxd_pf_params p = d->cfg.pf;				\
									\
	p._f = v;							\
	return cxd_pf_params_check(&p);					\
}

CXD_PF_CHECK(bop_score_max)
CXD_PF_CHECK(bop_round_max)
CXD_PF_CHECK(bop_bad_score)
CXD_PF_CHECK(leap_split)
CXD_PF_CHECK(leap_window_max)
CXD_PF_CHECK(fdp_acc_high)
CXD_PF_CHECK(fdp_acc_low)
CXD_PF_CHECK(fdp_late)
CXD_PF_CHECK(fdp_poll)

static const char *cxd_check_any(struct cxd_dev *d, s64 v)
{
	return NULL;
}

/* The seed takes effect at once: the random policy restarts from it. */
static void cxd_stored_seed(struct cxd_dev *d)
{
	if (d->live) {
		cxd_model_lock(d->live);
		cxd_model_set_seed(&d->live->model, d->cfg.seed);
		spin_unlock(&d->live->lock);
	}
}

static const char *cxd_check_scan(struct cxd_dev *d, s64 v)
{
	if (v < 0 || v > 60000)
		return "out of range [0, 60000] ms";
	return NULL;
}

/* Apply a live timing change to the running model. Caller holds cxd_cfg_mutex. */
static void cxd_apply_live(struct cxd_dev *d)
{
	struct cxd_live *live = d->live;

	cxd_model_lock(live);
	cxd_model_apply_runtime(&live->model, &d->cfg);
	spin_unlock(&live->lock);
	cxd_apply_policy(live, &d->cfg);
	if (READ_ONCE(live->scan_interval_ms) != d->cfg.scan_interval_ms)
		cxd_scan_set_interval(live, d->cfg.scan_interval_ms);
}

static ssize_t cxd_store_num(struct cxd_dev *d, const struct cxd_attr_desc *a,
			     void *field, const char *page, size_t count)
{
	const char *why;
	u64 raw;
	s64 v;
	int ret = -EINVAL;

	if (a->kind == CXD_INT) {
		char buf[16];
		size_t len = count;
		int iv;

		if (len && page[len - 1] == '\n')
			len--;
		if (!len || len >= sizeof(buf) || strnlen(page, len) != len)
			goto bad_text;
		memcpy(buf, page, len);
		buf[len] = '\0';
		if (kstrtoint(buf, 10, &iv))
			goto bad_text;
		v = iv;
	} else {
		if (cxd_parse_u64(page, count, a->suffix, &raw))
			goto bad_text;
		if (raw > S64_MAX || (a->kind == CXD_U32 && raw > U32_MAX)) {
			cxd_warn(d, "%s: value too large", a->name);
			return -EINVAL;
		}
		v = raw;
	}

	mutex_lock(&cxd_cfg_mutex);
	if (d->live && !a->live) {
		cxd_warn(d, "%s: cannot change while powered (write 0 to power first)",
			 a->name);
		goto out;
	}
	why = a->check(d, v);
	if (why) {
		cxd_warn(d, "%s: %lld rejected: %s", a->name, v, why);
		goto out;
	}
	switch (a->kind) {
	case CXD_U64:
		*(u64 *)field = v;
		break;
	case CXD_U32:
		*(u32 *)field = v;
		break;
	case CXD_INT:
		*(int *)field = v;
		break;
	}
	if (a->stored)
		a->stored(d);
	if (d->live)
		cxd_apply_live(d);
	ret = count;
out:
	mutex_unlock(&cxd_cfg_mutex);
	return ret;

bad_text:
	cxd_warn(d, "%s: not a valid number%s", a->name,
		 a->suffix ? " (decimal or 0x-hex, optional K/M/G suffix)" : "");
	return -EINVAL;
}

/*
 * CXD_NUM_ATTR_HOOK() - one numeric attribute: show prints the field, store
 * goes through cxd_store_num() with the attribute's descriptor; @_stored,
 * if not NULL, runs after a value is stored. CXD_NUM_ATTR() has no hook.
 */
#define CXD_NUM_ATTR_HOOK(_name, _field, _kind, _suffix, _live, _check,	\
			  _stored, _fmt)				\
static const struct cxd_attr_desc cxd_desc_##_name = {			\
	.name = #_name, .kind = _kind, .suffix = _suffix,		\
	.live = _live, .check = _check, .stored = _stored,		\
};									\
static ssize_t cxd_##_name##_show(struct config_item *item, char *page)\
{									\
	return sysfs_emit(page, _fmt "\n", to_cxd(item)->cfg._field);	\
}									\
static ssize_t cxd_##_name##_store(struct config_item *item,		\
				   const char *page, size_t count)	\
{									\
	struct cxd_dev *d = to_cxd(item);				\
	return cxd_store_num(d, &cxd_desc_##_name, &d->cfg._field,	\
			     page, count);				\
}									\
CONFIGFS_ATTR(cxd_, _name)

#define CXD_NUM_ATTR(_name, _field, _kind, _suffix, _live, _check, _fmt)	\
	CXD_NUM_ATTR_HOOK(_name, _field, _kind, _suffix, _live, _check,	\
			  NULL, _fmt)

CXD_NUM_ATTR_HOOK(capacity, capacity, CXD_U64, true, false, cxd_check_capacity,
		  cxd_stored_capacity, "%llu");
CXD_NUM_ATTR_HOOK(cache_size, cache_size, CXD_U64, true, false,
		  cxd_check_cache_size, cxd_stored_cache_size, "%llu");
CXD_NUM_ATTR(backing_node, backing_node, CXD_INT, false, false, cxd_check_node, "%d");
CXD_NUM_ATTR(phys_addr, phys_addr, CXD_U64, true, false, cxd_check_phys, "0x%llx");
CXD_NUM_ATTR(channels, nand.channels, CXD_U32, false, false, cxd_check_count, "%u");
CXD_NUM_ATTR(dies_per_channel, nand.dies_per_channel, CXD_U32, false, false,
	     cxd_check_count, "%u");
CXD_NUM_ATTR(nand_page_size, nand.nand_page_size, CXD_U32, true, false,
	     cxd_check_nand_page, "%u");
CXD_NUM_ATTR(t_read_ns, nand.t_read_ns, CXD_U64, false, true, cxd_check_latency, "%llu");
CXD_NUM_ATTR(t_prog_ns, nand.t_prog_ns, CXD_U64, false, true, cxd_check_latency, "%llu");
CXD_NUM_ATTR(channel_mbps, nand.channel_mbps, CXD_U32, false, true, cxd_check_mbps, "%u");
CXD_NUM_ATTR(target_node, target_node, CXD_INT, false, false, cxd_check_target, "%d");
CXD_NUM_ATTR(scan_interval_ms, scan_interval_ms, CXD_U32, false, true, cxd_check_scan, "%u");
CXD_NUM_ATTR(planes_per_die, nand.planes_per_die, CXD_U32, false, false,
	     cxd_check_planes, "%u");
CXD_NUM_ATTR(pages_per_block, nand.pages_per_block, CXD_U32, false, false,
	     cxd_check_ppb, "%u");
CXD_NUM_ATTR(t_bers_ns, nand.t_bers_ns, CXD_U64, false, true, cxd_check_latency, "%llu");
CXD_NUM_ATTR(ways, ways, CXD_U32, false, false, cxd_check_ways, "%u");
CXD_NUM_ATTR(prefetch_degree, prefetch_degree, CXD_U32, false, true,
	     cxd_check_degree, "%u");
CXD_NUM_ATTR(prefetch_distance, prefetch_distance, CXD_U32, false, true,
	     cxd_check_distance, "%u");
CXD_NUM_ATTR(write_alloc, write_alloc, CXD_U32, false, true, cxd_check_bool, "%u");
CXD_NUM_ATTR(drain_high_pct, drain_high_pct, CXD_U32, false, true,
	     cxd_check_drain_high, "%u");
CXD_NUM_ATTR(drain_low_pct, drain_low_pct, CXD_U32, false, true,
	     cxd_check_drain_low, "%u");
CXD_NUM_ATTR(skip_unwritten, skip_unwritten, CXD_U32, false, true,
	     cxd_check_bool, "%u");
CXD_NUM_ATTR(cflru_window_pct, cflru_window_pct, CXD_U32, false, true,
	     cxd_check_pct, "%u");
CXD_NUM_ATTR(bop_score_max, pf.bop_score_max, CXD_U32, false, true,
	     cxd_check_bop_score_max, "%u");
CXD_NUM_ATTR(bop_round_max, pf.bop_round_max, CXD_U32, false, true,
	     cxd_check_bop_round_max, "%u");
CXD_NUM_ATTR(bop_bad_score, pf.bop_bad_score, CXD_U32, false, true,
	     cxd_check_bop_bad_score, "%u");
CXD_NUM_ATTR(leap_split, pf.leap_split, CXD_U32, false, true,
	     cxd_check_leap_split, "%u");
CXD_NUM_ATTR(leap_window_max, pf.leap_window_max, CXD_U32, false, true,
	     cxd_check_leap_window_max, "%u");
CXD_NUM_ATTR(fdp_interval, pf.fdp_interval, CXD_U32, false, true,
	     cxd_check_any, "%u");
CXD_NUM_ATTR(fdp_accuracy_high, pf.fdp_acc_high, CXD_U32, false, true,
	     cxd_check_fdp_acc_high, "%u");
CXD_NUM_ATTR(fdp_accuracy_low, pf.fdp_acc_low, CXD_U32, false, true,
	     cxd_check_fdp_acc_low, "%u");
CXD_NUM_ATTR(fdp_lateness, pf.fdp_late, CXD_U32, false, true,
	     cxd_check_fdp_late, "%u");
CXD_NUM_ATTR(fdp_pollution, pf.fdp_poll, CXD_U32, false, true,
	     cxd_check_fdp_poll, "%u");
CXD_NUM_ATTR(op_pct, ftl.op_pct, CXD_U32, false, false, cxd_check_op, "%u");
CXD_NUM_ATTR(gc_low, ftl.gc_low, CXD_U32, false, false, cxd_check_gc, "%u");
CXD_NUM_ATTR(gc_high, ftl.gc_high, CXD_U32, false, false, cxd_check_gc, "%u");
CXD_NUM_ATTR(ftl_fill, ftl_fill, CXD_U32, false, false, cxd_check_bool, "%u");
CXD_NUM_ATTR_HOOK(seed, seed, CXD_U64, false, true, cxd_check_any,
		  cxd_stored_seed, "%llu");

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

static ssize_t cxd_policy_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%s\n", cxd_policy_name(to_cxd(item)->cfg.policy));
}

static ssize_t cxd_policy_store(struct config_item *item, const char *page,
				size_t count)
{
	struct cxd_dev *d = to_cxd(item);
	char buf[16], names[96];
	int i, n = 0, p = -1;

	if (!cxd_name_arg(page, count, buf, sizeof(buf)))
		p = cxd_policy_parse(buf);
	if (p < 0) {
		for (i = 0; i < CXD_POLICY_NR; i++)
			n += scnprintf(names + n, sizeof(names) - n, "%s%s",
				       i ? " " : "", cxd_policy_name(i));
		cxd_warn(d, "policy: unknown policy (supported: %s)", names);
		return -EINVAL;
	}
	mutex_lock(&cxd_cfg_mutex);
	d->cfg.policy = p;
	if (d->live)
		cxd_apply_live(d);
	mutex_unlock(&cxd_cfg_mutex);
	return count;
}
CONFIGFS_ATTR(cxd_, policy);

static ssize_t cxd_prefetch_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%s\n", cxd_prefetch_name(to_cxd(item)->cfg.prefetch));
}

static ssize_t cxd_prefetch_store(struct config_item *item, const char *page,
				  size_t count)
{
	struct cxd_dev *d = to_cxd(item);
	char buf[16], names[64];
	int i, n = 0, p = -1;

	if (!cxd_name_arg(page, count, buf, sizeof(buf)))
		p = cxd_prefetch_parse(buf);
	if (p < 0) {
		for (i = 0; i < CXD_PF_NR; i++)
			n += scnprintf(names + n, sizeof(names) - n, "%s%s",
				       i ? " " : "", cxd_prefetch_name(i));
		cxd_warn(d, "prefetch: unknown prefetcher (supported: %s)", names);
		return -EINVAL;
	}
	mutex_lock(&cxd_cfg_mutex);
	d->cfg.prefetch = p;
	if (d->live)
		cxd_apply_live(d);
	mutex_unlock(&cxd_cfg_mutex);
	return count;
}
CONFIGFS_ATTR(cxd_, prefetch);

static ssize_t cxd_writeback_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%s\n", cxd_writeback_name(to_cxd(item)->cfg.writeback));
}

static ssize_t cxd_writeback_store(struct config_item *item, const char *page,
				   size_t count)
{
	struct cxd_dev *d = to_cxd(item);
	char buf[16];
	int wb = -1;

	if (!cxd_name_arg(page, count, buf, sizeof(buf)))
		wb = cxd_writeback_parse(buf);
	if (wb < 0) {
		cxd_warn(d, "writeback: unknown mode (supported: evict drain)");
		return -EINVAL;
	}
	mutex_lock(&cxd_cfg_mutex);
	d->cfg.writeback = wb;
	if (d->live)
		cxd_apply_live(d);
	mutex_unlock(&cxd_cfg_mutex);
	return count;
}
CONFIGFS_ATTR(cxd_, writeback);

static ssize_t cxd_ftl_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%s\n", cxd_ftl_name(to_cxd(item)->cfg.ftl.mode));
}

/* Not live: the FTL's state is sized at power-on. */
static ssize_t cxd_ftl_store(struct config_item *item, const char *page,
			     size_t count)
{
	struct cxd_dev *d = to_cxd(item);
	char buf[16];
	int f = -1, ret = count;

	if (!cxd_name_arg(page, count, buf, sizeof(buf)))
		f = cxd_ftl_parse(buf);
	if (f < 0) {
		cxd_warn(d, "ftl: unknown mode (supported: off page)");
		return -EINVAL;
	}
	mutex_lock(&cxd_cfg_mutex);
	if (d->live) {
		cxd_warn(d, "ftl: cannot change while powered (write 0 to power first)");
		ret = -EINVAL;
	} else {
		d->cfg.ftl.mode = f;
	}
	mutex_unlock(&cxd_cfg_mutex);
	return ret;
}
CONFIGFS_ATTR(cxd_, ftl);

static ssize_t cxd_stripe_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%s\n", cxd_stripe_name(to_cxd(item)->cfg.nand.stripe));
}

static ssize_t cxd_stripe_store(struct config_item *item, const char *page,
				size_t count)
{
	struct cxd_dev *d = to_cxd(item);
	char buf[16];
	int st = -1, ret = count;

	if (!cxd_name_arg(page, count, buf, sizeof(buf)))
		st = cxd_stripe_parse(buf);
	if (st < 0) {
		cxd_warn(d, "stripe: unknown layout (supported: channel die plane)");
		return -EINVAL;
	}
	mutex_lock(&cxd_cfg_mutex);
	if (d->live) {
		cxd_warn(d, "stripe: cannot change while powered (write 0 to power first)");
		ret = -EINVAL;
	} else {
		d->cfg.nand.stripe = st;
	}
	mutex_unlock(&cxd_cfg_mutex);
	return ret;
}
CONFIGFS_ATTR(cxd_, stripe);

/* preset: write a name to load that preset's NAND geometry and timing. */
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
	} else {
		d->cfg.nand = p->nand;
		ret = count;
	}
	mutex_unlock(&cxd_cfg_mutex);
	return ret;
}
CONFIGFS_ATTR(cxd_, preset);

static const char * const cxd_mode_names[] = {
	[CXD_MODE_DEVDAX] = "devdax",
	[CXD_MODE_NODE] = "node",
};

static ssize_t cxd_mode_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%s\n", cxd_mode_names[to_cxd(item)->cfg.mode]);
}

/* Not live: the mode decides what power-on builds. */
static ssize_t cxd_mode_store(struct config_item *item, const char *page,
			      size_t count)
{
	struct cxd_dev *d = to_cxd(item);
	int m = sysfs_match_string(cxd_mode_names, page);
	int ret = count;

	if (m < 0) {
		cxd_warn(d, "mode: unknown mode (supported: devdax, node)");
		return -EINVAL;
	}
	mutex_lock(&cxd_cfg_mutex);
	if (d->live) {
		cxd_warn(d, "mode: cannot change while powered (write 0 to power first)");
		ret = -EINVAL;
	} else {
		d->cfg.mode = m;
	}
	mutex_unlock(&cxd_cfg_mutex);
	return ret;
}
CONFIGFS_ATTR(cxd_, mode);

static const char *const cxd_onoff_names[] = { "off", "on" };

static ssize_t cxd_node_latency_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%s\n",
			  cxd_onoff_names[to_cxd(item)->cfg.node_latency]);
}

/*
 * Not live: the hooks are attached at power-on. "on" needs a kernel whose
 * hooks node mode knows (hotplug/nodelat.c, compat.h).
 */
static ssize_t cxd_node_latency_store(struct config_item *item,
				      const char *page, size_t count)
{
	struct cxd_dev *d = to_cxd(item);
	int v = sysfs_match_string(cxd_onoff_names, page);
	int ret = count;

	if (v < 0) {
		cxd_warn(d, "node_latency: not on or off");
		return -EINVAL;
	}
	if (v && !cxd_nodelat_supported()) {
		cxd_warn(d, "node_latency: not supported on this kernel (Linux 6.1 and 6.12 are; 7.x does not export the TLB flush and page-range walk eviction needs)");
		return -EOPNOTSUPP;
	}
	mutex_lock(&cxd_cfg_mutex);
	if (d->live) {
		cxd_warn(d, "node_latency: cannot change while powered (write 0 to power first)");
		ret = -EINVAL;
	} else {
		d->cfg.node_latency = v;
	}
	mutex_unlock(&cxd_cfg_mutex);
	return ret;
}
CONFIGFS_ATTR(cxd_, node_latency);

static ssize_t cxd_index_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%d\n", to_cxd(item)->index);
}
CONFIGFS_ATTR_RO(cxd_, index);

static ssize_t cxd_features_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "capacity cache_size backing_node phys_addr channels dies_per_channel nand_page_size t_read_ns t_prog_ns channel_mbps planes_per_die pages_per_block t_bers_ns stripe ftl op_pct gc_low gc_high ftl_fill ways policy cflru_window_pct prefetch prefetch_degree prefetch_distance bop_score_max bop_round_max bop_bad_score leap_split leap_window_max fdp_interval fdp_accuracy_high fdp_accuracy_low fdp_lateness fdp_pollution write_alloc skip_unwritten writeback drain_high_pct drain_low_pct seed preset scan_interval_ms mode target_node node_latency index power\n");
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

	if (kstrtobool(page, &on)) {
		cxd_warn(d, "power: not 0 or 1");
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

static struct configfs_attribute *cxd_attrs[] = {
	&cxd_attr_capacity,
	&cxd_attr_cache_size,
	&cxd_attr_backing_node,
	&cxd_attr_phys_addr,
	&cxd_attr_channels,
	&cxd_attr_dies_per_channel,
	&cxd_attr_nand_page_size,
	&cxd_attr_t_read_ns,
	&cxd_attr_t_prog_ns,
	&cxd_attr_channel_mbps,
	&cxd_attr_policy,
	&cxd_attr_scan_interval_ms,
	&cxd_attr_planes_per_die,
	&cxd_attr_pages_per_block,
	&cxd_attr_t_bers_ns,
	&cxd_attr_ways,
	&cxd_attr_prefetch,
	&cxd_attr_prefetch_degree,
	&cxd_attr_prefetch_distance,
	&cxd_attr_write_alloc,
	&cxd_attr_skip_unwritten,
	&cxd_attr_writeback,
	&cxd_attr_stripe,
	&cxd_attr_drain_high_pct,
	&cxd_attr_drain_low_pct,
	&cxd_attr_seed,
	&cxd_attr_cflru_window_pct,
	&cxd_attr_bop_score_max,
	&cxd_attr_bop_round_max,
	&cxd_attr_bop_bad_score,
	&cxd_attr_leap_split,
	&cxd_attr_leap_window_max,
	&cxd_attr_fdp_interval,
	&cxd_attr_fdp_accuracy_high,
	&cxd_attr_fdp_accuracy_low,
	&cxd_attr_fdp_lateness,
	&cxd_attr_fdp_pollution,
	&cxd_attr_ftl,
	&cxd_attr_op_pct,
	&cxd_attr_gc_low,
	&cxd_attr_gc_high,
	&cxd_attr_ftl_fill,
	&cxd_attr_preset,
	&cxd_attr_mode,
	&cxd_attr_target_node,
	&cxd_attr_node_latency,
	&cxd_attr_index,
	&cxd_attr_features,
	&cxd_attr_power,
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

/*
 * Defaults: a small, sane device. NAND timing is Samsung Z-NAND SLC
 * (tR 3 us, tPROG 100 us; Cheong et al., ISSCC 2018) on a 1200 MB/s channel.
 */
static void cxd_cfg_defaults(struct cxd_cfg *c)
{
	c->capacity = 64ull << 20;
	c->cache_size = 8ull << 20;
	c->backing_node = NUMA_NO_NODE;
	c->phys_addr = 0;
	c->mode = CXD_MODE_DEVDAX;
	c->target_node = NUMA_NO_NODE;
	c->nand.channels = 8;
	c->nand.dies_per_channel = 4;
	c->nand.nand_page_size = 4096;
	c->nand.t_read_ns = 3000;
	c->nand.t_prog_ns = 100000;
	c->nand.channel_mbps = 1200;
	c->policy = CXD_POLICY_FIFO;
	c->scan_interval_ms = 100;
	c->nand.planes_per_die = 1;
	c->nand.t_bers_ns = 1000000;
	c->prefetch = CXD_PF_NONE;
	c->prefetch_degree = 1;
	c->write_alloc = CXD_WA_FETCH;
	c->writeback = CXD_WB_EVICT;
	c->drain_high_pct = 95;	/* CXDVirt's background drain marks */
	c->drain_low_pct = 85;
	c->node_latency = cxd_nodelat_supported();
	c->cflru_window_pct = CXD_CFLRU_WINDOW_PCT;
	cxd_pf_params_default(&c->pf);
	c->ftl.mode = CXD_FTL_OFF;
	c->ftl.op_pct = CXD_FTL_OP_PCT;
	c->ftl.gc_low = CXD_FTL_GC_LOW;
	c->ftl.gc_high = CXD_FTL_GC_HIGH;
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
