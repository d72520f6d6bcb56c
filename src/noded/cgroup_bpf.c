/*
 * cgroup_bpf: ConstrainDevices on cgroup v2. v2 has no devices.deny file:
 * the kernel asks a BPF_PROG_TYPE_CGROUP_DEVICE program attached to the
 * cgroup (or an ancestor) whether a device may be opened. This builds the
 * smallest such program by hand (no libbpf, no compiler at run time):
 *
 *   r2 = ctx->access_type & 0xffff      device kind
 *   r3 = ctx->major; r4 = ctx->minor
 *   if r2 != BPF_DEVCG_DEV_CHAR goto allow
 *   for each denied (MAJ, MIN):
 *       if r3 == MAJ && r4 == MIN: return 0    (EPERM to the opener)
 *   allow: return 1
 *
 * and attaches it to job_J with BPF_F_ALLOW_MULTI, so programs above it
 * (systemd's) keep applying as well. The attachment lives as long as the
 * cgroup: nothing to pin or clean up. It needs root (CAP_BPF and
 * CAP_SYS_ADMIN) and a kernel with cgroup BPF (4.15+).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cgroup.h"
#include "xalloc.h"

static struct bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
	struct bpf_insn i;
	memset(&i, 0, sizeof(i));
	i.code = code;
	i.dst_reg = dst & 0xf;
	i.src_reg = src & 0xf;
	i.off = off;
	i.imm = imm;
	return i;
}

size_t cgroup_bpf_prog(const dev_t *deny, size_t n, struct bpf_insn *out)
{
	size_t k = 0;
	out[k++] = insn(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_2, BPF_REG_1,
			offsetof(struct bpf_cgroup_dev_ctx, access_type), 0);
	out[k++] = insn(BPF_ALU64 | BPF_AND | BPF_K, BPF_REG_2, 0, 0, 0xffff);
	out[k++] = insn(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_3, BPF_REG_1,
			offsetof(struct bpf_cgroup_dev_ctx, major), 0);
	out[k++] = insn(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_4, BPF_REG_1,
			offsetof(struct bpf_cgroup_dev_ctx, minor), 0);
	out[k++] = insn(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_2, 0, (int16_t)(4 * n), BPF_DEVCG_DEV_CHAR);
	for (size_t i = 0; i < n; i++) {
		out[k++] = insn(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_3, 0, 3, (int32_t)major(deny[i]));
		out[k++] = insn(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_4, 0, 2, (int32_t)minor(deny[i]));
		out[k++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
		out[k++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	}
	out[k++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1);
	out[k++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return k;
}

/* Load the program for deny[]: its fd, or -1 with *err. */
static int prog_load(const dev_t *deny, size_t n, char **err)
{
	struct bpf_insn prog[7 + 4 * CG_BPF_MAX_DENY];
	size_t cnt = cgroup_bpf_prog(deny, n, prog);
	char log[1024] = "";
	union bpf_attr a;
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
	a.insn_cnt = (uint32_t)cnt;
	a.insns = (uint64_t)(uintptr_t)prog;
	a.license = (uint64_t)(uintptr_t)"GPL";
	a.log_buf = (uint64_t)(uintptr_t)log;
	a.log_size = sizeof(log);
	a.log_level = 1;
	int pfd = (int)syscall(SYS_bpf, BPF_PROG_LOAD, &a, sizeof(a));
	if (pfd < 0 && errno == ENOSPC) {        /* the log did not fit: load without it */
		a.log_buf = 0;
		a.log_size = 0;
		a.log_level = 0;
		pfd = (int)syscall(SYS_bpf, BPF_PROG_LOAD, &a, sizeof(a));
	}
	if (pfd < 0)
		*err = xasprintf("cannot load a BPF device program: %s%s%s", strerror(errno),
				 *log ? ": " : "", log);
	return pfd;
}

int cgroup_bpf_probe(char **err)
{
	dev_t one = makedev(195, 255);
	int fd = prog_load(&one, 1, err);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

int cgroup_bpf_deny(const char *dir, const dev_t *deny, size_t n, char **err)
{
	if (!n)
		return 0;
	if (n > CG_BPF_MAX_DENY) {
		*err = xasprintf("too many devices to hide (%zu, at most %d)", n, CG_BPF_MAX_DENY);
		return -1;
	}
	int pfd = prog_load(deny, n, err);
	if (pfd < 0)
		return -1;
	union bpf_attr a;
	int cfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cfd < 0) {
		*err = xasprintf("cannot open %s: %s", dir, strerror(errno));
		close(pfd);
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.target_fd = (uint32_t)cfd;
	a.attach_bpf_fd = (uint32_t)pfd;
	a.attach_type = BPF_CGROUP_DEVICE;
	a.attach_flags = BPF_F_ALLOW_MULTI;
	int rc = (int)syscall(SYS_bpf, BPF_PROG_ATTACH, &a, sizeof(a));
	if (rc < 0)
		*err = xasprintf("cannot attach the BPF device program to %s: %s", dir, strerror(errno));
	close(cfd);
	close(pfd);
	return rc < 0 ? -1 : 0;
}
