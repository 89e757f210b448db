/* SPDX-License-Identifier: MIT */
/*
 * qemu-plugin.h - the part of QEMU's TCG plugin interface that
 * tools/insncount/insncount.c uses, declared here because Debian ships
 * QEMU (7.2) with plugin support but without this header.
 *
 * The interface is a C ABI: QEMU dlopen()s the plugin named by
 * `-plugin FILE.so,name=value,...`, checks the int `qemu_plugin_version`
 * it exports against the range it supports, and calls
 * `qemu_plugin_install()`.  QEMU 7.2 speaks API version 1 (the header
 * QEMU's own tree has for it, of that release); a plugin built against
 * another version is refused at load time with a message naming both,
 * so a mismatch here cannot go unnoticed.  The declarations below follow
 * that release's types and argument order; only what is used is here.
 */
#ifndef INSNCOUNT_QEMU_PLUGIN_H
#define INSNCOUNT_QEMU_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))

/* the API version QEMU 7.2 implements (its minimum and current) */
#define QEMU_PLUGIN_VERSION 1

typedef uint64_t qemu_plugin_id_t;

/* what QEMU tells the plugin at install time (valid only during the call) */
typedef struct qemu_info_t {
	const char *target_name;        /* "x86_64" */
	struct {
		int min;
		int cur;
	} version;                      /* the API versions QEMU accepts */
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;

struct qemu_plugin_tb;                  /* a translation block, at translation */
struct qemu_plugin_insn;                /* one of its instructions */

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,         /* the callback reads no guest register */
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_simple_cb_t)(qemu_plugin_id_t id, unsigned int vcpu_index);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);

/* a guest memory access, as a memory callback sees it */
typedef uint32_t qemu_plugin_meminfo_t;
enum qemu_plugin_mem_rw {
	QEMU_PLUGIN_MEM_R = 1,
	QEMU_PLUGIN_MEM_W,
	QEMU_PLUGIN_MEM_RW,
};
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
					  uint64_t vaddr, void *userdata);

/* the two symbols the plugin exports */
extern QEMU_PLUGIN_EXPORT int qemu_plugin_version;
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv);

/* called when a block is translated: instrument it there */
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
/* called each time the translated block starts executing */
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags, void *userdata);
/* called each time one translated instruction is about to execute */
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);
/* called at each memory access of one translated instruction (vaddr:
 * the linear address, segment base added) */
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn,
				      qemu_plugin_vcpu_mem_cb_t cb,
				      enum qemu_plugin_cb_flags flags,
				      enum qemu_plugin_mem_rw rw, void *userdata);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);
/* what backs an access's address (valid during the callback only) */
struct qemu_plugin_hwaddr;
struct qemu_plugin_hwaddr *qemu_plugin_get_hwaddr(qemu_plugin_meminfo_t info, uint64_t vaddr);
bool qemu_plugin_hwaddr_is_io(const struct qemu_plugin_hwaddr *haddr);  /* MMIO, not RAM */
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb,
				    void *userdata);

size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);

/* a line on QEMU's log (stderr unless -D FILE) */
void qemu_plugin_outs(const char *string);

#endif /* INSNCOUNT_QEMU_PLUGIN_H */
