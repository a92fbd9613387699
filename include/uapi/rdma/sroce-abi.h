/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * sroce-abi.h - the only contract between sroce.ko and libsroce.
 *
 * Every structure here has explicit widths and explicit padding, so that a
 * 32-bit and a 64-bit build, and the kernel and the provider, agree on the
 * layout.  Bump SROCE_UVERBS_ABI_VERSION on any incompatible change; the
 * provider refuses a kernel whose version it does not know.
 */
#ifndef SROCE_ABI_USER_H
#define SROCE_ABI_USER_H

#include <linux/types.h>

#define SROCE_UVERBS_ABI_VERSION	1

/*
 * ib_core's enum rdma_driver_id has no entry for out-of-tree drivers.  sroce
 * reports this private id; libsroce matches on it (and double-checks the
 * sysfs marker below), so neither librxe nor any other provider claims
 * sroce devices, whatever their name.  It fits the 16 bits that
 * libibverbs' match table stores.
 */
#define SROCE_DRIVER_ID			0x5352

/* Present in /sys/class/infiniband/<dev>/ of every sroce device. */
#define SROCE_SYSFS_ABI_ATTR		"sroce_abi_version"

/* Feature bits of sroce_alloc_ucontext_resp.caps. */
enum sroce_ucontext_caps {
	SROCE_CAP_NONE = 0,
	SROCE_CAP_SRQ = 1 << 0,		/* SRQs: struct sroce_create_srq_resp */
	SROCE_CAP_UD = 1 << 1,		/* UD QPs, AHs: sroce_create_ah_resp */
	SROCE_CAP_XRC = 1 << 2,		/* XRC domains, SRQs, QPs: xrc_srqn */
	SROCE_CAP_ATOMIC_WRITE = 1 << 3,	/* SROCE_WR_ATOMIC_WRITE */
	SROCE_CAP_RAW_PACKET = 1 << 4,	/* raw packet QPs (SEND), flows */
	SROCE_CAP_RSS = 1 << 5,		/* receive WQs, indirection tables, RSS QPs */
};

/*
 * libsroce opens every context with this request.  A context opened
 * without it (by librxe, say, which claims devices named "rxe*" when
 * libsroce is not installed) is refused instead of misdriven.
 */
struct sroce_alloc_ucontext_req {
	__u32 abi_version;	/* == SROCE_UVERBS_ABI_VERSION */
	__u32 reserved;		/* must be zero */
};

struct sroce_alloc_ucontext_resp {
	__u32 abi_version;	/* == SROCE_UVERBS_ABI_VERSION */
	__u32 caps;		/* enum sroce_ucontext_caps */
	__u32 max_inline;	/* bytes of inline data per WQE */
	__u32 reserved;
};

/*
 * ibv_import_device(): a second process, or library, given the command fd
 * of an open context, asks for its handshake answer again through the
 * QUERY_CONTEXT method, in this driver attribute (a struct
 * sroce_alloc_ucontext_resp).  The ID lives in the driver's namespace of
 * attribute IDs (UVERBS_ID_NS_SHIFT of <rdma/ib_user_ioctl_cmds.h>).
 */
enum sroce_query_context_attrs {
	SROCE_ATTR_QUERY_CONTEXT_RESP = 1U << 12,
};

/*
 * Device memory (ibv_alloc_dm): ib_core's DM_ALLOC, DM_FREE and DM_MR_REG
 * methods, and this driver method on UVERBS_OBJECT_DM, which tells where
 * to mmap() a DM on the command fd and how long it is (for the context
 * that allocated it, or one that imported it: ibv_import_dm).  IDs in the
 * driver's namespace, like SROCE_ATTR_QUERY_CONTEXT_RESP.
 */
enum sroce_dm_methods {
	SROCE_METHOD_DM_QUERY = 1U << 12,
};

enum sroce_dm_query_attrs {
	SROCE_ATTR_DM_QUERY_HANDLE = 1U << 12,	/* in: the DM */
	SROCE_ATTR_DM_QUERY_RESP,		/* out: struct sroce_dm_query_resp */
};

struct sroce_dm_query_resp {
	__aligned_u64 mmap_offset;
	__aligned_u64 length;	/* bytes usable; the mapping is whole pages */
};

/* The most one ibv_alloc_dm() may ask for (ibv_device_attr_ex.max_dm_size). */
#define SROCE_DM_MAX		(256U << 10)

struct sroce_alloc_pd_resp {
	__u32 pdn;
	__u32 reserved;
};

/*
 * Shared rings
 * ============
 *
 * SQ, RQ and CQ are rings in memory that the kernel allocates and the
 * provider maps with mmap() at the offset the create response names.  A
 * ring is a struct sroce_ring_hdr followed, at SROCE_RING_ENTRIES_OFFSET,
 * by a power-of-two number of entries of a power-of-two stride.  Indices
 * are free-running 32-bit counters; slot = index & (entries - 1).
 *
 * The producer writes an entry, then publishes it with a release store of
 * prod; the consumer reads prod with an acquire load, copies the entry out
 * and publishes cons.  The kernel never trusts a value userspace wrote:
 * it keeps its own copy of the index it owns, copies a WQE before
 * validating it, and treats an impossible prod (more than a ring ahead)
 * as a fatal QP or CQ error.
 *
 * SQ: user produces, kernel consumes.  RQ: user produces, kernel consumes.
 * CQ: kernel produces, user consumes.
 */
struct sroce_ring_hdr {
	__u32 prod;
	__u32 pad0[15];		/* prod and cons on their own cache lines */
	__u32 cons;
	__u32 pad1[15];
	/*
	 * SQ: SROCE_RING_F_KICK is set by the kernel when its send
	 * engine went idle; the provider then rings the doorbell (an
	 * ibv_post_send() system call with no work requests).  While the
	 * engine runs, posting needs no system call.  An RQ or a WQ has
	 * it set only in error, where what is posted must be flushed (the
	 * RQ's doorbell is POST_RECV with no work requests, a WQ's below).
	 *
	 * Any ring: SROCE_RING_F_DEAD is set by the kernel when it destroys
	 * the ring's object.  A provider sees it only if that happened
	 * under the process: the device was removed (ib_core destroyed the
	 * process's objects and reported IB_EVENT_DEVICE_FATAL).  Polling
	 * an empty dead CQ and posting to a dead SQ or RQ then fail with
	 * EIO instead of waiting for ever.  Added in ABI 1 without a
	 * version bump: an older provider never looks at the bit.
	 */
	__u32 flags;
	__u32 pad2[15];
};

#define SROCE_RING_F_KICK		(1U << 0)
#define SROCE_RING_F_DEAD		(1U << 1)
#define SROCE_RING_ENTRIES_OFFSET	256

struct sroce_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/* Send WQE flags: enum ib_uverbs_send_flags values (IB_UVERBS_SEND_*). */

/*
 * Send WQE opcodes are enum ib_uverbs_wr_opcode values, and this one,
 * which 6.1's uverbs does not have (the value rdma-core and later
 * kernels give it).  RC and XRC INI QPs of a context with
 * SROCE_CAP_ATOMIC_WRITE take it; a kernel QP cannot post it.
 */
#define SROCE_WR_ATOMIC_WRITE		15	/* IBV_WR_ATOMIC_WRITE */

struct sroce_send_wqe {
	__aligned_u64 wr_id;
	__u32 opcode;		/* enum ib_uverbs_wr_opcode, SROCE_WR_* */
	__u32 send_flags;	/* enum ib_uverbs_send_flags */
	__u32 num_sge;		/* SGEs that follow; 0 if inline */
	__u32 inline_len;	/* bytes of inline data that follow */
	__u32 imm_data;		/* network order; or invalidate rkey */
	/*
	 * XRC INI QPs (SROCE_CAP_XRC): the SRQ at the target that the
	 * message is for, 24 bits (the XRCETH).  Zero for other QPs: it was
	 * reserved0 before XRC, which every provider wrote as zero.
	 */
	__u32 xrc_srqn;
	union {
		struct {
			__aligned_u64 remote_addr;
			__u32 rkey;
			__u32 reserved;
		} rdma;
		/*
		 * Memory windows: IB_UVERBS_WR_BIND_MW.  The window is named
		 * by its current rkey (mw_rkey); it gets [addr, addr + length)
		 * of the MR named by mr_lkey with the remote rights in access
		 * (IB_UVERBS_ACCESS_*), and the low 8 bits of new_rkey as its
		 * key from then on.  length 0 unbinds a type 1 window.
		 * IB_UVERBS_WR_LOCAL_INV and _SEND_WITH_INV carry the rkey to
		 * invalidate in imm_data (host order).
		 */
		struct {
			__aligned_u64 addr;
			__aligned_u64 length;
			__u32 mw_rkey;
			__u32 new_rkey;
			__u32 mr_lkey;
			__u32 access;
		} bind;
		/*
		 * Kernel QPs only: IB_WR_REG_MR (the kernel's 0x20; uverbs
		 * has no fast registration).  The MR named by key's index
		 * gets key, the range [iova, iova + length) of the pages
		 * map_mr_sg gave it, and the rights in access (IB_ACCESS_*).
		 */
		struct {
			__aligned_u64 iova;
			__aligned_u64 length;
			__u32 key;
			__u32 access;
		} reg;
		struct {
			__aligned_u64 remote_addr;
			__aligned_u64 compare_add;
			__aligned_u64 swap;
			__u32 rkey;
			__u32 reserved;
		} atomic;
		/*
		 * SROCE_WR_ATOMIC_WRITE: the 8 bytes in data are stored at
		 * remote_addr (8-byte aligned) in one access, in the order
		 * they have here: nobody swaps bytes.  No SGEs, no inline
		 * data: num_sge 0, IB_UVERBS_SEND_INLINE clear.
		 */
		struct {
			__aligned_u64 remote_addr;
			__u32 rkey;
			__u32 reserved;
			__u8 data[8];
		} atomic_write;
		/*
		 * UD: the destination is named by the number create_ah
		 * returned, never by an address vector in the ring.  A
		 * remote_qkey with its high bit set means the QP's Q_Key.
		 */
		struct {
			__u32 ahn;
			__u32 remote_qpn;
			__u32 remote_qkey;
			__u32 reserved;
		} ud;
		__u8 reserved1[96];
	} wr;
	/* struct sroce_sge sge[num_sge] or inline data follows. */
};

#define SROCE_SEND_WQE_HDR_SIZE		128

struct sroce_recv_wqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 reserved;
	/* struct sroce_sge sge[num_sge] follows. */
};

#define SROCE_RECV_WQE_HDR_SIZE		16

struct sroce_cqe {
	__aligned_u64 wr_id;
	__u32 status;		/* enum ib_uverbs_wc_status */
	__u32 opcode;		/* enum ib_uverbs_wc_opcode, SROCE_CQE_OPCODE_* */
	__u32 vendor_err;
	__u32 byte_len;
	__u32 imm_data;		/* network order; or invalidated rkey */
	__u32 qp_num;
	__u32 src_qp;
	__u32 wc_flags;		/* enum sroce_cqe_flags */
	__u16 pkey_index;
	__u16 slid;
	__u8 sl;
	__u8 dlid_path_bits;
	__u8 port_num;
	__u8 network_hdr_type;	/* UD receives: enum rdma_network_type */
	__aligned_u64 reserved1[2];
};

/*
 * sroce_cqe.opcode of an entry the provider voided in place: the CQEs of
 * a QP that went to RESET or was destroyed (as hardware providers clean
 * their CQs then).  The kernel never writes it; pollers skip such
 * entries.  Voiding rather than compacting leaves prod to the kernel.
 */
#define SROCE_CQE_OPCODE_VOID	0xffffffffu

/*
 * sroce_cqe.opcode of a completed SROCE_WR_ATOMIC_WRITE: IBV_WC_ATOMIC_WRITE
 * (what later kernels call IB_UVERBS_WC_ATOMIC_WRITE).  In 6.1's enum
 * ib_wc_opcode, 9 is IB_WC_MASKED_COMP_SWAP, which sroce never reports;
 * and only user QPs, whose CQEs only libsroce reads, post ATOMIC WRITEs.
 */
#define SROCE_CQE_OPCODE_ATOMIC_WRITE	9

/*
 * sroce_cqe.wc_flags.  uverbs has no enum for these: the values are the
 * kernel's enum ib_wc_flags (a kernel consumer's ib_wc takes them
 * unchanged), which differ from libibverbs' IBV_WC_* from bit 2 on, so
 * libsroce translates.
 */
enum sroce_cqe_flags {
	SROCE_CQE_GRH		= 1 << 0,	/* IB_WC_GRH */
	SROCE_CQE_WITH_IMM	= 1 << 1,	/* IB_WC_WITH_IMM */
	SROCE_CQE_WITH_INV	= 1 << 2,	/* IB_WC_WITH_INVALIDATE */
	SROCE_CQE_IP_CSUM_OK	= 1 << 3,	/* IB_WC_IP_CSUM_OK */
};

/* Where a ring lives: mmap(cmd_fd, size, ..., offset). */
struct sroce_ring_info {
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_size;
	__u32 entries;		/* power of two */
	__u32 stride;		/* bytes per entry, power of two */
};

struct sroce_create_cq_resp {
	struct sroce_ring_info ring;
};

struct sroce_resize_cq_resp {
	struct sroce_ring_info ring;
};

/*
 * create_qp's driver request, optional: a provider that sends none (or a
 * shorter one) gets zeroes, the device's defaults.  Bytes beyond it must
 * be zero.
 */
enum sroce_qp_cc {
	SROCE_QP_CC_DEVICE = 0,	/* the device's policy when the QP reaches RTS */
	SROCE_QP_CC_AIMD = 1,
	SROCE_QP_CC_WAN = 2,
	SROCE_QP_CC_DCQCN = 3,
};

/*
 * RSS QPs (SROCE_CAP_RSS): a raw packet QP created with an indirection
 * table has no rings of its own; it spreads the frames its flows take
 * over the table's WQs by a hash its create request configures.  The
 * values are rdma-core's (IBV_RX_HASH_FUNC_*, IBV_RX_HASH_*).
 */
#define SROCE_RX_HASH_FUNC_TOEPLITZ	(1U << 0)

enum sroce_rx_hash_fields {
	SROCE_RX_HASH_SRC_IPV4 = 1 << 0,
	SROCE_RX_HASH_DST_IPV4 = 1 << 1,
	SROCE_RX_HASH_SRC_IPV6 = 1 << 2,
	SROCE_RX_HASH_DST_IPV6 = 1 << 3,
	SROCE_RX_HASH_SRC_PORT_TCP = 1 << 4,
	SROCE_RX_HASH_DST_PORT_TCP = 1 << 5,
	SROCE_RX_HASH_SRC_PORT_UDP = 1 << 6,
	SROCE_RX_HASH_DST_PORT_UDP = 1 << 7,
};

/* The Toeplitz key is exactly this long. */
#define SROCE_RX_HASH_KEY_LEN		40

/*
 * The rx_hash fields came with SROCE_CAP_RSS, in ABI 1 without a version
 * bump: a provider that does not know them sends the first 8 bytes, and
 * they must be zero for every QP but an RSS QP.  An RSS QP needs them.
 */
struct sroce_create_qp_req {
	__u32 cc;		/* enum sroce_qp_cc */
	__u32 reserved;		/* must be zero */
	__aligned_u64 rx_hash_fields_mask;	/* enum sroce_rx_hash_fields */
	__u8 rx_hash_function;	/* SROCE_RX_HASH_FUNC_TOEPLITZ */
	__u8 rx_hash_key_len;	/* SROCE_RX_HASH_KEY_LEN */
	__u8 reserved1[6];	/* must be zero */
	__u8 rx_hash_key[SROCE_RX_HASH_KEY_LEN];
};

struct sroce_create_qp_resp {
	struct sroce_ring_info sq;	/* entries == 0: no SQ (RSS QP) */
	struct sroce_ring_info rq;	/* entries == 0: no RQ (SRQ, RSS QP) */
	__u32 max_inline;
	__u32 reserved;
};

/*
 * Receive work queues (SROCE_CAP_RSS): a receive ring like a QP's RQ,
 * with the same WQE format, that the RSS QPs whose tables name the WQ
 * consume.  Posting needs no system call.  In IBV_WQS_ERR the kernel
 * flushes what is posted and, when it finds nothing more, sets
 * SROCE_RING_F_KICK on the ring: a receive posted after that needs the
 * doorbell, a modify_wq with attr_mask IBV_WQ_ATTR_CURR_STATE alone and
 * curr_wq_state IBV_WQS_ERR, which changes nothing but flushes (and fails
 * with EINVAL if the WQ is no longer in ERR).  A WQ's completions carry
 * its wq_num in qp_num; WQ and QP numbers never meet.  create_wq takes
 * no driver request.
 */
struct sroce_create_wq_resp {
	struct sroce_ring_info rq;
};

/*
 * SRQ (SROCE_CAP_SRQ): a receive ring like a QP's RQ, with the same WQE
 * format.  The provider produces, the engines of the QPs on the SRQ
 * consume; posting needs no system call.
 */
struct sroce_create_srq_resp {
	struct sroce_ring_info rq;
	__u32 reserved[2];
};

/*
 * Address handles (SROCE_CAP_UD).  Only u32 fields: this follows the
 * 4-byte struct ib_uverbs_create_ah_resp without padding.
 */
struct sroce_create_ah_resp {
	__u32 ahn;		/* what a UD send WQE names (wr.ud.ahn) */
	__u32 reserved;
};

#endif /* SROCE_ABI_USER_H */
