// SPDX-License-Identifier: MIT
/*
 * shm.c - System V shared memory: shmget, shmat, shmdt, shmctl (Linux's
 * ipc/shm.c, much reduced; include/uapi/linux/shm.h).  fio keeps its
 * jobs' shared state in one such segment.
 *
 * A segment is a file no directory names (shmem_file_setup, fs/ramfs.c),
 * found by its id or its key in one table.  shmat maps that file
 * MAP_SHARED, as mmap would, so everything about the pages -- faults,
 * fork sharing them, shared futexes keyed on the inode, freeing -- is
 * the file mapping's (kernel/mm/mmap.c).  The table holds one reference
 * to the file, each mapping another: the number of attaches
 * (shm_nattch) is the file's count less the table's.  IPC_RMID takes the
 * segment out of the table at once (its key may be used again); its
 * memory goes with the last mapping.  Linux keeps a removed segment
 * findable by id until then (shmat of it still works there); Spindle
 * does not.
 *
 * An id is the table slot plus SHMMNI times a sequence number, so an id
 * used after IPC_RMID does not reach a new segment in the same slot.
 * Locking: the table under shm_lock (a mutex: creation allocates);
 * mapping under the caller's mmap_lock, taken outside shm_lock.
 */
#include <spindle/fs.h>
#include <spindle/mm.h>
#include <spindle/mm_types.h>
#include <spindle/sched.h>
#include <spindle/errno.h>
#include <spindle/string.h>
#include <spindle/printk.h>
#include <spindle/syscalls.h>
#include <spindle/time.h>
#include <spindle/uaccess.h>
#include <uapi/asm/mman.h>
#include <uapi/linux/shm.h>

#define SHM_SLOTS       128             /* segments at once (Linux: SHMMNI, 4096) */

struct shmid_kernel {
	struct file *file;              /* NULL: a free slot */
	s32 key;
	u16 seq;                        /* the id's upper part */
	u32 mode;                       /* permission bits */
	u64 segsz;
	s64 atime, dtime, ctime;
	pid_t cpid, lpid;
};

static DEFINE_MUTEX(shm_lock);
static struct shmid_kernel shm_segs[SHM_SLOTS];

/* Tags the VMAs shmat makes, so that shmdt finds them (vm_private_data). */
static const char shm_vma_tag[] = "SYSV";

static s64 shm_now(void)
{
	return (s64)(ktime_get_real_ns() / 1000000000ull);
}

static int shm_id(const struct shmid_kernel *s)
{
	return (int)(s - shm_segs) + SHMMNI * s->seq;
}

/* The segment with this id, or NULL; shm_lock held. */
static struct shmid_kernel *shm_find_id(int id)
{
	struct shmid_kernel *s;

	if (id < 0 || id % SHMMNI >= SHM_SLOTS)
		return NULL;
	s = &shm_segs[id % SHMMNI];
	return s->file && shm_id(s) == id ? s : NULL;
}

long sys_shmget(int key, size_t size, int shmflg)
{
	struct shmid_kernel *s = NULL;
	struct file *file;
	char name[16];
	long ret;

	mutex_lock(&shm_lock);
	if (key != IPC_PRIVATE) {
		for (int i = 0; i < SHM_SLOTS; i++)
			if (shm_segs[i].file && shm_segs[i].key == key)
				s = &shm_segs[i];
		if (s) {
			if ((shmflg & (IPC_CREAT | IPC_EXCL)) == (IPC_CREAT | IPC_EXCL))
				ret = -EEXIST;
			else if (size > s->segsz)
				ret = -EINVAL;
			else
				ret = shm_id(s);
			goto out;
		}
		ret = -ENOENT;
		if (!(shmflg & IPC_CREAT))
			goto out;
	}
	ret = -EINVAL;
	if (size < SHMMIN || size > (size_t)MMAP_BASE)
		goto out;
	for (int i = 0; i < SHM_SLOTS && !s; i++)
		if (!shm_segs[i].file)
			s = &shm_segs[i];
	ret = -ENOSPC;
	if (!s)
		goto out;
	snprintf(name, sizeof(name), "SYSV%08x", (u32)key);
	file = shmem_file_setup(name, (loff_t)size);
	if (IS_ERR(file)) {
		ret = PTR_ERR(file) == -ENOSPC ? -ENOMEM : PTR_ERR(file);
		goto out;
	}
	s->file = file;
	s->key = key;
	s->seq++;
	s->mode = shmflg & 0777;
	s->segsz = size;
	s->atime = s->dtime = 0;
	s->ctime = shm_now();
	s->cpid = current->tgid;
	s->lpid = 0;
	ret = shm_id(s);
out:
	mutex_unlock(&shm_lock);
	return ret;
}

long sys_shmat(int shmid, unsigned long shmaddr, int shmflg)
{
	struct mm_struct *mm = current->mm;
	unsigned long prot = PROT_READ, flags = MAP_SHARED;
	struct vm_area_struct *vma;
	struct shmid_kernel *s;
	struct file *file;
	u64 size;
	long ret;

	if (!mm)
		return -EINVAL;
	if (shmaddr & (SHMLBA - 1)) {
		if (!(shmflg & SHM_RND))
			return -EINVAL;
		shmaddr &= ~(unsigned long)(SHMLBA - 1);
	}
	if (shmaddr)
		flags |= MAP_FIXED;
	if (!(shmflg & SHM_RDONLY))
		prot |= PROT_WRITE;
	if (shmflg & SHM_EXEC)
		prot |= PROT_EXEC;
	mutex_lock(&shm_lock);
	s = shm_find_id(shmid);
	if (!s) {
		mutex_unlock(&shm_lock);
		return -EINVAL;
	}
	file = get_file(s->file);
	size = s->segsz;
	mutex_unlock(&shm_lock);

	mutex_lock(&mm->mmap_lock);
	/* without SHM_REMAP an address must be free, as on Linux */
	vma = shmaddr ? find_vma(mm, shmaddr) : NULL;
	if (vma && vma->vm_start < shmaddr + PAGE_ALIGN(size) && !(shmflg & SHM_REMAP))
		ret = -EINVAL;
	else
		ret = do_mmap(file, shmaddr, size, prot, flags, 0);
	if (ret >= 0) {
		vma = find_vma(mm, (unsigned long)ret);
		vma->vm_private_data = (void *)shm_vma_tag;
	}
	mutex_unlock(&mm->mmap_lock);
	fput(file);

	if (ret < 0)
		return ret;
	mutex_lock(&shm_lock);
	s = shm_find_id(shmid);
	if (s) {
		s->atime = shm_now();
		s->lpid = current->tgid;
	}
	mutex_unlock(&shm_lock);
	return ret;
}

/* A piece of the mapping of file that shmat made at addr (Linux's test
 * in do_shmdt: same file, at the offset its address says). */
static bool shm_vma_of(const struct vm_area_struct *vma, const struct file *file,
		       unsigned long addr)
{
	return vma->vm_private_data == shm_vma_tag && vma->vm_file == file &&
	       vma->vm_pgoff == (vma->vm_start - addr) >> PAGE_SHIFT;
}

/*
 * Detach the segment attached at addr: the VMA that starts there and the
 * pieces of the same mapping after it (munmap or mprotect may have split
 * it, or cut holes that something else now fills), up to the segment's
 * size -- Linux's do_shmdt.
 */
long sys_shmdt(unsigned long addr)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct file *file = NULL;
	unsigned long cur, end;

	if (!mm || (addr & ~PAGE_MASK))
		return -EINVAL;
	mutex_lock(&mm->mmap_lock);
	vma = find_vma(mm, addr);
	if (vma && vma->vm_start == addr && shm_vma_of(vma, vma->vm_file, addr)) {
		file = get_file(vma->vm_file);
		end = addr + PAGE_ALIGN((unsigned long)file->f_inode->i_size);
		for (cur = addr; (vma = find_vma(mm, cur)) && vma->vm_start < end; ) {
			cur = vma->vm_end;
			if (shm_vma_of(vma, file, addr))
				do_munmap(mm, vma->vm_start, min(vma->vm_end, end) - vma->vm_start);
		}
	}
	mutex_unlock(&mm->mmap_lock);
	if (!file)
		return -EINVAL;
	mutex_lock(&shm_lock);
	for (int i = 0; i < SHM_SLOTS; i++)
		if (shm_segs[i].file == file) {
			shm_segs[i].dtime = shm_now();
			shm_segs[i].lpid = current->tgid;
		}
	mutex_unlock(&shm_lock);
	fput(file);
	return 0;
}

long sys_shmctl(int shmid, int cmd, struct shmid64_ds __user *buf)
{
	struct shmid64_ds ds;
	struct shmid_kernel *s;
	struct file *file = NULL;
	long ret = 0;

	cmd &= ~IPC_64;                 /* glibc asks for the layout above */
	if (cmd != IPC_RMID && cmd != IPC_SET && cmd != IPC_STAT)
		return -EINVAL;
	if (cmd == IPC_SET && copy_from_user(&ds, buf, sizeof(ds)))
		return -EFAULT;
	mutex_lock(&shm_lock);
	s = shm_find_id(shmid);
	if (!s) {
		mutex_unlock(&shm_lock);
		return -EINVAL;
	}
	switch (cmd) {
	case IPC_STAT:
		memset(&ds, 0, sizeof(ds));
		ds.shm_perm.key = s->key;
		ds.shm_perm.mode = s->mode;
		ds.shm_perm.seq = s->seq;
		ds.shm_segsz = s->segsz;
		ds.shm_atime = s->atime;
		ds.shm_dtime = s->dtime;
		ds.shm_ctime = s->ctime;
		ds.shm_cpid = s->cpid;
		ds.shm_lpid = s->lpid;
		ds.shm_nattch = (u64)(refcount_read(&s->file->f_count) - 1);
		break;
	case IPC_SET:
		s->mode = ds.shm_perm.mode & 0777;
		s->ctime = shm_now();
		break;
	case IPC_RMID:
		file = s->file;         /* the mappings keep the memory */
		s->file = NULL;
		break;
	}
	mutex_unlock(&shm_lock);
	if (file)
		fput(file);
	if (cmd == IPC_STAT && copy_to_user(buf, &ds, sizeof(ds)))
		ret = -EFAULT;
	return ret;
}
