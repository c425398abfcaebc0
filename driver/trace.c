// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt per-miss trace: an optional bounded ring of the device's misses,
 * read as text through debugfs.
 *
 * configfs `trace_entries` (0: off, the default; at most
 * CXD_TRACE_MAX_ENTRIES) sizes the ring at power-on. The fault path records
 * one entry per miss under the device lock, in O(1): when the ring is full
 * the new entry is dropped and counted (stats/trace_dropped), so what is
 * kept is always the oldest unread misses, in order.
 *
 * /sys/kernel/debug/cxdvirt/cxdvirtN/trace (mode 0400) prints one line per
 * miss and consumes what it prints:
 *
 *   TIME_NS PAGE CH DIE WAIT_NS CAUSE MODEL_NS MEASURED_NS
 *
 * TIME_NS is the fault's arrival (CLOCK_MONOTONIC, ns); PAGE the device
 * page; CH and DIE where the NAND read ran ("-" when no read was done);
 * WAIT_NS the modeled queueing delay before the die started the read;
 * CAUSE one of read, write, write_alloc (a write miss allocated without a
 * read) or unwritten (a read skipped by skip_unwritten); MODEL_NS the
 * modeled miss latency and MEASURED_NS the latency the fault measured.
 * Readers are serialised by a mutex; only a reader removes entries, only
 * the fault path adds them.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "cxdvirt.h"

/* Longest formatted line: 8 fields of at most 20 characters, separators. */
#define CXD_TRACE_LINE_MAX	192

enum cxd_trace_cause {
	CXD_TRACE_READ = 0,
	CXD_TRACE_WRITE,
	CXD_TRACE_WRITE_ALLOC,
	CXD_TRACE_UNWRITTEN,
};

static const char * const cxd_trace_cause_names[] = {
	[CXD_TRACE_READ]	= "read",
	[CXD_TRACE_WRITE]	= "write",
	[CXD_TRACE_WRITE_ALLOC]	= "write_alloc",
	[CXD_TRACE_UNWRITTEN]	= "unwritten",
};

/**
 * struct cxd_trace_ent - one recorded miss. Times in ns.
 * @time_ns:	fault arrival, CLOCK_MONOTONIC.
 * @page:	device page.
 * @wait_ns:	modeled queueing delay (read start - arrival).
 * @model_ns:	modeled latency (completion - arrival).
 * @measured_ns: measured latency of the fault.
 * @channel:	channel of the NAND read.
 * @die:	die of the NAND read.
 * @nand:	a NAND read was done (else @channel and @die mean nothing).
 * @cause:	enum cxd_trace_cause.
 */
struct cxd_trace_ent {
	u64 time_ns;
	u64 page;
	u64 wait_ns;
	u64 model_ns;
	u64 measured_ns;
	u16 channel;
	u16 die;
	u8 nand;
	u8 cause;
};

/**
 * struct cxd_trace - the ring of one powered device.
 * @size:	capacity in entries (configfs trace_entries).
 * @head:	index of the oldest entry; moved only by a reader.
 * @count:	entries held.
 * @dropped:	misses not recorded because the ring was full.
 * @read_mutex:	serialises readers of the debugfs file.
 * @dir:	debugfs directory cxdvirt/cxdvirtN, or NULL.
 * @ent:	@size entries.
 *
 * @head, @count, @dropped and @ent are protected by the device's lock.
 */
struct cxd_trace {
	u32 size;
	u32 head;
	u32 count;
	u64 dropped;
	struct mutex read_mutex;
	struct dentry *dir;
	struct cxd_trace_ent ent[];
};

static struct dentry *cxd_debugfs_root;

/**
 * cxd_trace_init() - create the debugfs directory "cxdvirt" at module load.
 *
 * Context: process. debugfs may be absent or fail: then no trace file
 * appears and everything else works.
 */
void cxd_trace_init(void)
{
	cxd_debugfs_root = debugfs_create_dir(CXD_NAME, NULL);
}

/** cxd_trace_exit() - remove the debugfs directory at module unload. */
void cxd_trace_exit(void)
{
	debugfs_remove(cxd_debugfs_root);
	cxd_debugfs_root = NULL;
}

/**
 * cxd_trace_alloc() - give powered-up device @l a trace ring.
 * @l:		device being powered on, not yet visible.
 * @entries:	ring capacity, 0 (no ring) .. CXD_TRACE_MAX_ENTRIES.
 *
 * Memory: 48 bytes per entry plus a small header, from kvzalloc().
 * Context: process, may sleep.
 * Return: 0, -EINVAL if @entries is too large, or -ENOMEM.
 */
int cxd_trace_alloc(struct cxd_live *l, u32 entries)
{
	struct cxd_trace *t;

	if (!entries)
		return 0;
	if (entries > CXD_TRACE_MAX_ENTRIES)
		return -EINVAL;
	t = kvzalloc(struct_size(t, ent, entries), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->size = entries;
	mutex_init(&t->read_mutex);
	l->trace = t;
	return 0;
}

/**
 * cxd_trace_free() - free @l's ring (no-op without one).
 *
 * Context: the device's last reference is gone (no fault, no reader).
 */
void cxd_trace_free(struct cxd_live *l)
{
	kvfree(l->trace);
	l->trace = NULL;
}

/**
 * cxd_trace_miss() - record one miss of device @l (no-op without a ring).
 * @l:		device.
 * @page:	the faulting device page.
 * @write:	the fault was a write.
 * @t0:		fault arrival, CLOCK_MONOTONIC ns (the model's now).
 * @t1:		when the fault's wait ended, ns.
 * @acc:	the model's outcome for the fault (a miss).
 *
 * Context: any; caller holds @l->lock. O(1), never sleeps. A full ring
 * counts the miss in trace_dropped instead.
 */
void cxd_trace_miss(struct cxd_live *l, u64 page, bool write, u64 t0, u64 t1,
		    const struct cxd_access *acc)
{
	struct cxd_trace *t = l->trace;
	struct cxd_trace_ent *e;
	u32 i;

	if (!t)
		return;
	if (t->count == t->size) {
		t->dropped++;
		return;
	}
	i = t->head + t->count;
	if (i >= t->size)
		i -= t->size;
	e = &t->ent[i];
	e->time_ns = t0;
	e->page = page;
	e->nand = acc->read.done_ns > acc->read.start_ns;
	e->channel = acc->read.channel;
	e->die = acc->read.die;
	e->wait_ns = acc->read.start_ns - t0;
	e->model_ns = acc->done_ns - t0;
	e->measured_ns = t1 - t0;
	if (e->nand)
		e->cause = write ? CXD_TRACE_WRITE : CXD_TRACE_READ;
	else if (write && l->model.write_alloc == CXD_WA_NOFETCH)
		e->cause = CXD_TRACE_WRITE_ALLOC;
	else
		e->cause = CXD_TRACE_UNWRITTEN;
	t->count++;
}

/**
 * cxd_trace_dropped() - misses of @l not recorded since the last reset.
 * Context: caller holds @l->lock. Return: the count, 0 without a ring.
 */
u64 cxd_trace_dropped(struct cxd_live *l)
{
	return l->trace ? l->trace->dropped : 0;
}

/**
 * cxd_trace_reset_dropped() - zero @l's dropped count (stats/reset). The
 * entries stay until read. Context: caller holds @l->lock.
 */
void cxd_trace_reset_dropped(struct cxd_live *l)
{
	if (l->trace)
		l->trace->dropped = 0;
}

static int cxd_trace_format(const struct cxd_trace_ent *e, char *buf,
			    size_t len)
{
	const char *cause = cxd_trace_cause_names[e->cause];

	if (!e->nand)
		return scnprintf(buf, len, "%llu %llu - - %llu %s %llu %llu\n",
				 e->time_ns, e->page, e->wait_ns, cause,
				 e->model_ns, e->measured_ns);
	return scnprintf(buf, len, "%llu %llu %u %u %llu %s %llu %llu\n",
			 e->time_ns, e->page, e->channel, e->die, e->wait_ns,
			 cause, e->model_ns, e->measured_ns);
}

/*
 * read: as many whole lines as fit in @count, each removed from the ring
 * once copied. 0 when the ring is empty; -EINVAL if @count cannot hold one
 * line (CXD_TRACE_LINE_MAX bytes always can).
 */
static ssize_t cxd_trace_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct cxd_live *l = file->private_data;
	struct cxd_trace *t = l->trace;
	char line[CXD_TRACE_LINE_MAX];
	struct cxd_trace_ent e;
	ssize_t done = 0;
	bool have;
	int len;

	if (mutex_lock_interruptible(&t->read_mutex))
		return -EINTR;
	while (done < count) {
		spin_lock(&l->lock);
		have = t->count;
		if (have)
			e = t->ent[t->head];
		spin_unlock(&l->lock);
		if (!have)
			break;
		len = cxd_trace_format(&e, line, sizeof(line));
		if (len > count - done) {
			if (!done)
				done = -EINVAL;
			break;
		}
		if (copy_to_user(ubuf + done, line, len)) {
			if (!done)
				done = -EFAULT;
			break;
		}
		/* Only this reader moves head: the entry is still the oldest. */
		spin_lock(&l->lock);
		t->head = t->head + 1 == t->size ? 0 : t->head + 1;
		t->count--;
		spin_unlock(&l->lock);
		done += len;
		if (fatal_signal_pending(current))
			break;
	}
	mutex_unlock(&t->read_mutex);
	if (done > 0)
		*ppos += done;
	return done;
}

static const struct file_operations cxd_trace_fops = {
	.owner		= THIS_MODULE,
	.open		= simple_open,
	.read		= cxd_trace_read,
	.llseek		= noop_llseek,
};

/**
 * cxd_trace_debugfs_add() - create cxdvirt/cxdvirtN/trace for @l if it has
 * a ring. A debugfs failure only leaves the file out.
 * Context: process; caller holds cxd_cfg_mutex; @l's device is named.
 */
void cxd_trace_debugfs_add(struct cxd_live *l)
{
	struct dentry *dir;

	if (!l->trace || IS_ERR_OR_NULL(cxd_debugfs_root))
		return;
	dir = debugfs_create_dir(dev_name(&l->dev), cxd_debugfs_root);
	if (IS_ERR(dir))
		return;
	debugfs_create_file("trace", 0400, dir, l, &cxd_trace_fops);
	l->trace->dir = dir;
}

/**
 * cxd_trace_debugfs_remove() - remove @l's debugfs directory; waits for
 * readers inside the file's read to leave.
 * Context: process, may sleep; caller holds cxd_cfg_mutex.
 */
void cxd_trace_debugfs_remove(struct cxd_live *l)
{
	if (!l->trace)
		return;
	debugfs_remove(l->trace->dir);
	l->trace->dir = NULL;
}
