/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * verbs-private.h - the part of libibverbs' provider ABI that Debian does
 * not ship a header for.
 *
 * libibverbs exports its provider interface with the symbol version
 * IBVERBS_PRIVATE_34, but the matching header (rdma-core's driver.h) is not
 * in libibverbs-dev.  This file declares, in our own words, exactly the
 * structures and functions libsroce uses, laid out as rdma-core 44 (the
 * Debian 12 package, 44.0-2) lays them out.  Every layout fact below was
 * read from rdma-core's source and then checked against the installed
 * binaries (libibverbs.so.1 and librxe-rdmav34.so): see the _Static_asserts
 * at the end, which pin the offsets those binaries use.
 *
 * The private ABI changes whenever rdma-core bumps IBVERBS_PRIVATE_<N>; a
 * provider built from this file must refuse to load anywhere else, which
 * the versioned symbol verbs_register_driver_34 guarantees: the dynamic
 * linker will not resolve it against another libibverbs.
 */
#ifndef SROCE_VERBS_PRIVATE_H
#define SROCE_VERBS_PRIVATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

/* The number in every IBVERBS_PRIVATE_<N> symbol and in the .so suffix. */
#define SROCE_IBVERBS_PABI	34

/*
 * ccan's struct list_node: libibverbs links devices and sysfs entries on
 * intrusive doubly linked lists.  We never walk them; we only need the size.
 */
struct sroce_ccan_list_node {
	struct sroce_ccan_list_node *next;
	struct sroce_ccan_list_node *prev;
};

/* --------------------------------------------------------------------- */
/* Device discovery and matching                                          */
/* --------------------------------------------------------------------- */

/* verbs_match_ent.kind */
enum {
	VERBS_MATCH_SENTINEL	= 0,	/* ends a match table */
	VERBS_MATCH_PCI		= 1,	/* vendor/device of a PCI parent */
	VERBS_MATCH_MODALIAS	= 2,	/* fnmatch() pattern on a modalias */
	VERBS_MATCH_DRIVER_ID	= 3,	/* netlink RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID */
};

/*
 * One row of a provider's match table.  24 bytes on LP64: the union is 8
 * bytes wide, so a driver id is compared as a 64-bit number against the
 * 32-bit id that libibverbs reads from netlink.
 */
struct verbs_match_ent {
	void *driver_data;
	union {
		const char *modalias;
		uint64_t driver_id;
	} u;
	uint16_t vendor;
	uint16_t device;
	uint8_t kind;
};

/* verbs_sysfs_dev.flags: which lazily read fields are valid. */
enum {
	VSYSFS_READ_MODALIAS	= 1 << 0,
	VSYSFS_READ_NODE_GUID	= 1 << 1,
};

/*
 * One uverbs character device found by libibverbs (via netlink, or by
 * walking /sys/class/infiniband_verbs when netlink is unavailable), handed
 * to match_device() and alloc_device().  rdma-core 44 has num_ports
 * between ibdev_idx and abi_ver; older releases had a fw_ver[64] after
 * modalias instead, which is why the offsets are asserted below.
 */
struct verbs_sysfs_dev {
	struct sroce_ccan_list_node entry;
	void *provider_data;
	const struct verbs_match_ent *match;	/* table row that matched, or NULL */
	unsigned int flags;
	char sysfs_name[IBV_SYSFS_NAME_MAX];	/* "uverbs0" */
	dev_t sysfs_cdev;
	char ibdev_name[IBV_SYSFS_NAME_MAX];	/* "fab1" */
	char ibdev_path[IBV_SYSFS_PATH_MAX];	/* "/sys/class/infiniband/fab1" */
	char modalias[512];
	uint64_t node_guid;
	uint32_t driver_id;			/* 0 (unknown) without netlink */
	enum ibv_node_type node_type;
	int ibdev_idx;
	uint32_t num_ports;
	uint32_t abi_ver;			/* the device's uverbs_abi_ver */
	struct timespec time_created;
};

struct verbs_device;
struct verbs_context;

/*
 * What a provider registers.  libibverbs matches a device against
 * match_table (driver id first, then "rdma_device:N<name>", then the
 * modalias), then ALWAYS calls match_device when it is set, then requires
 * match_min_abi_version <= sysfs_dev->abi_ver <= match_max_abi_version.
 */
struct verbs_device_ops {
	const char *name;

	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const struct verbs_match_ent *match_table;
	const struct verbs_device_ops **static_providers;

	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);

	struct verbs_context *(*alloc_context)(struct ibv_device *device,
					       int cmd_fd, void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device,
						int cmd_fd);

	struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_device *device);
};

/*
 * The provider allocates this (embedded first in its own device struct);
 * libibverbs fills everything after 'device' itself.
 */
struct verbs_device {
	struct ibv_device device;		/* must be first */
	const struct verbs_device_ops *ops;
	atomic_int refcount;
	struct sroce_ccan_list_node entry;
	struct verbs_sysfs_dev *sysfs;
	uint64_t core_support;
};

/* --------------------------------------------------------------------- */
/* Objects the core shares with providers                                 */
/* --------------------------------------------------------------------- */

enum ibv_mr_type {
	IBV_MR_TYPE_MR,
	IBV_MR_TYPE_NULL_MR,
	IBV_MR_TYPE_IMPORTED_MR,
	IBV_MR_TYPE_DMABUF_MR,
};

/* ibv_cmd_reg_mr() fills mr_type and access; dereg_mr() receives this. */
struct verbs_mr {
	struct ibv_mr ibv_mr;
	enum ibv_mr_type mr_type;
	int access;
};

/* A DM and its kernel handle (ibv_cmd_alloc_dm() fills both handles). */
struct verbs_dm {
	struct ibv_dm dm;
	uint32_t handle;
};

/* verbs_qp.comp_mask: which optional parts libibverbs may use. */
enum verbs_qp_mask {
	VERBS_QP_XRCD	= 1 << 0,
	VERBS_QP_EX	= 1 << 1,	/* ibv_qp_to_qp_ex() returns &qp_ex */
};

struct verbs_xrcd;

/*
 * A provider's QP embeds this.  ibv_qp_to_qp_ex() tests VERBS_QP_EX in
 * comp_mask, which therefore sits right after the (larger) ibv_qp_ex; the
 * ibv_cmd_create_qp*() helpers reset comp_mask, so a provider sets
 * VERBS_QP_EX after the command.
 */
struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t comp_mask;
	struct verbs_xrcd *xrcd;
};

/* A provider's CQ embeds this; ibv_cq_ex starts with ibv_cq's fields. */
struct verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

/* --------------------------------------------------------------------- */
/* The context ops table                                                  */
/* --------------------------------------------------------------------- */

/*
 * Every verb a provider can implement, in rdma-core 44's order (sorted by
 * name; libibverbs copies it slot by slot in verbs_set_ops(), so the order
 * IS the ABI).  76 slots.  NULL slots keep libibverbs' defaults, which is
 * what lets a provider call verbs_set_ops() more than once.
 */
struct verbs_context_ops {
	int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sges);
	struct ibv_dm *(*alloc_dm)(struct ibv_context *context,
				   struct ibv_alloc_dm_attr *attr);
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	struct ibv_mr *(*alloc_null_mr)(struct ibv_pd *pd);
	struct ibv_pd *(*alloc_parent_domain)(
		struct ibv_context *context,
		struct ibv_parent_domain_init_attr *attr);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	struct ibv_td *(*alloc_td)(struct ibv_context *context,
				   struct ibv_td_init_attr *init_attr);
	void (*async_event)(struct ibv_context *context,
			    struct ibv_async_event *event);
	int (*attach_counters_point_flow)(struct ibv_counters *counters,
					  struct ibv_counter_attach_attr *attr,
					  struct ibv_flow *flow);
	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);
	int (*close_xrcd)(struct ibv_xrcd *xrcd);
	void (*cq_event)(struct ibv_cq *cq);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd, struct ibv_ah_attr *attr);
	struct ibv_counters *(*create_counters)(
		struct ibv_context *context,
		struct ibv_counters_init_attr *init_attr);
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,
					  struct ibv_cq_init_attr_ex *init_attr);
	struct ibv_flow *(*create_flow)(struct ibv_qp *qp,
					struct ibv_flow_attr *flow_attr);
	struct ibv_flow_action *(*create_flow_action_esp)(
		struct ibv_context *context,
		struct ibv_flow_action_esp_attr *attr);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *attr);
	struct ibv_rwq_ind_table *(*create_rwq_ind_table)(
		struct ibv_context *context,
		struct ibv_rwq_ind_table_init_attr *init_attr);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *attr);
	struct ibv_srq *(*create_srq_ex)(struct ibv_context *context,
					 struct ibv_srq_init_attr_ex *attr);
	struct ibv_wq *(*create_wq)(struct ibv_context *context,
				    struct ibv_wq_init_attr *attr);
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*dealloc_pd)(struct ibv_pd *pd);
	int (*dealloc_td)(struct ibv_td *td);
	int (*dereg_mr)(struct verbs_mr *vmr);
	int (*destroy_ah)(struct ibv_ah *ah);
	int (*destroy_counters)(struct ibv_counters *counters);
	int (*destroy_cq)(struct ibv_cq *cq);
	int (*destroy_flow)(struct ibv_flow *flow);
	int (*destroy_flow_action)(struct ibv_flow_action *action);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*destroy_rwq_ind_table)(struct ibv_rwq_ind_table *table);
	int (*destroy_srq)(struct ibv_srq *srq);
	int (*destroy_wq)(struct ibv_wq *wq);
	int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	void (*free_context)(struct ibv_context *context);
	int (*free_dm)(struct ibv_dm *dm);
	int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num);
	struct ibv_dm *(*import_dm)(struct ibv_context *context,
				    uint32_t dm_handle);
	struct ibv_mr *(*import_mr)(struct ibv_pd *pd, uint32_t mr_handle);
	struct ibv_pd *(*import_pd)(struct ibv_context *context,
				    uint32_t pd_handle);
	int (*modify_cq)(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
	int (*modify_flow_action_esp)(struct ibv_flow_action *action,
				      struct ibv_flow_action_esp_attr *attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask);
	int (*modify_qp_rate_limit)(struct ibv_qp *qp,
				    struct ibv_qp_rate_limit_attr *attr);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr,
			  int attr_mask);
	int (*modify_wq)(struct ibv_wq *wq, struct ibv_wq_attr *attr);
	struct ibv_qp *(*open_qp)(struct ibv_context *context,
				  struct ibv_qp_open_attr *attr);
	struct ibv_xrcd *(*open_xrcd)(struct ibv_context *context,
				      struct ibv_xrcd_init_attr *attr);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_srq_ops)(struct ibv_srq *srq, struct ibv_ops_wr *op,
			    struct ibv_ops_wr **bad_op);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			     struct ibv_recv_wr **bad_wr);
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size);
	int (*query_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr *init_attr);
	int (*query_qp_data_in_order)(struct ibv_qp *qp, enum ibv_wr_opcode op,
				      uint32_t flags);
	int (*query_rt_values)(struct ibv_context *context,
			       struct ibv_values_ex *values);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *attr);
	int (*read_counters)(struct ibv_counters *counters,
			     uint64_t *counters_value, uint32_t ncounters,
			     uint32_t flags);
	struct ibv_mr *(*reg_dm_mr)(struct ibv_pd *pd, struct ibv_dm *dm,
				    uint64_t dm_offset, size_t length,
				    unsigned int access);
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset,
					size_t length, uint64_t iova, int fd,
					int access);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	int (*rereg_mr)(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	int (*set_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	void (*unimport_dm)(struct ibv_dm *dm);
	void (*unimport_mr)(struct ibv_mr *mr);
	void (*unimport_pd)(struct ibv_pd *pd);
};

#define SROCE_VERBS_CONTEXT_OPS_SLOTS	76

/* --------------------------------------------------------------------- */
/* Command buffers for the ibv_cmd_*() helpers                            */
/* --------------------------------------------------------------------- */

/*
 * rdma-core's kern-abi.h generates one request struct per uverbs write
 * command: the 8-byte ib_uverbs_cmd_hdr followed by the kernel's request
 * struct from <rdma/ib_user_verbs.h>; a provider appends its own request
 * data after that and passes sizeof() of the whole thing.  libibverbs fills
 * in the header itself.  Responses are the kernel's response struct with
 * the provider's response data appended at sizeof(kernel struct).
 */
struct ibv_get_context {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_get_context core_payload;
};

struct ibv_query_port {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_query_port core_payload;
};

struct ibv_alloc_pd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_alloc_pd core_payload;
};

struct ibv_reg_mr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_reg_mr core_payload;
};

struct ibv_rereg_mr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_rereg_mr core_payload;
};

struct ibv_create_cq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_cq core_payload;
};

struct ibv_resize_cq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_resize_cq core_payload;
};

struct ibv_create_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_qp core_payload;
};

struct ibv_modify_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_modify_qp core_payload;
};

struct ibv_query_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_query_qp core_payload;
};

/*
 * Extended commands (IB_USER_VERBS_CMD_FLAG_EXTENDED) carry a second
 * header with the response pointer and the provider data sizes.
 */
struct ex_hdr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex_hdr;
};

struct ibv_create_cq_ex {
	struct ex_hdr hdr;
	struct ib_uverbs_ex_create_cq core_payload;
};

/* --------------------------------------------------------------------- */
/* Functions exported by libibverbs.so.1 @ IBVERBS_PRIVATE_34             */
/* --------------------------------------------------------------------- */

/*
 * Registration.  The PABI number is part of the symbol name so that a
 * provider cannot bind to a libibverbs with another private ABI even when
 * symbol versioning is off.
 */
void verbs_register_driver_34(const struct verbs_device_ops *ops);

/*
 * calloc(alloc_size) and initialise the verbs_context found at
 * (char *)result + (uintptr_t)context_offset.  driver_id goes into every
 * ioctl() header, so it must equal the kernel's ib_device ops.driver_id.
 * On failure returns NULL (and closes cmd_fd if the allocation failed).
 */
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);
/* Undo the above except the free(): closes the fds, drops the device. */
void verbs_uninit_context(struct verbs_context *context);
/* Copy every non-NULL op into the context; may be called repeatedly. */
void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops);

/* Read <ibdev_path>/<fnfmt...>; returns bytes read or -1 with errno. */
int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
			      struct verbs_sysfs_dev *sysfs_dev,
			      const char *fnfmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * libibverbs' ioctl() command buffer (rdma-core's cmd_ioctl.h): a block
 * of attributes, hdr.attrs[0] up to next_attr, with room up to last_attr.
 * A helper such as ibv_cmd_query_context() takes the caller's block as a
 * link and sends its attributes along with its own.  The uhw_* and
 * fallback fields serve the legacy write() path, which a driver block
 * does not use: "no index" is 0xff.
 */
struct ibv_command_buffer {
	struct ibv_command_buffer *next;
	struct ib_uverbs_attr *next_attr;
	struct ib_uverbs_attr *last_attr;
	uint8_t uhw_in_idx;
	uint8_t uhw_out_idx;
	uint8_t uhw_in_headroom_dwords;
	uint8_t uhw_out_headroom_dwords;
	uint8_t buffer_error:1;
	uint8_t fallback_require_ex:1;
	uint8_t fallback_ioctl_only:1;
	struct ib_uverbs_ioctl_hdr hdr;	/* attrs[] follow */
};
#define SROCE_CMDB_NO_UHW	0xff

/* The ibv_cmd_*() helpers return 0 or a positive errno value. */
int ibv_cmd_get_context(struct verbs_context *context,
			struct ibv_get_context *cmd, size_t cmd_size,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
/* *resp_size: in, the size of resp; out, how much the kernel filled. */
int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size);
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct ibv_query_port *cmd, size_t cmd_size);
int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);
/* UVERBS_METHOD_QUERY_CONTEXT, with @driver's attributes (may be NULL). */
int ibv_cmd_query_context(struct ibv_context *context,
			  struct ibv_command_buffer *driver);
/* Fills keys, length, handle, context, pd; type IBV_MR_TYPE_IMPORTED_MR. */
int ibv_cmd_query_mr(struct ibv_pd *pd, struct verbs_mr *vmr,
		     uint32_t mr_handle);
/*
 * Device memory through ib_core's DM methods; @link: a driver block, or
 * NULL.  ibv_cmd_reg_dm_mr() refuses (EINVAL) an MR that is not
 * IBV_ACCESS_ZERO_BASED and fills the MR's keys, handle, length, pd and
 * context, with addr NULL.
 */
int ibv_cmd_alloc_dm(struct ibv_context *ctx,
		     const struct ibv_alloc_dm_attr *dm_attr,
		     struct verbs_dm *dm, struct ibv_command_buffer *link);
int ibv_cmd_free_dm(struct verbs_dm *dm);
int ibv_cmd_reg_dm_mr(struct ibv_pd *pd, struct verbs_dm *dm,
		      uint64_t offset, size_t length, unsigned int access,
		      struct verbs_mr *vmr, struct ibv_command_buffer *link);
int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr,
		   struct ibv_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr,
		     size_t length, uint64_t hca_va, int access,
		     struct ibv_pd *pd, struct ibv_rereg_mr *cmd,
		     size_t cmd_sz, struct ib_uverbs_rereg_mr_resp *resp,
		     size_t resp_sz);
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);
/* UVERBS_METHOD_ADVISE_MR: the SGE list as given. */
int ibv_cmd_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		      uint32_t flags, struct ibv_sge *sg_list,
		      uint32_t num_sge);

/*
 * Completion queues.  A provider's create_cq and create_cq_ex must NOT run
 * verbs_init_cq() (IBVERBS_PRIVATE_34 exports it for direct-verbs paths):
 * libibverbs 44 runs it after either op returns, ibv_create_cq() in
 * verbs.c and ibv_create_cq_ex() through the wrapper verbs_set_ops()
 * stores in verbs_context.create_cq_ex (it also refuses wc_flags above
 * 0xfff with EOPNOTSUPP first).  A second call would take a second
 * reference on the completion channel, never dropped.
 */
int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, struct ibv_create_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp,
		      size_t resp_size);
/*
 * Fails with EOPNOTSUPP on comp_mask bits beyond FLAGS | PD; asks the
 * kernel for completion timestamps when wc_flags want them.  cmd_flags:
 * rdma-core's enum create_cq_cmd_flags (0 here).
 */
int ibv_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size, uint32_t cmd_flags);
int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
/* Sets cq->cqe from the response. */
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_resize_cq_resp *resp,
		      size_t resp_size);
/* Waits for the CQ's events to be acknowledged, as ibv_destroy_cq() says. */
int ibv_cmd_destroy_cq(struct ibv_cq *cq);

/*
 * Queue pairs.  ibv_cmd_create_qp_ex() accepts comp_mask PD | XRCD |
 * SEND_OPS_FLAGS (EINVAL otherwise), fills the ibv_qp (context, pd, CQs,
 * handle, qp_num, state RESET, mutex/cond) and writes the kernel's actual
 * caps back into attr_ex->cap.
 */
int ibv_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr_ex,
			 struct ibv_create_qp *cmd, size_t cmd_size,
			 struct ib_uverbs_create_qp_resp *resp,
			 size_t resp_size);
/* Masks beyond IBV_QP_DEST_QPN fail with EOPNOTSUPP (they need _ex). */
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_modify_qp *cmd,
		      size_t cmd_size);
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     struct ibv_query_qp *cmd, size_t cmd_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);

/*
 * Flow steering (IB_USER_VERBS_EX_CMD_CREATE_FLOW): libibverbs turns the
 * ibv_flow_attr and its specs into the kernel's layout; the provider
 * allocates the ibv_flow, which the helper fills in.
 */
int ibv_cmd_create_flow(struct ibv_qp *qp, struct ibv_flow *flow_id,
			struct ibv_flow_attr *flow_attr, void *ucmd,
			size_t ucmd_size);
int ibv_cmd_destroy_flow(struct ibv_flow *flow_id);
/* UD multicast: the ATTACH_MCAST and DETACH_MCAST commands. */
int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
/*
 * The write() command IB_USER_VERBS_CMD_POST_SEND.  With wr == NULL it
 * sends wr_count = sge_count = 0, which libsroce uses as its doorbell;
 * on failure *bad_wr is the first WR the kernel refused (NULL here).
 */
int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr);
/* The same for IB_USER_VERBS_CMD_POST_RECV. */
int ibv_cmd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);

/* --------------------------------------------------------------------- */
/* Layout checks                                                          */
/* --------------------------------------------------------------------- */

#define SROCE_ABI_ASSERT(cond) _Static_assert(cond, #cond)

/* Public facts from <infiniband/verbs.h>: ibv_context sits last. */
SROCE_ABI_ASSERT(offsetof(struct verbs_context, context) +
		 sizeof(struct ibv_context) == sizeof(struct verbs_context));
SROCE_ABI_ASSERT(offsetof(struct verbs_device, device) == 0);

/* Pointer-only tables: true on every LP64 and ILP32 target. */
SROCE_ABI_ASSERT(sizeof(struct verbs_context_ops) ==
		 SROCE_VERBS_CONTEXT_OPS_SLOTS * sizeof(void (*)(void)));

/* Command sizes that librxe-rdmav34.so (rdma-core 44) passes. */
SROCE_ABI_ASSERT(sizeof(struct ibv_get_context) == 16);
SROCE_ABI_ASSERT(sizeof(struct ibv_query_port) == 24);
SROCE_ABI_ASSERT(sizeof(struct ibv_alloc_pd) == 16);
SROCE_ABI_ASSERT(sizeof(struct ibv_reg_mr) == 48);
SROCE_ABI_ASSERT(sizeof(struct ib_uverbs_get_context_resp) == 8);
SROCE_ABI_ASSERT(sizeof(struct ib_uverbs_alloc_pd_resp) == 4);
SROCE_ABI_ASSERT(sizeof(struct ib_uverbs_reg_mr_resp) == 12);
SROCE_ABI_ASSERT(sizeof(struct ib_uverbs_ex_query_device_resp) == 304);

/*
 * Command sizes rdma-core 44 builds its own buffers with, read from the
 * immediates in libibverbs.so.1 (ibv_cmd_create_cq_ex: 0x38/0x10,
 * ibv_cmd_create_qp_ex: 0x40/0x20) and passed by libsiw/librxe
 * (create_cq 0x28, resize_cq 0x18, modify_qp 0x78, query_qp 0x18).
 */
SROCE_ABI_ASSERT(sizeof(struct ibv_create_cq) == 40);
SROCE_ABI_ASSERT(sizeof(struct ibv_create_cq_ex) == 56);
SROCE_ABI_ASSERT(sizeof(struct ibv_resize_cq) == 24);
SROCE_ABI_ASSERT(sizeof(struct ibv_create_qp) == 64);
SROCE_ABI_ASSERT(sizeof(struct ibv_modify_qp) == 120);
SROCE_ABI_ASSERT(sizeof(struct ibv_query_qp) == 24);
SROCE_ABI_ASSERT(sizeof(struct ib_uverbs_create_cq_resp) == 8);
SROCE_ABI_ASSERT(sizeof(struct ib_uverbs_ex_create_cq_resp) == 16);
SROCE_ABI_ASSERT(sizeof(struct ib_uverbs_resize_cq_resp) == 8);
SROCE_ABI_ASSERT(sizeof(struct ib_uverbs_create_qp_resp) == 32);

#if defined(__x86_64__)
/*
 * Offsets used by the amd64 libibverbs.so.1 44.0-2 (read from its
 * try_driver()/netlink code, verbs_set_ops(), ibv_cmd_reg_mr() and
 * verbs_uninit_context()) and by librxe-rdmav34.so's static tables.
 */
SROCE_ABI_ASSERT(sizeof(struct verbs_match_ent) == 24);
SROCE_ABI_ASSERT(offsetof(struct verbs_match_ent, u) == 8);
SROCE_ABI_ASSERT(offsetof(struct verbs_match_ent, vendor) == 16);
SROCE_ABI_ASSERT(offsetof(struct verbs_match_ent, kind) == 20);

SROCE_ABI_ASSERT(offsetof(struct verbs_sysfs_dev, match) == 0x18);
SROCE_ABI_ASSERT(offsetof(struct verbs_sysfs_dev, flags) == 0x20);
SROCE_ABI_ASSERT(offsetof(struct verbs_sysfs_dev, sysfs_name) == 0x24);
SROCE_ABI_ASSERT(offsetof(struct verbs_sysfs_dev, ibdev_name) == 0x70);
SROCE_ABI_ASSERT(offsetof(struct verbs_sysfs_dev, ibdev_path) == 0xb0);
SROCE_ABI_ASSERT(offsetof(struct verbs_sysfs_dev, modalias) == 0x1b0);
SROCE_ABI_ASSERT(offsetof(struct verbs_sysfs_dev, node_guid) == 0x3b0);
SROCE_ABI_ASSERT(offsetof(struct verbs_sysfs_dev, driver_id) == 0x3b8);
SROCE_ABI_ASSERT(offsetof(struct verbs_sysfs_dev, node_type) == 0x3bc);
SROCE_ABI_ASSERT(offsetof(struct verbs_sysfs_dev, ibdev_idx) == 0x3c0);
SROCE_ABI_ASSERT(offsetof(struct verbs_sysfs_dev, num_ports) == 0x3c4);
SROCE_ABI_ASSERT(offsetof(struct verbs_sysfs_dev, abi_ver) == 0x3c8);
SROCE_ABI_ASSERT(offsetof(struct verbs_sysfs_dev, time_created) == 0x3d0);
SROCE_ABI_ASSERT(sizeof(struct verbs_sysfs_dev) == 0x3e0);

SROCE_ABI_ASSERT(offsetof(struct verbs_device_ops, match_min_abi_version) == 8);
SROCE_ABI_ASSERT(offsetof(struct verbs_device_ops, match_max_abi_version) == 12);
SROCE_ABI_ASSERT(offsetof(struct verbs_device_ops, match_table) == 0x10);
SROCE_ABI_ASSERT(offsetof(struct verbs_device_ops, match_device) == 0x20);
SROCE_ABI_ASSERT(offsetof(struct verbs_device_ops, alloc_context) == 0x28);
SROCE_ABI_ASSERT(offsetof(struct verbs_device_ops, import_context) == 0x30);
SROCE_ABI_ASSERT(offsetof(struct verbs_device_ops, alloc_device) == 0x38);
SROCE_ABI_ASSERT(offsetof(struct verbs_device_ops, uninit_device) == 0x40);
SROCE_ABI_ASSERT(sizeof(struct verbs_device_ops) == 0x48);

SROCE_ABI_ASSERT(offsetof(struct verbs_device, ops) == 0x298);
SROCE_ABI_ASSERT(offsetof(struct verbs_device, refcount) == 0x2a0);
SROCE_ABI_ASSERT(offsetof(struct verbs_device, sysfs) == 0x2b8);
SROCE_ABI_ASSERT(offsetof(struct verbs_device, core_support) == 0x2c0);

SROCE_ABI_ASSERT(offsetof(struct ibv_command_buffer, uhw_in_idx) == 0x18);
SROCE_ABI_ASSERT(offsetof(struct ibv_command_buffer, hdr) == 0x20);
SROCE_ABI_ASSERT(sizeof(struct ibv_command_buffer) == 0x38);

SROCE_ABI_ASSERT(offsetof(struct verbs_mr, mr_type) == 0x30);
SROCE_ABI_ASSERT(offsetof(struct verbs_mr, access) == 0x34);
SROCE_ABI_ASSERT(offsetof(struct verbs_dm, handle) == 0x20);

/* ibv_qp_to_qp_ex() is "testb $0x2, 0x160(%rdi)". */
SROCE_ABI_ASSERT(offsetof(struct verbs_qp, comp_mask) == 0x160);
SROCE_ABI_ASSERT(sizeof(struct verbs_qp) == 0x170);

/*
 * verbs_set_ops() reads slot N at N * 8.  Spot-check both ends, the ops we
 * implement, and import_dm / query_qp_data_in_order / unimport_dm, which
 * older driver.h versions lack (a table copied from one is 3 slots short).
 */
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, alloc_pd) == 0x28);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, dealloc_pd) == 0xd0);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, dereg_mr) == 0xe0);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, free_context) == 0x138);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, import_dm) == 0x150);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, query_device_ex) == 0x1d0);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, query_port) == 0x1e0);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, query_qp_data_in_order) == 0x1f0);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, reg_dmabuf_mr) == 0x218);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, reg_mr) == 0x220);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, set_ece) == 0x240);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, unimport_dm) == 0x248);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, unimport_pd) == 0x258);
/* The CQ and QP verbs implemented since. */
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, create_cq) == 0x78);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, create_cq_ex) == 0x80);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, create_qp) == 0x98);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, create_qp_ex) == 0xa0);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, destroy_cq) == 0xf8);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, destroy_qp) == 0x110);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, modify_qp) == 0x178);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, poll_cq) == 0x1a8);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, post_recv) == 0x1b0);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, post_send) == 0x1b8);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, query_qp) == 0x1e8);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, req_notify_cq) == 0x228);
SROCE_ABI_ASSERT(offsetof(struct verbs_context_ops, resize_cq) == 0x238);
#endif /* __x86_64__ */

#endif /* SROCE_VERBS_PRIVATE_H */
