// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt devdax mode: the NAND image (nand_backing = a path).
 *
 * With a NAND image the device's contents live in a file, not in host
 * memory: host memory holds only the cache, one host page per resident
 * (materialised) device page, in the image's resident set (struct
 * cxd_img), and the model's state.
 * The image is the NAND:
 *   - a miss reads the device page from the image into a host page (one
 *     an eviction left, else a new one: see cxd_img_spare_put()),
 *     inside the modeled time (the wait ends at max(model, I/O done); an
 *     I/O that ends later is counted in stats/io_overruns);
 *   - a line the model writes back (a dirty victim, by the fault path or
 *     the drain) is written to the image when its victim leaves the
 *     mappings, then its host page is freed or kept for the next miss;
 *   - power-off writes every dirty line back and syncs the image (an
 *     orderly shutdown), so the contents survive power cycles and module
 *     reloads; a host reboot, halt or power-off with the device still
 *     powered writes them back too (cxd_img_reboot()). The model starts
 *     cold at power-on.
 *
 * The image is a regular file of capacity + 4 KiB bytes: device page N at
 * offset N * 4 KiB (holes read as zeros, so a new image is sparse), then a
 * header page recording the geometry, which power-on checks; or a block
 * device at least that large, its header in its last 4 KiB
 * (cxd_img_check_bdev()). It is opened
 * O_DIRECT where the filesystem allows it, so that the image's pages do
 * not stay in the host page cache as well; elsewhere, and on tmpfs (whose
 * page cache is its storage), buffered: a miss then copies a cached page
 * straight from the page cache.
 *
 * A page prefetched by a miss is read by that miss too, after its demand
 * page, if it can take the page's slot lock and line at once; otherwise at
 * its first use.
 *
 * A victim the kernel still holds (get_user_pages: O_DIRECT in flight, a
 * pipe) is written back like any other, but its host page stays the device
 * page's, mapped nowhere, recorded in the image's @held: what the holder
 * writes into it later is not lost, and the page's next miss maps it again
 * instead of reading the image. Once the pin has dropped, a later eviction
 * finds it (cxd_img_reap()), writes it back (whatever the holder wrote)
 * and lets the page go: host memory beyond the cache is the pages pins hold.
 */
#include <linux/bvec.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/highmem.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/namei.h>
#include <linux/pagemap.h>
#include <linux/reboot.h>
#include <linux/suspend.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uio.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "compat.h"
#include "cxdvirt.h"
#include "devdax.h"

#define CXD_IMG_MAGIC	"CXDVNAND"
#define CXD_IMG_VERSION	1

/**
 * struct cxd_img_hdr - the NAND image's header, its last 4 KiB
 * (little-endian, the rest of the page zero).
 * @magic:	CXD_IMG_MAGIC.
 * @version:	CXD_IMG_VERSION.
 * @page_size:	bytes per device page of the image (4096).
 * @capacity:	device capacity, bytes: the header's offset.
 * @dirty_shutdowns: power failures (power_fail) that lost dirty lines, and
 *		power-ons that found @flags' CXD_IMG_POWERED, over the image's
 *		life.
 * @lines_lost:	dirty lines the last power_fail lost.
 * @flags:	CXD_IMG_POWERED while a device has the image powered on. Set
 *		(and synced) at power-on, cleared at power-off, power_fail and
 *		the host's orderly shutdown (cxd_img_reboot()); so a power-on
 *		that finds it set follows a host that stopped without any of
 *		them: a crash, a power cut, a killed VM. Older images have 0.
 */
struct cxd_img_hdr {
	char magic[8];
	__le32 version;
	__le32 page_size;
	__le64 capacity;
	__le64 dirty_shutdowns;
	__le64 lines_lost;
	__le64 flags;
};

#define CXD_IMG_POWERED	BIT_ULL(0)

/* Host pages of evicted lines kept for the next misses: at most this many. */
#define CXD_IMG_SPARE	8

/*
 * Pages of @held that each eviction looks at (cxd_img_reap()): a page whose
 * pin dropped is let go within (pages held) / CXD_IMG_REAP evictions, and
 * an eviction never walks a long list (pipes can hold thousands).
 */
#define CXD_IMG_REAP	4

/**
 * struct cxd_img - an open NAND image.
 * @file:	the image, opened read-write (O_DIRECT if @direct).
 * @direct:	opened O_DIRECT.
 * @tmpfs:	the image is on tmpfs (buffered: cxd_img_file()).
 * @bdev:	the image is a block device (cxd_img_check_bdev()).
 * @hdr_off:	byte offset of its header: its last 4 KiB.
 * @hdr:	its header as read (or written) at power-on.
 * @live:	the device it belongs to.
 * @node:	in cxd_img_list while open.
 * @nspare:	pages in @spare.
 * @spare:	host pages of evicted lines, each with the device's reference
 *		only, mapped nowhere, no ->mapping (cxd_img_spare_put()).
 * @set_lock:	protects @set, @set_count, @nspare and @spare (taken inside
 *		cxd_live.lock): a miss finds its page absent and takes a
 *		spare in one hold.
 * @set_bits:	log2 of @set's buckets (at least 6).
 * @set_count:	pages in @set.
 * @set:	the resident set: the host page of each materialised device
 *		page, at most the cache's lines plus pinned leftovers. A
 *		chained hash table of device pages (hash_64()), with at least
 *		as many buckets as the cache has lines; each page holds the
 *		device's reference and is keyed by its ->index (the device
 *		page), its ->private linking the next page of its bucket.
 *		Both fields are the device's: its pages are never in a page
 *		cache, on the LRU or in the swap cache. An xarray did the
 *		same with about 1 200 instructions more per image miss and
 *		eviction (its lookups, insert and erase; measured in an
 *		icount guest), a fifth of the fastest modeled miss.
 * @held:	device pages whose host page a holder still had when the line
 *		was evicted (cxd_img_evict()): in @set, mapped nowhere, out of
 *		the cache, to be let go once the pin drops (cxd_img_reap()).
 *		Indexed by device page, value xa_mk_value(0).
 * @reap_from:	the device page cxd_img_reap() looks at next (a hint).
 */
struct cxd_img {
	struct file *file;
	bool direct;
	bool tmpfs;
	bool bdev;
	u64 hdr_off;
	struct cxd_img_hdr hdr;
	struct cxd_live *live;
	struct list_head node;
	unsigned int nspare;
	struct page *spare[CXD_IMG_SPARE];
	spinlock_t set_lock;
	unsigned int set_bits;
	u64 set_count;
	struct page **set;
	struct xarray held;
	unsigned long reap_from;
};

/*
 * The open images, for cxd_img_reboot(): an image joins at power-on and
 * leaves at the end of its power-off. cxd_img_list_mutex is held over the
 * whole power-off (cxd_img_close()) and the reboot's whole walk, so a
 * reboot waits for a power-off under way, and no image closes under it.
 * @cxd_img_shutdown: the host's shutdown flushed the images; from then on
 * no power-on opens one. @cxd_img_hibernating: a hibernation is under way
 * (tasks frozen, the snapshot taken or being taken): a power-off at its
 * end flushes nothing (cxd_img_reboot()). All three under the mutex.
 */
static LIST_HEAD(cxd_img_list);
static DEFINE_MUTEX(cxd_img_list_mutex);
static bool cxd_img_shutdown;
static bool cxd_img_hibernating;

static inline struct page *cxd_img_next(struct page *page)
{
	return (struct page *)page_private(page);
}

static inline u64 cxd_img_key(struct page *page)
{
	return page_folio(page)->index;
}

static inline struct page **cxd_img_bucket(struct cxd_img *img, u64 pgoff)
{
	return &img->set[hash_64(pgoff, img->set_bits)];
}

/* cxd_img_find() under @img->set_lock. */
static struct page *cxd_img_lookup(struct cxd_img *img, u64 pgoff)
{
	struct page *page;

	for (page = *cxd_img_bucket(img, pgoff); page; page = cxd_img_next(page))
		if (cxd_img_key(page) == pgoff)
			break;
	return page;
}

/*
 * The host page of device page @pgoff in @img's resident set, or NULL;
 * with @get, a reference taken on it under the set's lock, so that an
 * eviction freeing it meanwhile cannot free it under the caller.
 */
static struct page *cxd_img_find(struct cxd_img *img, u64 pgoff, bool get)
{
	struct page *page;

	spin_lock(&img->set_lock);
	page = cxd_img_lookup(img, pgoff);
	if (page && get)
		get_page(page);
	spin_unlock(&img->set_lock);
	return page;
}

/*
 * Add @page, whose ->index is its device page, to @img's resident set with
 * the device's reference, unless that device page has one already.
 * Return: NULL if added, else the page the set holds (nothing changes).
 */
static struct page *cxd_img_insert(struct cxd_img *img, struct page *page)
{
	struct page **b = cxd_img_bucket(img, cxd_img_key(page)), *p;

	spin_lock(&img->set_lock);
	for (p = *b; p; p = cxd_img_next(p))
		if (cxd_img_key(p) == cxd_img_key(page))
			break;
	if (!p) {
		set_page_private(page, (unsigned long)*b);
		*b = page;
		img->set_count++;
	}
	spin_unlock(&img->set_lock);
	return p;
}

/*
 * Take @page out of @img's resident set if it is still device page
 * @pgoff's there. Return: true if it was (the caller has the device's
 * reference now).
 */
static bool cxd_img_erase(struct cxd_img *img, u64 pgoff, struct page *page)
{
	struct page **b = cxd_img_bucket(img, pgoff), *p, *prev = NULL;

	spin_lock(&img->set_lock);
	for (p = *b; p && p != page; p = cxd_img_next(p))
		prev = p;
	if (p && cxd_img_key(p) == pgoff) {
		if (prev)
			set_page_private(prev, page_private(p));
		else
			*b = cxd_img_next(p);
		set_page_private(p, 0);
		img->set_count--;
	} else {
		p = NULL;
	}
	spin_unlock(&img->set_lock);
	return p != NULL;
}

/*
 * The first page of @img's resident set from bucket *@b on, or NULL; *@b
 * is its bucket. For walks where nothing adds or takes a page.
 */
static struct page *cxd_img_first(struct cxd_img *img, unsigned long *b)
{
	for (; *b < (1UL << img->set_bits); (*b)++)
		if (img->set[*b])
			return img->set[*b];
	return NULL;
}

/* The page after @page in a walk of @img's resident set (cxd_img_first()). */
static struct page *cxd_img_walk_next(struct cxd_img *img, unsigned long *b,
				      struct page *page)
{
	if (cxd_img_next(page))
		return cxd_img_next(page);
	(*b)++;
	return cxd_img_first(img, b);
}

/*
 * Keep @page, the host page of a line just evicted (mapped nowhere, out of
 * the resident set, ->mapping cleared, only the device's reference left),
 * for the next miss. That miss's read overwrites the whole page, so it
 * needs no new page, which the kernel would clear first (init_on_alloc,
 * Debian's default) only for the read to overwrite it: a page clear and an
 * allocator round trip less per miss. Return: true if the page was kept
 * (with the reference); false if @img keeps CXD_IMG_SPARE already.
 */
static bool cxd_img_spare_put(struct cxd_img *img, struct page *page)
{
	bool kept = false;

	spin_lock(&img->set_lock);
	if (img->nspare < CXD_IMG_SPARE) {
		img->spare[img->nspare++] = page;
		kept = true;
	}
	spin_unlock(&img->set_lock);
	return kept;
}

/*
 * @page, a kept page with the device's reference, as a miss's own, or
 * NULL: a page someone else still holds (a transient reference taken
 * since) is let go instead.
 */
static struct page *cxd_img_fresh(struct page *page)
{
	if (page_ref_count(page) != 1) {
		put_page(page);
		return NULL;
	}
	/* its old data is not this page's: the read replaces it whole */
	folio_clear_dirty(page_folio(page));
	return page;
}

/*
 * Read device page @pgoff of a buffered image into @page straight from the
 * image's page cache, if it holds the page up to date: as read() would
 * copy it, without what a read() costs on every call (the permission
 * hook, fsnotify, atime). On tmpfs, where the page cache is the image's
 * storage, that is every page in memory, and a page the page cache has no
 * entry for is a hole (never written), read as zeros; a page swapped out,
 * or not cached on another filesystem, takes the read path. Return: true
 * if @page holds the data.
 */
static bool cxd_img_read_cached(struct cxd_img *img, u64 pgoff,
				struct page *page)
{
	struct address_space *mapping = img->file->f_mapping;
	struct folio *folio;
	bool done = false;

	if (img->direct)
		return false;
	/* NULL before 6.4, ERR_PTR(-ENOENT) since */
	folio = filemap_get_folio(mapping, pgoff);
	if (IS_ERR_OR_NULL(folio)) {
		/*
		 * tmpfs: no entry is a hole; a swapped-out page has a value
		 * entry (the read path brings it back). A hole is a copy of
		 * the zero page, as read() makes it: on an ERMS CPU
		 * clear_page() is a byte-wise rep stosb, which costs the same
		 * on hardware but 8 times the copy's instructions in an
		 * icount guest.
		 */
		if (!img->tmpfs || xa_load(&mapping->i_pages, pgoff))
			return false;
		copy_highpage(page, ZERO_PAGE(0));
		return true;
	}
	if (folio_test_uptodate(folio) && !folio_test_hwpoison(folio)) {
		copy_highpage(page, folio_file_page(folio, pgoff));
		folio_mark_accessed(folio);
		done = true;
	}
	folio_put(folio);
	return done;
}

/* cxd_img_rw()'s I/O, in the calling task. */
static int __cxd_img_rw(struct cxd_img *img, u64 pgoff, struct page *page,
			bool write)
{
	struct bio_vec bv = {
		.bv_page = page, .bv_len = PAGE_SIZE, .bv_offset = 0,
	};
	loff_t pos = pgoff << PAGE_SHIFT;
	struct iov_iter it;
	ssize_t n;

	if (!write && cxd_img_read_cached(img, pgoff, page))
		return 0;
	iov_iter_bvec(&it, write ? ITER_SOURCE : ITER_DEST, &bv, 1, PAGE_SIZE);
	if (write)
		n = vfs_iter_write(img->file, &it, &pos, 0);
	else
		n = vfs_iter_read(img->file, &it, &pos, 0);
	if (n == PAGE_SIZE)
		return 0;
	return n < 0 ? n : -EIO;
}

/* An image I/O redone by a kernel worker (cxd_img_rw()). */
struct cxd_img_redo {
	struct work_struct work;
	struct cxd_img *img;
	u64 pgoff;
	struct page *page;
	bool write;
	int err;
};

static void cxd_img_redo_fn(struct work_struct *work)
{
	struct cxd_img_redo *r = container_of(work, struct cxd_img_redo, work);

	r->err = __cxd_img_rw(r->img, r->pgoff, r->page, r->write);
}

/*
 * Read (@write false) or write device page @pgoff of the image from/to
 * @page. The file's I/O paths stop at a fatal signal of the calling task
 * (generic_perform_write() returns -EINTR, a page-cache read too): a task
 * being killed (Ctrl-C'd, OOM-killed, a thread of a process that exits)
 * whose miss writes back another program's dirty line, or whose power-off
 * writes back every line, would lose that data. Such an I/O is redone by
 * a kernel worker, which has no signals, and the task waits for it
 * (uninterruptibly: one page). Context: process, may sleep.
 * Return: 0 or the I/O's error.
 */
static int cxd_img_rw(struct cxd_img *img, u64 pgoff, struct page *page,
		      bool write)
{
	struct cxd_img_redo r;
	int err;

	if (!fatal_signal_pending(current)) {
		err = __cxd_img_rw(img, pgoff, page, write);
		if (err != -EINTR && err != -ERESTARTSYS)
			return err;
	}
	INIT_WORK_ONSTACK(&r.work, cxd_img_redo_fn);
	r.img = img;
	r.pgoff = pgoff;
	r.page = page;
	r.write = write;
	queue_work(system_unbound_wq, &r.work);
	flush_work(&r.work);
	destroy_work_on_stack(&r.work);
	return r.err;
}

/*
 * Read (@write false) or write the header @h of @img, the 4 KiB at byte
 * @off; on a read, *@blank (if not NULL) tells whether the whole page is
 * zeros. Return: 0, -ENOMEM or the I/O's error.
 */
static int cxd_img_hdr_rw(struct cxd_img *img, u64 off, struct cxd_img_hdr *h,
			  bool write, bool *blank)
{
	struct page *page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	void *p;
	int ret;

	if (!page)
		return -ENOMEM;
	if (write)
		memcpy_to_page(page, 0, (const char *)h, sizeof(*h));
	ret = cxd_img_rw(img, off >> PAGE_SHIFT, page, write);
	if (!write && !ret) {
		p = kmap_local_page(page);
		memcpy(h, p, sizeof(*h));
		if (blank)
			*blank = !memchr_inv(p, 0, PAGE_SIZE);
		kunmap_local(p);
	}
	__free_page(page);
	return ret;
}

/*
 * Open @path read-write, creating it unless it is under /dev/ (there a
 * missing path is a block device that is not there, and a file made on
 * devtmpfs would be RAM and hide the device): O_DIRECT first, then buffered where
 * the filesystem has no direct I/O (EINVAL) or is tmpfs, whose page cache
 * is the file's storage (direct I/O there, since 6.6, copies through it
 * all the same, and the buffered image can be read from it directly:
 * cxd_img_read_cached()). A block device is opened exclusively (O_EXCL:
 * nothing mounts it or opens it so while it is the image), never created.
 */
static struct file *cxd_img_file(struct cxd_img *img, const char *path)
{
	int flags = O_RDWR | O_CREAT | O_LARGEFILE;
	struct path p;
	struct file *f;

	if (!kern_path(path, LOOKUP_FOLLOW, &p)) {
		img->bdev = S_ISBLK(d_inode(p.dentry)->i_mode);
		path_put(&p);
	}
	if (img->bdev) {
		flags = O_RDWR | O_LARGEFILE | O_EXCL;
		f = filp_open(path, flags | O_DIRECT, 0);
		img->direct = !IS_ERR(f);
		if (IS_ERR(f) && PTR_ERR(f) == -EINVAL)
			f = filp_open(path, flags, 0);
		return f;
	}
	/* a missing /dev/ path is a disk not there (yet): never a new file */
	if (str_has_prefix(path, "/dev/"))
		flags &= ~O_CREAT;
	f = filp_open(path, flags | O_DIRECT, 0600);
	img->direct = !IS_ERR(f);
	if (img->direct && file_inode(f)->i_sb->s_magic == TMPFS_MAGIC) {
		fput(f);
		img->direct = false;
		f = ERR_PTR(-EINVAL);
	}
	if (IS_ERR(f) && PTR_ERR(f) == -EINVAL)
		f = filp_open(path, flags, 0600);
	img->tmpfs = !IS_ERR(f) && file_inode(f)->i_sb->s_magic == TMPFS_MAGIC;
	return f;
}

/* A new image's header for a device of @capacity bytes. */
static void cxd_img_hdr_new(struct cxd_img_hdr *h, u64 capacity)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, CXD_IMG_MAGIC, sizeof(h->magic));
	h->version = cpu_to_le32(CXD_IMG_VERSION);
	h->page_size = cpu_to_le32(PAGE_SIZE);
	h->capacity = cpu_to_le64(capacity);
}

/*
 * Check header @h, read at @img->hdr_off, against a device of @capacity
 * and keep it. Return: NULL, or the reason the image is refused.
 */
static const char *cxd_img_check_hdr(struct cxd_img *img,
				     const struct cxd_img_hdr *h, u64 capacity)
{
	if (memcmp(h->magic, CXD_IMG_MAGIC, sizeof(h->magic)) ||
	    le32_to_cpu(h->version) != CXD_IMG_VERSION)
		return img->bdev ? "not a cxdvirt NAND image (no header in the block device's last 4 KiB, which is not all zeros either)" :
				   "not a cxdvirt NAND image (no header in its last 4 KiB)";
	if (le32_to_cpu(h->page_size) != PAGE_SIZE)
		return "the image was made with another page size";
	if (!img->bdev && le64_to_cpu(h->capacity) != img->hdr_off)
		return "the image's header does not match its size (truncated or extended)";
	if (le64_to_cpu(h->capacity) != capacity)
		return "the image holds a device of another capacity";
	img->hdr = *h;
	return NULL;
}

/*
 * A block device as the image: device page N at byte N x 4 KiB, the header
 * in the device's last whole 4 KiB, which must lie at or beyond @capacity.
 * A device whose last 4 KiB are all zeros becomes an image of @capacity:
 * its pages never written then read as what the device held (zero it
 * first, e.g. blkdiscard -z, for zeros). Return: NULL, or the reason.
 */
static const char *cxd_img_check_bdev(struct cxd_img *img, u64 capacity,
				      int *err)
{
	loff_t size = i_size_read(img->file->f_mapping->host);
	struct cxd_img_hdr h;
	const char *why;
	bool blank;

	*err = -EINVAL;
	if (size < PAGE_SIZE ||
	    round_down(size, PAGE_SIZE) - PAGE_SIZE < capacity)
		return "the block device is smaller than capacity + 4 KiB (the header)";
	img->hdr_off = round_down(size, PAGE_SIZE) - PAGE_SIZE;
	*err = cxd_img_hdr_rw(img, img->hdr_off, &h, false, &blank);
	if (*err)
		return "cannot read the block device's last 4 KiB (the header)";
	*err = 0;
	if (blank) {
		cxd_img_hdr_new(&img->hdr, capacity);
		*err = cxd_img_hdr_rw(img, img->hdr_off, &img->hdr, true, NULL);
		return *err ? "cannot write the header to the block device" : NULL;
	}
	why = cxd_img_check_hdr(img, &h, capacity);
	*err = why ? -EINVAL : 0;
	return why;
}

/*
 * Check the open image @img against the device: a new (empty) file becomes
 * an image of @capacity; an existing one must hold a header for exactly
 * @capacity. Return: NULL, or the reason it is refused.
 */
static const char *cxd_img_check(struct cxd_img *img, u64 capacity, int *err)
{
	struct inode *inode = file_inode(img->file);
	loff_t size = i_size_read(inode);
	struct cxd_img_hdr h;
	const char *why;

	*err = -EINVAL;
	if (S_ISBLK(inode->i_mode))
		return cxd_img_check_bdev(img, capacity, err);
	if (!S_ISREG(inode->i_mode))
		return "not a regular file or a block device";
	if (!size) {
		cxd_img_hdr_new(&img->hdr, capacity);
		img->hdr_off = capacity;
		*err = vfs_truncate(&img->file->f_path, capacity + PAGE_SIZE);
		if (!*err)
			*err = cxd_img_hdr_rw(img, capacity, &img->hdr, true, NULL);
		return *err ? "cannot create the image (truncate or header write failed)" : NULL;
	}
	if (size < PAGE_SIZE || size % PAGE_SIZE)
		return "not a cxdvirt NAND image (its size is not a whole number of 4 KiB pages)";
	img->hdr_off = size - PAGE_SIZE;
	*err = cxd_img_hdr_rw(img, img->hdr_off, &h, false, NULL);
	if (*err)
		return "cannot read the image's header";
	why = cxd_img_check_hdr(img, &h, capacity);
	*err = why ? -EINVAL : 0;
	return why;
}

/*
 * Write @img's header, with the power-failure counts of @live and
 * CXD_IMG_POWERED if @powered; with @sync, sync it to the image's storage.
 * Return: 0, or the write's or the sync's error.
 */
static int cxd_img_hdr_update(struct cxd_img *img, struct cxd_live *live,
			      bool powered, bool sync)
{
	int err;

	img->hdr.dirty_shutdowns = cpu_to_le64(live->dirty_shutdowns);
	img->hdr.lines_lost = cpu_to_le64(live->lines_lost);
	img->hdr.flags = cpu_to_le64(powered ? CXD_IMG_POWERED : 0);
	err = cxd_img_hdr_rw(img, img->hdr_off, &img->hdr, true, NULL);
	if (!err && sync)
		err = vfs_fsync_range(img->file, img->hdr_off,
				      img->hdr_off + PAGE_SIZE - 1, 1);
	return err;
}

/**
 * cxd_img_open() - power-on of a devdax device with a NAND image: open (or
 * create) the image at @d's nand_backing and check its geometry.
 * @d:		the configured device.
 * @live:	its powered state, backing not set up yet.
 *
 * A new image is a sparse file of capacity + 4 KiB with a header; an
 * existing one must be an image of exactly this capacity. One whose header
 * says it is still powered was left by a host that stopped with a device
 * on it (a crash, a power cut): stats/dirty_shutdowns goes up by one, with
 * a log line. The header is then marked powered (CXD_IMG_POWERED) and
 * synced, until power-off.
 *
 * Context: process, may sleep; under cxd_cfg_mutex.
 * Return: 0; -EINVAL (one log line with the reason) for a path that is not
 * a usable image; -EBUSY (logged) if another powered device has the same
 * file as its image, or the host is shutting down; filp_open()'s error
 * (-ENOENT for a missing folder or a missing path under /dev/, -EISDIR,
 * -EACCES...), logged; -ENOMEM.
 */
int cxd_img_open(struct cxd_dev *d, struct cxd_live *live)
{
	struct cxd_img *img, *other;
	const char *why;
	int err;

	img = kzalloc(sizeof(*img), GFP_KERNEL);
	if (!img)
		return -ENOMEM;
	spin_lock_init(&img->set_lock);
	xa_init(&img->held);
	img->set_bits = max_t(unsigned int, 6,
			      order_base_2(live->model.cache.nlines));
	img->set = kvcalloc(1UL << img->set_bits, sizeof(*img->set), GFP_KERNEL);
	if (!img->set) {
		kfree(img);
		return -ENOMEM;
	}
	img->file = cxd_img_file(img, d->cfg.nand_backing);
	if (IS_ERR(img->file)) {
		err = PTR_ERR(img->file);
		cxd_warn(d, "power: nand_backing %s: cannot open it (%d)%s",
			 d->cfg.nand_backing, err,
			 err == -ENOENT && str_has_prefix(d->cfg.nand_backing, "/dev/") ?
			 ": a missing path under /dev/ is not created" : "");
		kvfree(img->set);
		kfree(img);
		return err;
	}
	why = cxd_img_check(img, d->cfg.p.capacity, &err);
	if (why) {
		cxd_warn(d, "power: nand_backing %s: %s", d->cfg.nand_backing, why);
		goto err_file;
	}
	mutex_lock(&cxd_img_list_mutex);
	if (cxd_img_shutdown) {
		mutex_unlock(&cxd_img_list_mutex);
		cxd_warn(d, "power: the host is shutting down");
		err = -EBUSY;
		goto err_file;
	}
	/* the same file (by any name) as another powered device's image */
	list_for_each_entry(other, &cxd_img_list, node) {
		if (file_inode(other->file) != file_inode(img->file))
			continue;
		mutex_unlock(&cxd_img_list_mutex);
		cxd_warn(d, "power: nand_backing %s: the image of powered device %s",
			 d->cfg.nand_backing, dev_name(&other->live->dev));
		err = -EBUSY;
		goto err_file;
	}
	live->dirty_shutdowns = le64_to_cpu(img->hdr.dirty_shutdowns);
	live->lines_lost = le64_to_cpu(img->hdr.lines_lost);
	if (le64_to_cpu(img->hdr.flags) & CXD_IMG_POWERED) {
		live->dirty_shutdowns++;
		cxd_warn(d, "power: nand_backing %s: the image was not closed (the host stopped with a device on it powered: a crash or a power cut): its dirty lines of then are lost, counted as a dirty shutdown",
			 d->cfg.nand_backing);
	}
	err = cxd_img_hdr_update(img, live, true, true);
	if (err) {
		/* a header written but not synced must not say powered */
		cxd_img_hdr_update(img, live, false, false);
		mutex_unlock(&cxd_img_list_mutex);
		cxd_warn(d, "power: nand_backing %s: cannot write the header (%d)",
			 d->cfg.nand_backing, err);
		goto err_file;
	}
	live->img = img;
	img->live = live;
	list_add_tail(&img->node, &cxd_img_list);
	mutex_unlock(&cxd_img_list_mutex);
	return 0;

err_file:
	fput(img->file);
	kvfree(img->set);
	kfree(img);
	return err;
}

/**
 * cxd_img_direct() - is @live's NAND image opened O_DIRECT?
 * @live:	powered devdax device with a NAND image.
 * Return: true for direct I/O (the filesystem's locks differ: fault.c).
 */
bool cxd_img_direct(struct cxd_live *live)
{
	return live->img->direct;
}

/**
 * cxd_img_materialised() - has device page @pgoff of @live a host page?
 * @live:	powered devdax device with a NAND image.
 * @pgoff:	device page.
 * Return: true if it has (a fault maps it without reading the image).
 */
bool cxd_img_materialised(struct cxd_live *live, u64 pgoff)
{
	return cxd_img_find(live->img, pgoff, false);
}

/**
 * cxd_img_pages() - host pages holding device pages of @live's image now:
 * the resident lines' (materialised) and those holders kept at eviction.
 * @live:	powered devdax device with a NAND image.
 * Context: any but hard IRQ; takes the image's set lock.
 * Return: the count, pages.
 */
u64 cxd_img_pages(struct cxd_live *live)
{
	u64 n;

	spin_lock(&live->img->set_lock);
	n = live->img->set_count;
	spin_unlock(&live->img->set_lock);
	return n;
}

/* Count an image I/O of @live and its failure, if any. */
static void cxd_img_count(struct cxd_live *live, bool write, int err)
{
	spin_lock(&live->lock);
	if (write)
		live->io_writes++;
	else
		live->io_reads++;
	if (err)
		live->io_errors++;
	spin_unlock(&live->lock);
	if (err)
		pr_warn_ratelimited(CXD_NAME "%d: NAND image %s failed: %d\n",
				    MINOR(live->dev.devt),
				    write ? "write" : "read", err);
}

/*
 * Write host page @page, locked and mapped nowhere, to device page @pgoff
 * of the image, and count it. The page's dirty flag (PG_dirty: set by the
 * kernel at a write fault, when it zaps a dirty PTE, and at the end of I/O
 * into the page) says whether it holds data the image lacks; it is
 * cleared before the write and set again if the write fails.
 * Return: 0 or the write's error.
 */
static int cxd_img_write(struct cxd_live *live, u64 pgoff, struct page *page)
{
	struct folio *folio = page_folio(page);
	int err;

	folio_clear_dirty(folio);
	err = cxd_img_rw(live->img, pgoff, page, true);
	if (err)
		folio_set_dirty(folio);
	cxd_img_count(live, true, err);
	return err;
}

/**
 * cxd_img_page() - the host page of device page @pgoff of @live, read from
 * the image first if the page is not materialised (a read the caller
 * counts: cxd_img_account()).
 * @live:	powered devdax device with a NAND image.
 * @pgoff:	device page; resident and held in the model (its fault holds
 *		its line), and its slot lock held, so that no eviction or
 *		other fault changes its entry meanwhile.
 * @reads:	incremented if the image was read.
 *
 * Context: process, may sleep.
 * Return: the page (the device's reference: take your own to keep it),
 * NULL without memory, or an ERR_PTR of a failed read.
 */
struct page *cxd_img_page(struct cxd_live *live, u64 pgoff,
			  unsigned int *reads)
{
	int node = live->cfg_dev->cfg.backing_node;
	struct page *page, *old, *spare = NULL;
	struct cxd_img *img = live->img;
	int err;

	spin_lock(&img->set_lock);
	page = cxd_img_lookup(img, pgoff);
	if (!page && img->nspare)	/* its read overwrites it whole */
		spare = img->spare[--img->nspare];
	spin_unlock(&img->set_lock);
	if (page)
		return page;
	page = spare ? cxd_img_fresh(spare) : NULL;
	if (!page)
		page = alloc_pages_node(node, GFP_HIGHUSER | __GFP_NOWARN, 0);
	if (!page)
		return NULL;
	err = cxd_img_rw(live->img, pgoff, page, false);
	if (err) {
		cxd_img_count(live, false, err);
		__free_page(page);
		return ERR_PTR(err);
	}
	(*reads)++;
	page_folio(page)->mapping = live->inode->i_mapping;
	page_folio(page)->index = pgoff;
	old = cxd_img_insert(live->img, page);
	if (old) {
		page_folio(page)->mapping = NULL;
		__free_page(page);
		return old;
	}
	return page;
}

/*
 * Record that a holder kept device page @pgoff's host page at its eviction
 * (cxd_img_reap() lets it go once the pin drops). Without memory for the
 * record the page stays until its next eviction or power-off, as any held
 * page would without the reaper.
 */
static void cxd_img_hold(struct cxd_img *img, u64 pgoff)
{
	xa_store(&img->held, pgoff, xa_mk_value(0), GFP_KERNEL);
}

/* Device page @pgoff's host page is no longer one a holder kept. */
static void cxd_img_unhold(struct cxd_img *img, u64 pgoff)
{
	if (!xa_empty(&img->held))	/* the common case, without its lock */
		xa_erase(&img->held, pgoff);
}

/*
 * End a look at host page @page (locked, with our reference): if it left
 * the resident set (@gone: the device's reference is the caller's now),
 * it is no device page any more, and the device's reference is kept for
 * the next miss or dropped; then the page is unlocked and our reference
 * dropped.
 */
static void cxd_img_put(struct cxd_img *img, struct page *page, bool gone)
{
	if (gone)
		page_folio(page)->mapping = NULL;
	unlock_page(page);
	put_page(page);
	if (gone && !cxd_img_spare_put(img, page))
		put_page(page);
}

/*
 * Look at held page @pgoff of @live (cxd_img_reap()): still held, it stays;
 * resident again, it is an ordinary line now (its next eviction decides);
 * let go by its holder, it is written to the image and leaves the resident
 * set. The write is unconditional: a holder may have written the page
 * without setting its dirty flag (O_DIRECT's end of I/O and
 * unpin_user_pages_dirty_lock() set it; nothing obliges every holder to).
 * Refs on a host page: ours, the device's (the resident set's); more: a
 * holder, or an instant's reference a walk or get_user_pages_fast() takes
 * (it is looked at again later).
 */
static void cxd_img_reap_one(struct cxd_live *live, u64 pgoff)
{
	struct cxd_img *img = live->img;
	struct page *page = cxd_img_find(img, pgoff, true);
	bool gone = false, resident;

	if (!page) {
		cxd_img_unhold(img, pgoff);	/* evicted since, not held */
		return;
	}
	lock_page(page);
	if (page_folio(page)->mapping != live->inode->i_mapping ||
	    page_folio(page)->index != pgoff) {
		cxd_img_unhold(img, pgoff);
		goto out;
	}
	spin_lock(&live->lock);
	resident = cxd_cache_resident(&live->model.cache, pgoff);
	spin_unlock(&live->lock);
	if (resident) {
		cxd_img_unhold(img, pgoff);
		goto out;
	}
	if (page_ref_count(page) > 2)
		goto out;		/* still held */
	/*
	 * Nobody but us maps or holds it: a fault that makes the line resident
	 * again meanwhile maps the page only after our page lock, and then
	 * finds it in the set, or reads the image written here.
	 */
	if (cxd_img_write(live, pgoff, page))
		goto out;		/* kept: tried again later */
	spin_lock(&live->lock);
	if (!cxd_cache_resident(&live->model.cache, pgoff)) {
		gone = cxd_img_erase(img, pgoff, page);
		if (gone)
			live->pinned_released++;
	}
	spin_unlock(&live->lock);
	cxd_img_unhold(img, pgoff);
out:
	cxd_img_put(img, page, gone);
}

/*
 * Let go of the host pages of @live's image that holders kept at eviction
 * and have released since: look at up to CXD_IMG_REAP of them, round robin
 * from @img->reap_from, so that each eviction costs at most that many.
 * Context: process, may sleep; no page lock held.
 */
static void cxd_img_reap(struct cxd_live *live)
{
	struct cxd_img *img = live->img;
	unsigned long idx = READ_ONCE(img->reap_from);
	unsigned int k;

	for (k = 0; k < CXD_IMG_REAP && !xa_empty(&img->held); k++) {
		if (!xa_find(&img->held, &idx, ULONG_MAX, XA_PRESENT)) {
			idx = 0;
			if (!xa_find(&img->held, &idx, ULONG_MAX, XA_PRESENT))
				break;
		}
		cxd_img_reap_one(live, idx);
		idx++;
	}
	WRITE_ONCE(img->reap_from, idx);
}

/**
 * cxd_img_prefetch() - read device page @pgoff, just made resident by a
 * prefetch, from the image now, if its slot lock and line can be had at
 * once; otherwise its first use reads it.
 * @live:	powered devdax device with a NAND image.
 * @pgoff:	the prefetched device page.
 * @reads:	incremented if the image was read (cxd_img_account()).
 *
 * Context: process, may sleep; the caller may hold another slot lock.
 */
void cxd_img_prefetch(struct cxd_live *live, u64 pgoff, unsigned int *reads)
{
	unsigned long *w = &live->pslots[pgoff & live->pslot_mask].word;
	int held;

	if (test_and_set_bit_lock(CXD_PG_LOCK, w))
		return;
	cxd_model_lock(live);
	held = !cxd_cache_hold(&live->model.cache, pgoff);
	spin_unlock(&live->lock);
	if (held) {
		cxd_img_page(live, pgoff, reads);
		cxd_model_lock(live);
		cxd_cache_release(&live->model.cache, pgoff);
		spin_unlock(&live->lock);
	}
	clear_and_wake_up_bit(CXD_PG_LOCK, w);
}

/**
 * cxd_img_evict() - victim @v of @live's model leaves every mapping; its
 * line is written to the image if the model wrote it back, and its host
 * page is kept for the next miss (cxd_img_spare_put()) or freed, unless
 * the page is resident again or the kernel holds it (then it is recorded
 * in @held); then up to CXD_IMG_REAP held pages are looked at again
 * (cxd_img_reap()).
 * @live:	powered devdax device with a NAND image.
 * @v:		the victim.
 *
 * Under the page's lock: a fault of a page resident again waits for the
 * write-back before it maps the page.
 *
 * Context: process, may sleep; no page lock held.
 */
void cxd_img_evict(struct cxd_live *live, const struct cxd_victim *v)
{
	struct cxd_img *img = live->img;
	struct page *page = cxd_img_find(img, v->page, true);
	bool gone = false, pinned;

	if (!page)
		return;		/* never materialised: prefetched, unused, clean */
	lock_page(page);
	/* another eviction freed it meanwhile: it is no page, or another's */
	if (page_folio(page)->mapping != live->inode->i_mapping ||
	    page_folio(page)->index != v->page)
		goto out;
	unmap_mapping_pages(live->inode->i_mapping, v->page, 1, false);
	/*
	 * The model's dirty victim, or a page written since it last reached
	 * the image: another eviction of the same page, clean because a miss
	 * brought the page back (read) before the dirty eviction's write, may
	 * come first, and the page's data must not go with it.
	 */
	if (v->dirty || folio_test_dirty(page_folio(page)))
		cxd_img_write(live, v->page, page);
	/* refs: ours, the device's (the resident set's); more: a holder */
	pinned = page_ref_count(page) > 2;
	spin_lock(&live->lock);
	if (pinned)
		live->pinned_evictions++;
	else if (!cxd_cache_resident(&live->model.cache, v->page))
		gone = cxd_img_erase(img, v->page, page);
	spin_unlock(&live->lock);
	if (pinned)
		cxd_img_hold(img, v->page);
	else
		cxd_img_unhold(img, v->page);
out:
	cxd_img_put(img, page, gone);
	cxd_img_reap(live);
}

/**
 * cxd_img_account() - count the image reads of a fault of @live (its page
 * and its prefetches: @reads of them, all done at @io_done), and an
 * overrun if they ended after the modeled completion @deadline.
 * @live:	powered devdax device with a NAND image.
 * @deadline:	the model's completion, CLOCK_MONOTONIC ns.
 * @io_done:	when the image reads ended, CLOCK_MONOTONIC ns.
 * @reads:	successful image reads (stats/io_reads).
 *
 * Context: any; takes @live->lock.
 */
void cxd_img_account(struct cxd_live *live, u64 deadline, u64 io_done,
		     unsigned int reads)
{
	spin_lock(&live->lock);
	live->io_reads += reads;
	if (io_done > deadline) {
		live->io_overruns++;
		live->io_over_ns += io_done - deadline;
	}
	spin_unlock(&live->lock);
}

/*
 * cxd_img_flush()'s step: write device page @idx of @live back if it is
 * materialised and dirty (in the model, or since its image write), the
 * model's program ending no earlier than *@deadline (raised to it).
 * Return: 0 or the image's write error.
 */
static int cxd_img_flush_page(struct cxd_live *live, u64 idx, u64 *deadline)
{
	struct page *page = cxd_img_find(live->img, idx, true);
	bool dirty, ours;
	int err = 0;
	u64 done;

	if (!page)
		return 0;
	lock_page(page);
	cxd_model_lock(live);
	ours = cxd_img_find(live->img, idx, false) == page;
	dirty = ours && cxd_cache_dirty(&live->model.cache, idx);
	spin_unlock(&live->lock);
	if (dirty || (ours && folio_test_dirty(page_folio(page)))) {
		/* no writable PTE from here on: a write faults again */
		unmap_mapping_pages(live->inode->i_mapping, idx, 1, false);
		if (dirty) {
			cxd_model_lock(live);
			done = cxd_model_flush(&live->model, idx, ktime_get_ns());
			spin_unlock(&live->lock);
			*deadline = max(*deadline, done);
		}
		err = cxd_img_write(live, idx, page);
	}
	unlock_page(page);
	put_page(page);
	return err;
}

/* Buckets of the resident set walked per hold of its lock (cxd_img_gather()). */
#define CXD_IMG_WALK	64

/* Keys per batch of cxd_img_flush()'s walk: one 4 KiB allocation. */
#define CXD_IMG_BATCH	(PAGE_SIZE / sizeof(u64))

/*
 * Gather into @v (room for @room) the device pages in [@first, @last] that
 * whole buckets of @img's resident set hold, from bucket *@b on, at most
 * CXD_IMG_WALK buckets in one hold of the set's lock, and set *@n to their
 * count and *@b past the last bucket taken. Return: 0; or, if bucket *@b
 * alone holds more such pages than @room (nothing gathered then), their
 * number. A page added after its bucket was passed is missing (read
 * since, so clean); one taken out was evicted, written back first.
 */
static unsigned int cxd_img_gather(struct cxd_img *img, unsigned long *b,
				   u64 first, u64 last, u64 *v,
				   unsigned int room, unsigned int *n)
{
	unsigned long end = min(*b + CXD_IMG_WALK, 1UL << img->set_bits);
	unsigned int k = 0, in = 0;
	struct page *page;
	u64 key;

	spin_lock(&img->set_lock);
	for (; *b < end; (*b)++) {
		in = 0;
		for (page = img->set[*b]; page; page = cxd_img_next(page)) {
			key = cxd_img_key(page);
			in += key >= first && key <= last;
		}
		if (k + in > room)
			break;
		for (page = img->set[*b]; page; page = cxd_img_next(page)) {
			key = cxd_img_key(page);
			if (key >= first && key <= last)
				v[k++] = key;
		}
	}
	spin_unlock(&img->set_lock);
	*n = k;
	return k || *b == end ? 0 : in;
}

static int cxd_img_cmp_key(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return (x > y) - (x < y);
}

/*
 * cxd_img_flush() of [@first, @last], a range of more device pages than
 * the resident set has buckets: walk the set in batches of keys, each
 * written in device-page order. Return: 0, -ENOMEM, or the first write
 * error.
 */
static int cxd_img_flush_walk(struct cxd_live *live, u64 first, u64 last,
			      u64 *deadline)
{
	unsigned int room = CXD_IMG_BATCH, n, k, need;
	unsigned long b = 0, nb = 1UL << live->img->set_bits;
	u64 *v = kvmalloc_array(room, sizeof(*v), GFP_KERNEL);
	int err = 0, e;

	while (v && b < nb) {
		need = cxd_img_gather(live->img, &b, first, last, v, room, &n);
		if (need) {	/* one bucket holds more: a bigger batch */
			kvfree(v);
			room = need + CXD_IMG_BATCH;
			v = kvmalloc_array(room, sizeof(*v), GFP_KERNEL);
			continue;
		}
		sort(v, n, sizeof(*v), cxd_img_cmp_key, NULL);
		for (k = 0; k < n; k++) {
			e = cxd_img_flush_page(live, v[k], deadline);
			err = err ?: e;
		}
		cond_resched();
	}
	if (!v)
		return -ENOMEM;
	kvfree(v);
	return err;
}

/* cxd_img_flush(), and with @wait, the wait for the model's programs. */
static int __cxd_img_flush(struct cxd_live *live, loff_t start, loff_t end,
			   bool wait)
{
	u64 last = min_t(u64, end >> PAGE_SHIFT, live->npages - 1);
	u64 deadline = ktime_get_ns(), first, idx;
	int err = 0, e;

	if (start < 0 || start > end || (u64)start >> PAGE_SHIFT >= live->npages)
		return 0;
	first = start >> PAGE_SHIFT;
	if (last - first < (1UL << live->img->set_bits)) {
		for (idx = first; idx <= last; idx++) {
			e = cxd_img_flush_page(live, idx, &deadline);
			err = err ?: e;
			cond_resched();
		}
	} else {
		err = cxd_img_flush_walk(live, first, last, &deadline);
	}
	e = vfs_fsync_range(live->img->file, start, end, 1);
	err = err ?: e;
	e = wait ? cxd_wait_until(deadline) : 0;
	return err ?: e;
}

/**
 * cxd_img_flush() - msync/fsync of bytes [@start, @end] of device @live
 * with a NAND image: write every dirty line in the range back to the image
 * (cxd_model_flush(): tPROG on its die, counted in stats/writebacks), keep
 * it resident and clean, and return once the model's programs and the
 * image's writes are done.
 * @live:	powered devdax device with a NAND image.
 * @start:	first byte.
 * @end:	last byte (inclusive; LLONG_MAX for the whole device).
 *
 * Each flushed page leaves the mappings first, under its page lock, so the
 * next write to it faults and marks its line dirty again. A range of fewer
 * device pages than the resident set's buckets is looked up page by page;
 * a larger one walks the set (cxd_img_flush_walk()).
 *
 * Context: process, may sleep.
 * Return: 0, -EINTR if a fatal signal ended the wait, -ENOMEM, or the
 * image's write or sync error.
 */
int cxd_img_flush(struct cxd_live *live, loff_t start, loff_t end)
{
	return __cxd_img_flush(live, start, end, true);
}

/*
 * A power failure of @live: the model says which dirty lines its
 * persistence mode keeps (cxd_model_power_fail(), what cxdvirt-sim
 * --power-fail-at reports); those are written to the image, the others are
 * lost. Return: the lines lost.
 */
static u64 cxd_img_power_fail(struct cxd_live *live)
{
	u64 *pages, ndirty, nsaved, k;
	struct page *page;

	pages = kvmalloc_array(live->model.cache.nlines, sizeof(*pages),
			       GFP_KERNEL);
	if (!pages) {	/* cannot tell which: all are lost */
		spin_lock(&live->lock);
		ndirty = cxd_cache_dirty_pages(&live->model.cache, NULL, 0);
		spin_unlock(&live->lock);
		return ndirty;
	}
	spin_lock(&live->lock);
	ndirty = cxd_model_power_fail(&live->model, ktime_get_ns(), pages,
				      &nsaved);
	spin_unlock(&live->lock);
	for (k = 0; k < nsaved; k++) {
		page = cxd_img_find(live->img, pages[k], false);
		if (!page)
			continue;
		lock_page(page);
		cxd_img_write(live, pages[k], page);
		unlock_page(page);
	}
	kvfree(pages);
	return ndirty - nsaved;
}

/**
 * cxd_img_close() - power-off's end of the NAND image: write every dirty
 * line, and every host page the kernel held at its eviction, back to the
 * image, sync it, close it and free the host pages; or, for a power
 * failure (@lose), drop them.
 * @live:	devdax device with a NAND image (else nothing to do); no
 *		mapping is left.
 * @lose:	a modeled power failure (power_fail): the dirty lines not yet
 *		written back are lost, except those a GPF flush keeps
 *		(persistence gpf, within gpf_budget_ns); the image keeps the
 *		lost lines' older contents. If any was lost,
 *		stats/dirty_shutdowns goes up by one and stats/lines_lost
 *		counts them (kept in the image's header).
 *
 * Without @lose, an orderly shutdown: the model's dirty lines reach the
 * image, so the contents persist. These write-backs are not the model's
 * (no NAND time, not in stats/writebacks); failures are logged and counted.
 * Either way the image is synced, then its header marked closed, unless a
 * write-back failed: then the next power-on counts a dirty shutdown.
 *
 * Context: process, may sleep; holds cxd_img_list_mutex throughout (a host
 * shutdown's flush waits for it).
 */
void cxd_img_close(struct cxd_live *live, bool lose)
{
	struct cxd_img *img = live->img;
	struct page *page, *next;
	unsigned long b;
	u64 lost = 0, idx, errors;
	bool wb;
	int err;

	if (!img)
		return;
	/* a reboot waits for this power-off, or this one for its flush */
	mutex_lock(&cxd_img_list_mutex);
	errors = READ_ONCE(live->io_errors);
	/*
	 * First the write-backs the model counted whose data the image lacks
	 * yet: a page written since it last reached the image (PG_dirty) whose
	 * line the model holds clean or no longer holds (see cxd_img_evict()).
	 * A power failure loses only the model's dirty lines.
	 */
	for (b = 0, page = cxd_img_first(img, &b); page;
	     page = cxd_img_walk_next(img, &b, page)) {
		idx = cxd_img_key(page);
		lock_page(page);
		spin_lock(&live->lock);
		wb = folio_test_dirty(page_folio(page)) &&
		     !cxd_cache_dirty(&live->model.cache, idx);
		spin_unlock(&live->lock);
		if (wb)
			cxd_img_write(live, idx, page);
		unlock_page(page);
		cond_resched();
	}
	if (lose)
		lost = cxd_img_power_fail(live);
	for (b = 0, page = cxd_img_first(img, &b); page; page = next) {
		next = cxd_img_walk_next(img, &b, page);
		idx = cxd_img_key(page);
		wb = false;
		if (!lose) {	/* a power failure wrote what it kept already */
			spin_lock(&live->lock);
			wb = cxd_cache_dirty(&live->model.cache, idx) ||
			     !cxd_cache_resident(&live->model.cache, idx);
			spin_unlock(&live->lock);
		}
		lock_page(page);
		if (wb) {
			err = cxd_img_rw(img, idx, page, true);
			if (err)
				cxd_img_count(live, true, err);
		}
		page_folio(page)->mapping = NULL;
		set_page_private(page, 0);
		unlock_page(page);
		put_page(page);
		cond_resched();
	}
	kvfree(img->set);
	xa_destroy(&img->held);
	while (img->nspare)
		put_page(img->spare[--img->nspare]);
	if (lose)
		live->lines_lost = lost;	/* the last failure's, even 0 */
	if (lost) {
		live->dirty_shutdowns++;
		pr_info(CXD_NAME "%d: power failure: %llu dirty lines lost\n",
			MINOR(live->dev.devt), lost);
	}
	/*
	 * The data first, then the header marked closed: a power cut between
	 * the two leaves it marked powered (a dirty shutdown). A write-back
	 * that failed above leaves it so too: lines were lost.
	 */
	err = vfs_fsync(img->file, 0);
	if (!err)
		err = cxd_img_hdr_update(img, live,
					 READ_ONCE(live->io_errors) != errors,
					 true);
	if (err)
		pr_warn(CXD_NAME "%d: NAND image sync or header write failed: %d\n",
			MINOR(live->dev.devt), err);
	list_del(&img->node);
	mutex_unlock(&cxd_img_list_mutex);
	fput(img->file);
	kfree(img);
	live->img = NULL;
}

/*
 * The host reboots, halts or powers off (reboot(2), kexec) with devices
 * still powered: each one with a NAND image writes its dirty lines back
 * and syncs the image, an msync of the whole device without the wait for
 * the modeled programs, so that its contents survive the reboot as they
 * survive an orderly power-off, and its header is marked closed (no
 * CXD_IMG_POWERED), so the next power-on counts no dirty shutdown; a write
 * that fails leaves it marked powered. Without it the dirty lines would
 * be lost, as at a host crash. An image on tmpfs is skipped: it ends with
 * the host. From here on no power-on opens an image. Mappings stay: what
 * a program still running writes after this is lost, as at any power-off
 * of a device in use, and no count says so. Runs before the kernel shuts
 * its devices down, so the image's disk still takes writes; an image on
 * md RAID is written after md's own notifier marked the array clean, so
 * the array may resync at the next boot.
 */
static int cxd_img_reboot(struct notifier_block *nb, unsigned long action,
			  void *data)
{
	struct cxd_live *live;
	struct cxd_img *img;
	u64 wb, errors;
	int err;

	mutex_lock(&cxd_img_list_mutex);
	if (cxd_img_hibernating) {
		/*
		 * The power-off that ends a hibernation (disk mode shutdown
		 * or reboot): the snapshot holds the cache, and the frozen
		 * tasks include the filesystems' journal threads, which a
		 * flush could wait for forever. A resume finds the devices as
		 * they were; a boot without one finds the images marked
		 * powered: a dirty shutdown.
		 */
		mutex_unlock(&cxd_img_list_mutex);
		return NOTIFY_DONE;
	}
	cxd_img_shutdown = true;
	list_for_each_entry(img, &cxd_img_list, node) {
		live = img->live;
		if (img->tmpfs)		/* its contents end with the host */
			continue;
		wb = READ_ONCE(live->io_writes);
		errors = READ_ONCE(live->io_errors);
		/* no wait for the modeled programs: nothing will read them */
		err = __cxd_img_flush(live, 0, LLONG_MAX, false);
		wb = READ_ONCE(live->io_writes) - wb;
		if (!err && READ_ONCE(live->io_errors) != errors)
			err = -EIO;
		/* closed: a later power-on counts no dirty shutdown */
		if (!err)
			err = cxd_img_hdr_update(img, live, false, true);
		if (err)
			pr_warn(CXD_NAME "%d: host shutdown: NAND image flush failed (%d): a dirty shutdown\n",
				MINOR(live->dev.devt), err);
		else
			pr_info(CXD_NAME "%d: host shutdown: %llu dirty pages written to the NAND image\n",
				MINOR(live->dev.devt), wb);
	}
	mutex_unlock(&cxd_img_list_mutex);
	return NOTIFY_DONE;
}

/* See cxd_img_hibernating. */
static int cxd_img_pm(struct notifier_block *nb, unsigned long action,
		      void *data)
{
	switch (action) {
	case PM_HIBERNATION_PREPARE:
	case PM_RESTORE_PREPARE:
	case PM_POST_HIBERNATION:
	case PM_POST_RESTORE:
		mutex_lock(&cxd_img_list_mutex);
		cxd_img_hibernating = action == PM_HIBERNATION_PREPARE ||
				      action == PM_RESTORE_PREPARE;
		mutex_unlock(&cxd_img_list_mutex);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block cxd_img_reboot_nb = {
	.notifier_call = cxd_img_reboot,
};

static struct notifier_block cxd_img_pm_nb = {
	.notifier_call = cxd_img_pm,
};

/**
 * cxd_img_init() - module load: flush the NAND images of powered devices
 * when the host reboots, halts or powers off (a reboot notifier), except
 * at the end of a hibernation (a PM notifier tells).
 * Context: module init.
 * Return: 0, or register_pm_notifier()'s or register_reboot_notifier()'s
 * negative errno.
 */
int cxd_img_init(void)
{
	int err = register_pm_notifier(&cxd_img_pm_nb);

	if (err)
		return err;
	err = register_reboot_notifier(&cxd_img_reboot_nb);
	if (err)
		unregister_pm_notifier(&cxd_img_pm_nb);
	return err;
}

/**
 * cxd_img_exit() - module unload (no device is powered): undo
 * cxd_img_init().
 */
void cxd_img_exit(void)
{
	unregister_reboot_notifier(&cxd_img_reboot_nb);
	unregister_pm_notifier(&cxd_img_pm_nb);
}
