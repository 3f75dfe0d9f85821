// SPDX-License-Identifier: Apache-2.0
// The layout of the libibverbs structs that LibIbverbs declares, from the real <infiniband/verbs.h>: one
// "struct.member=offset" line per member, "struct=sizeof" per struct it allocates (ibv_context only has the
// members read from it) and "enum.NAME=value" for the enum ibv_event_type values AsyncEventType names. LibIbverbsLayoutTest compiles it with
// gcc and compares every jnr Struct member against it:
//   gcc -o ibv_layout ibv_layout.c && ./ibv_layout
// With -DLAYOUT_AS_DATA it defines one constant per line instead (layout_<struct>__<member>), so that a cross
// compiler's assembly shows another architecture's layout without running anything:
//   aarch64-linux-gnu-gcc -S -DLAYOUT_AS_DATA -idirafter /usr/include -o - ibv_layout.c
#include <stddef.h>
#include <stdio.h>
#include <infiniband/verbs.h>

#define LAYOUT(OFF, SIZE, ENUM) \
    SIZE(ibv_device_attr) \
    OFF(ibv_device_attr, fw_ver) OFF(ibv_device_attr, node_guid) OFF(ibv_device_attr, sys_image_guid) \
    OFF(ibv_device_attr, max_mr_size) OFF(ibv_device_attr, page_size_cap) OFF(ibv_device_attr, vendor_id) \
    OFF(ibv_device_attr, vendor_part_id) OFF(ibv_device_attr, hw_ver) OFF(ibv_device_attr, max_qp) \
    OFF(ibv_device_attr, max_qp_wr) OFF(ibv_device_attr, device_cap_flags) OFF(ibv_device_attr, max_sge) \
    OFF(ibv_device_attr, max_sge_rd) OFF(ibv_device_attr, max_cq) OFF(ibv_device_attr, max_cqe) \
    OFF(ibv_device_attr, max_mr) OFF(ibv_device_attr, max_pd) OFF(ibv_device_attr, max_qp_rd_atom) \
    OFF(ibv_device_attr, max_ee_rd_atom) OFF(ibv_device_attr, max_res_rd_atom) \
    OFF(ibv_device_attr, max_qp_init_rd_atom) OFF(ibv_device_attr, max_ee_init_rd_atom) \
    OFF(ibv_device_attr, atomic_cap) OFF(ibv_device_attr, max_ee) OFF(ibv_device_attr, max_rdd) \
    OFF(ibv_device_attr, max_mw) OFF(ibv_device_attr, max_raw_ipv6_qp) OFF(ibv_device_attr, max_raw_ethy_qp) \
    OFF(ibv_device_attr, max_mcast_grp) OFF(ibv_device_attr, max_mcast_qp_attach) \
    OFF(ibv_device_attr, max_total_mcast_qp_attach) OFF(ibv_device_attr, max_ah) OFF(ibv_device_attr, max_fmr) \
    OFF(ibv_device_attr, max_map_per_fmr) OFF(ibv_device_attr, max_srq) OFF(ibv_device_attr, max_srq_wr) \
    OFF(ibv_device_attr, max_srq_sge) OFF(ibv_device_attr, max_pkeys) OFF(ibv_device_attr, local_ca_ack_delay) \
    OFF(ibv_device_attr, phys_port_cnt) \
    SIZE(ibv_port_attr) \
    OFF(ibv_port_attr, state) OFF(ibv_port_attr, max_mtu) OFF(ibv_port_attr, active_mtu) \
    OFF(ibv_port_attr, gid_tbl_len) OFF(ibv_port_attr, port_cap_flags) OFF(ibv_port_attr, max_msg_sz) \
    OFF(ibv_port_attr, bad_pkey_cntr) OFF(ibv_port_attr, qkey_viol_cntr) OFF(ibv_port_attr, pkey_tbl_len) \
    OFF(ibv_port_attr, lid) OFF(ibv_port_attr, sm_lid) OFF(ibv_port_attr, lmc) OFF(ibv_port_attr, max_vl_num) \
    OFF(ibv_port_attr, sm_sl) OFF(ibv_port_attr, subnet_timeout) OFF(ibv_port_attr, init_type_reply) \
    OFF(ibv_port_attr, active_width) OFF(ibv_port_attr, active_speed) OFF(ibv_port_attr, phys_state) \
    OFF(ibv_port_attr, link_layer) OFF(ibv_port_attr, flags) OFF(ibv_port_attr, port_cap_flags2) \
    SIZE(ibv_gid_entry) \
    OFF(ibv_gid_entry, gid) OFF(ibv_gid_entry, gid_index) OFF(ibv_gid_entry, port_num) \
    OFF(ibv_gid_entry, gid_type) OFF(ibv_gid_entry, ndev_ifindex) \
    SIZE(ibv_async_event) \
    OFF(ibv_async_event, element) OFF(ibv_async_event, event_type) \
    OFF(ibv_context, device) OFF(ibv_context, ops) OFF(ibv_context, cmd_fd) OFF(ibv_context, async_fd) \
    OFF(ibv_context, num_comp_vectors) \
    ENUM(IBV_EVENT_CQ_ERR) ENUM(IBV_EVENT_DEVICE_FATAL) ENUM(IBV_EVENT_PORT_ACTIVE) ENUM(IBV_EVENT_PORT_ERR) \
    ENUM(IBV_EVENT_LID_CHANGE) ENUM(IBV_EVENT_CLIENT_REREGISTER) ENUM(IBV_EVENT_GID_CHANGE) \
    ENUM(IBV_EVENT_WQ_FATAL)

#ifdef LAYOUT_AS_DATA
#define DATA_OFF(s, m) const unsigned long layout_##s##__##m = offsetof(struct s, m);
#define DATA_SIZE(s) const unsigned long layout_##s = sizeof(struct s);
#define DATA_ENUM(e) const unsigned long layout_enum__##e = e;
LAYOUT(DATA_OFF, DATA_SIZE, DATA_ENUM)
#else
#define PRINT_OFF(s, m) printf("%s.%s=%zu\n", #s, #m, offsetof(struct s, m));
#define PRINT_SIZE(s) printf("%s=%zu\n", #s, sizeof(struct s));
#define PRINT_ENUM(e) printf("enum.%s=%d\n", #e, (int) e);
int main(void) {
    LAYOUT(PRINT_OFF, PRINT_SIZE, PRINT_ENUM)
    return 0;
}
#endif
