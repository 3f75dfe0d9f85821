/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Clean-room Freeflow test client, written from ../shared/reference/freeflow.md §2 (not from the Freeflow sources):
 * the real C layouts (checked with sizeof/offsetof), a new Unix connection per control verb, the 2 MiB shm
 * mailboxes, MR files mapped with MAP_FIXED over the application's own buffer, and the completion channel fd
 * received over SCM_RIGHTS.
 *
 * Environment: FFR_SOCKET = control socket path (the genuine client uses /freeflow/$FFR_NAME), FFR_SHM = directory
 * of the router's shm files (the genuine client uses shm_open, i.e. /dev/shm), FFR_ID = client id label.
 *
 * Modes: layouts | golden | selftest | hold | handover (selftest with a pause after setup) | probe <file> | bench
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct hdr { int32_t client_id; int32_t func; uint32_t body_size; };
struct sge { uint64_t addr; uint32_t length; uint32_t lkey; };
struct send_wr {
	uint64_t wr_id; uint64_t next; uint64_t sg_list; int32_t num_sge; int32_t opcode; uint32_t send_flags;
	uint32_t imm_data;
	union { struct { uint64_t remote_addr; uint32_t rkey; } rdma;
		struct { uint64_t remote_addr; uint64_t compare_add; uint64_t swap; uint32_t rkey; } atomic; } wr;
	char rest[128 - 72];
};
struct recv_wr { uint64_t wr_id; uint64_t next; uint64_t sg_list; int32_t num_sge; };
struct post_hdr { uint32_t command; uint16_t in_words; uint16_t out_words; uint64_t response;
	uint32_t qp_handle; uint32_t wr_count; uint32_t sge_count; uint32_t wqe_size; };
struct wc { uint64_t wr_id; int32_t status; int32_t opcode; uint32_t vendor_err; uint32_t byte_len;
	uint32_t imm_data; uint32_t qp_num; uint32_t src_qp; int32_t wc_flags; uint16_t pkey_index; uint16_t slid;
	uint8_t sl; uint8_t dlid_path_bits; };
struct qp_cap { uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge, max_inline_data; };
struct create_qp_req { uint32_t pd_handle; int32_t qp_type; int32_t sq_sig_all; uint32_t send_cq_handle;
	uint32_t recv_cq_handle; uint32_t srq_handle; struct qp_cap cap; };
struct create_qp_rsp { uint32_t qp_num; uint32_t handle; struct qp_cap cap; char shm_name[100]; };
struct create_cq_req { int32_t channel_fd; int32_t comp_vector; int32_t cqe; };
struct create_cq_rsp { uint32_t cqe; uint32_t handle; char shm_name[100]; };
struct reg_mr_req { uint32_t pd_handle; uint32_t mem_size; uint32_t access_flags; char shm_name[100]; };
struct reg_mr_rsp { uint32_t handle; uint32_t lkey; uint32_t rkey; char shm_name[100]; };
struct reg_mr_mapping_req { uint32_t key; uint64_t mr_ptr; uint64_t shm_ptr; };
/* union ibv_gid holds two u64s: the GID (and so ibv_qp_attr) is 8-aligned, hence the pad after the handle. */
struct global_route { union { uint8_t raw[16]; struct { uint64_t subnet_prefix, interface_id; } global; } dgid; uint32_t flow_label; uint8_t sgid_index; uint8_t hop_limit; uint8_t traffic_class; };
struct ah_attr { struct global_route grh; uint16_t dlid; uint8_t sl; uint8_t src_path_bits; uint8_t static_rate;
	uint8_t is_global; uint8_t port_num; };
struct qp_attr { int32_t qp_state, cur_qp_state, path_mtu, path_mig_state; uint32_t qkey, rq_psn, sq_psn, dest_qp_num;
	int32_t qp_access_flags; struct qp_cap cap; struct ah_attr ah_attr, alt_ah_attr; uint16_t pkey_index,
	alt_pkey_index; uint8_t en_sqd_async_notify, sq_draining, max_rd_atomic, max_dest_rd_atomic, min_rnr_timer,
	port_num, timeout, retry_cnt, rnr_retry, alt_port_num, alt_timeout; };
struct modify_qp_req { uint32_t handle; struct qp_attr attr; uint32_t attr_mask; };
struct modify_qp_rsp { int32_t ret; uint32_t handle; };
struct poll_cq_req { uint32_t cq_handle; int32_t ne; };
struct post_rsp { int32_t ret_errno; uint32_t bad_wr; };
struct notify_req { uint32_t cq_handle; int32_t solicited_only; };
struct cq_event_rsp { uint32_t cq_handle; uint32_t comp_events_completed; uint32_t async_events_completed; };
struct mailbox { volatile int32_t state; char req[1048576]; char rsp[1048576]; } __attribute__((packed));

_Static_assert(sizeof(struct hdr) == 12, "header");
_Static_assert(sizeof(struct send_wr) == 128, "send_wr");
_Static_assert(sizeof(struct recv_wr) == 32, "recv_wr");
_Static_assert(sizeof(struct post_hdr) == 32, "post header");
_Static_assert(sizeof(struct wc) == 48, "wc");
_Static_assert(sizeof(struct create_qp_req) == 44 && sizeof(struct create_qp_rsp) == 128, "create_qp");
_Static_assert(sizeof(struct create_cq_req) == 12 && sizeof(struct create_cq_rsp) == 108, "create_cq");
_Static_assert(sizeof(struct reg_mr_req) == 112 && sizeof(struct reg_mr_rsp) == 112, "reg_mr");
_Static_assert(sizeof(struct reg_mr_mapping_req) == 24, "reg_mr_mapping");
_Static_assert(sizeof(struct qp_attr) == 136 && sizeof(struct modify_qp_req) == 152, "modify_qp");
_Static_assert(sizeof(struct mailbox) == 2097156, "mailbox");

enum { GET_CONTEXT = 1, QUERY_DEV = 2, QUERY_PORT = 4, ALLOC_PD = 5, CREATE_QP = 7, MODIFY_QP = 8, DESTROY_QP = 10,
	CREATE_CQ = 15, DESTROY_CQ = 16, POLL_CQ = 17, GET_CQ_EVENT = 18, ACK_CQ_EVENT = 19, REQ_NOTIFY_CQ = 20,
	REG_MR = 21, REG_MR_MAPPING = 22, DEREG_MR = 23, POST_SEND = 25, POST_RECV = 26, CREATE_COMP_CHANNEL = 27 };

static const char *sock_path;
static const char *shm_dir;
static int client_id;

static void die(const char *what) { fprintf(stderr, "ffclient: %s: %s\n", what, strerror(errno)); exit(2); }
static void fail(const char *what) { fprintf(stderr, "ffclient: FAIL %s\n", what); exit(1); }

static int connect_router(void)
{
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	strncpy(a.sun_path, sock_path, sizeof a.sun_path - 1);
	if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) < 0)
		die("connect");
	return s;
}

static void xwrite(int s, const void *p, size_t n)
{
	while (n) { ssize_t w = write(s, p, n); if (w <= 0) die("write"); p = (const char *)p + w; n -= w; }
}

static void xread(int s, void *p, size_t n)
{
	while (n) { ssize_t r = read(s, p, n); if (r <= 0) die("read (router closed mid-answer)"); p = (char *)p + r; n -= r; }
}

static void send_req(int s, int func, const void *body, uint32_t size)
{
	struct hdr h = { client_id, func, size };
	xwrite(s, &h, sizeof h);
	if (size)
		xwrite(s, body, size);
}

/* One verb, one connection, like the genuine libibverbs shim. */
static void call(int func, const void *body, uint32_t size, void *rsp, size_t rsp_size)
{
	int s = connect_router();
	send_req(s, func, body, size);
	xread(s, rsp, rsp_size);
	close(s);
}

static void *map_shm(const char *name, size_t size, void *fixed)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", shm_dir, name);
	int fd = open(path, O_RDWR);
	if (fd < 0)
		die(path);
	void *p = mmap(fixed, size, PROT_READ | PROT_WRITE, MAP_SHARED | (fixed ? MAP_FIXED : 0), fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

struct mr { uint32_t handle, lkey, rkey; char *addr; size_t len; char name[100]; };
struct cq { uint32_t handle; struct mailbox *mb; };
struct qp { uint32_t handle, qpn; struct mailbox *mb; };

static uint32_t alloc_pd(void) { uint32_t pd; call(ALLOC_PD, NULL, 0, &pd, 4); return pd; }

static struct cq create_cq(int channel, int depth)
{
	struct create_cq_req q = { channel, 0, depth };
	struct create_cq_rsp r;
	call(CREATE_CQ, &q, sizeof q, &r, sizeof r);
	if (!r.handle)
		fail("create_cq");
	struct cq c = { r.handle, map_shm(r.shm_name, sizeof(struct mailbox), NULL) };
	return c;
}

static struct qp create_qp(uint32_t pd, struct cq *scq, struct cq *rcq)
{
	struct create_qp_req q = { pd, 2, 0, scq->handle, rcq->handle, 0, { 256, 256, 4, 4, 0 } };
	struct create_qp_rsp r;
	call(CREATE_QP, &q, sizeof q, &r, sizeof r);
	if (!r.handle)
		fail("create_qp");
	struct qp p = { r.handle, r.qp_num, map_shm(r.shm_name, sizeof(struct mailbox), NULL) };
	return p;
}

/* REG_MR, then the shm file mapped MAP_FIXED over the (page-aligned) application buffer, contents preserved. */
static struct mr reg_mr(uint32_t pd, char *buf, size_t len, int access)
{
	struct reg_mr_req q = { pd, (uint32_t)len, access, "" };
	struct reg_mr_rsp r;
	call(REG_MR, &q, sizeof q, &r, sizeof r);
	if (!r.handle)
		fail("reg_mr");
	char *keep = malloc(len);
	memcpy(keep, buf, len);
	if (map_shm(r.shm_name, len, buf) != buf)
		fail("MAP_FIXED did not land on the application buffer");
	memcpy(buf, keep, len);
	free(keep);
	struct reg_mr_mapping_req m = { r.lkey, (uint64_t)(uintptr_t)buf, (uint64_t)(uintptr_t)buf };
	int32_t ret;
	call(REG_MR_MAPPING, &m, sizeof m, &ret, 4);
	if (ret)
		fail("reg_mr_mapping");
	struct mr out = { r.handle, r.lkey, r.rkey, buf, len };
	memcpy(out.name, r.shm_name, 100);
	return out;
}

static int modify(struct qp *qp, int state, uint32_t mask, uint32_t dest, int rnr_retry)
{
	struct modify_qp_req q;
	memset(&q, 0, sizeof q);
	q.handle = qp->handle;
	q.attr.qp_state = state;
	q.attr.path_mtu = 5;
	q.attr.dest_qp_num = dest;
	q.attr.qp_access_flags = 7;
	q.attr.port_num = 1;
	q.attr.min_rnr_timer = 1;
	q.attr.timeout = 14;
	q.attr.retry_cnt = 7;
	q.attr.rnr_retry = rnr_retry;
	q.attr_mask = mask;
	struct modify_qp_rsp r;
	call(MODIFY_QP, &q, sizeof q, &r, sizeof r);
	return r.ret;
}

static void connect_qp(struct qp *qp, uint32_t dest)
{
	if (modify(qp, 1, 1 | 8 | 16 | 32, 0, 0) || modify(qp, 2, 1 | 128 | 256 | 1048576 | 4096 | 131072 | 32768, dest, 0)
	    || modify(qp, 3, 1 | 65536 | 512 | 1024 | 2048 | 8192, 0, 7))
		fail("modify_qp");
}

/* The fast path: header + body in req, state REQ_DONE after a barrier, spin until RSP_DONE, copy, back to IDLE. */
static int round_trip(struct mailbox *mb, int func, uint32_t size, void *rsp, int rsp_max)
{
	struct hdr *h = (struct hdr *)mb->req;
	h->client_id = client_id;
	h->func = func;
	h->body_size = size;
	__atomic_store_n(&mb->state, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&mb->state, __ATOMIC_ACQUIRE) != 2)
		__builtin_ia32_pause();
	int n;
	memcpy(&n, mb->rsp, 4);
	if (n > rsp_max)
		n = rsp_max;
	memcpy(rsp, mb->rsp + 4, n);
	__atomic_store_n(&mb->state, 0, __ATOMIC_RELEASE);
	return n;
}

static struct post_rsp post_send(struct qp *qp, int opcode, uint64_t id, struct mr *mr, char *addr, uint32_t len,
				 uint64_t raddr, uint32_t rkey, int signaled)
{
	struct post_hdr *ph = (struct post_hdr *)(qp->mb->req + 12);
	struct send_wr *w = (struct send_wr *)(ph + 1);
	struct sge *s = (struct sge *)(w + 1);
	memset(ph, 0xab, sizeof *ph); /* the genuine client leaves the rest of this header unset */
	ph->qp_handle = qp->handle;
	ph->wr_count = 1;
	ph->sge_count = 1;
	memset(w, 0, sizeof *w);
	w->wr_id = id;
	w->next = 0xdeadbeef;
	w->sg_list = (uint64_t)(uintptr_t)s;
	w->num_sge = 1;
	w->opcode = opcode;
	w->send_flags = signaled ? 2 : 0;
	w->imm_data = 0x77;
	w->wr.rdma.remote_addr = raddr;
	w->wr.rdma.rkey = rkey;
	s->addr = addr - mr->addr; /* offset from the MR start, as the genuine client sends it */
	s->length = len;
	s->lkey = mr->lkey;
	struct post_rsp r;
	round_trip(qp->mb, POST_SEND, sizeof *ph + sizeof *w + sizeof *s, &r, sizeof r);
	return r;
}

/*
 * One ibv_post_send of a chain of n WRs (one SGE each), as the genuine client forwards a linked list: one mailbox
 * request holding the header, the n WRs, then the n SGEs in order. Only the last WR is signaled when signal_last.
 */
static struct post_rsp post_send_list(struct qp *qp, int n, int opcode, uint64_t id, struct mr *mr, char *addr,
				      uint32_t len, uint64_t raddr, uint32_t rkey, int signal_last)
{
	struct post_hdr *ph = (struct post_hdr *)(qp->mb->req + 12);
	struct send_wr *w = (struct send_wr *)(ph + 1);
	struct sge *s = (struct sge *)(w + n);
	memset(ph, 0xab, sizeof *ph);
	ph->qp_handle = qp->handle;
	ph->wr_count = n;
	ph->sge_count = n;
	for (int i = 0; i < n; i++) {
		memset(&w[i], 0, sizeof w[i]);
		w[i].wr_id = id + i;
		w[i].next = i + 1 < n ? (uint64_t)(uintptr_t)&w[i + 1] : 0;
		w[i].sg_list = (uint64_t)(uintptr_t)&s[i];
		w[i].num_sge = 1;
		w[i].opcode = opcode;
		w[i].send_flags = signal_last && i == n - 1 ? 2 : 0;
		w[i].wr.rdma.remote_addr = raddr;
		w[i].wr.rdma.rkey = rkey;
		s[i].addr = addr - mr->addr;
		s[i].length = len;
		s[i].lkey = mr->lkey;
	}
	struct post_rsp r;
	round_trip(qp->mb, POST_SEND, sizeof *ph + n * (sizeof *w + sizeof *s), &r, sizeof r);
	return r;
}

static struct post_rsp post_recv(struct qp *qp, uint64_t id, struct mr *mr, char *addr, uint32_t len)
{
	struct post_hdr *ph = (struct post_hdr *)(qp->mb->req + 12);
	struct recv_wr *w = (struct recv_wr *)(ph + 1);
	struct sge *s = (struct sge *)(w + 1);
	ph->qp_handle = qp->handle;
	ph->wr_count = 1;
	ph->sge_count = 1;
	w->wr_id = id;
	w->num_sge = 1;
	s->addr = addr - mr->addr;
	s->length = len;
	s->lkey = mr->lkey;
	struct post_rsp r;
	round_trip(qp->mb, POST_RECV, sizeof *ph + sizeof *w + sizeof *s, &r, sizeof r);
	return r;
}

static int poll_cq(struct cq *cq, struct wc *out, int ne)
{
	struct poll_cq_req *q = (struct poll_cq_req *)(cq->mb->req + 12);
	q->cq_handle = cq->handle;
	q->ne = ne;
	return round_trip(cq->mb, POLL_CQ, sizeof *q, out, ne * (int)sizeof *out) / (int)sizeof(struct wc);
}

static struct wc wait_wc(struct cq *cq)
{
	struct wc w;
	while (poll_cq(cq, &w, 1) == 0)
		;
	return w;
}

/* CREATE_COMP_CHANNEL: the fd arrives first (SCM_RIGHTS, 2-byte payload), then the router's number for it. */
static int create_channel(int *router_fd)
{
	int s = connect_router();
	send_req(s, CREATE_COMP_CHANNEL, NULL, 0);
	char data[2];
	union { struct cmsghdr c; char b[CMSG_SPACE(sizeof(int))]; } ctl;
	struct iovec iov = { data, 2 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b, .msg_controllen = sizeof ctl.b };
	if (recvmsg(s, &m, 0) != 2)
		die("recvmsg fd");
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		fail("no SCM_RIGHTS in the channel answer");
	int fd;
	memcpy(&fd, CMSG_DATA(c), sizeof fd);
	xread(s, router_fd, 4);
	close(s);
	return fd;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void print_layouts(void)
{
#define F(s, f) printf("%s %s %zu\n", #s, #f, offsetof(struct s, f))
#define S(s, n) printf("%s %zu\n", n, sizeof(struct s))
	S(hdr, "header"); F(hdr, client_id); F(hdr, func); F(hdr, body_size);
	S(send_wr, "send_wr"); F(send_wr, wr_id); F(send_wr, num_sge); F(send_wr, opcode); F(send_wr, send_flags);
	F(send_wr, imm_data); printf("send_wr remote_addr %zu\n", offsetof(struct send_wr, wr.rdma.remote_addr));
	printf("send_wr rkey %zu\n", offsetof(struct send_wr, wr.rdma.rkey));
	S(recv_wr, "recv_wr"); F(recv_wr, wr_id); F(recv_wr, num_sge);
	S(post_hdr, "post_hdr"); F(post_hdr, qp_handle); F(post_hdr, wr_count); F(post_hdr, sge_count);
	S(sge, "sge"); F(sge, addr); F(sge, length); F(sge, lkey);
	S(wc, "wc"); F(wc, wr_id); F(wc, status); F(wc, opcode); F(wc, byte_len); F(wc, imm_data); F(wc, qp_num);
	F(wc, src_qp); F(wc, wc_flags);
	S(create_qp_req, "create_qp_req"); F(create_qp_req, srq_handle); F(create_qp_req, send_cq_handle);
	S(create_qp_rsp, "create_qp_rsp"); F(create_qp_rsp, handle); F(create_qp_rsp, shm_name);
	S(create_cq_req, "create_cq_req"); F(create_cq_req, cqe);
	S(create_cq_rsp, "create_cq_rsp"); F(create_cq_rsp, handle); F(create_cq_rsp, shm_name);
	S(reg_mr_req, "reg_mr_req"); F(reg_mr_req, access_flags); F(reg_mr_req, shm_name);
	S(reg_mr_rsp, "reg_mr_rsp"); F(reg_mr_rsp, rkey); F(reg_mr_rsp, shm_name);
	S(reg_mr_mapping_req, "reg_mr_mapping_req"); F(reg_mr_mapping_req, mr_ptr); F(reg_mr_mapping_req, shm_ptr);
	S(modify_qp_req, "modify_qp_req"); F(modify_qp_req, attr_mask);
	printf("modify_qp_req qp_state %zu\n", offsetof(struct modify_qp_req, attr.qp_state));
	printf("modify_qp_req dest_qp_num %zu\n", offsetof(struct modify_qp_req, attr.dest_qp_num));
	printf("modify_qp_req dlid %zu\n", offsetof(struct modify_qp_req, attr.ah_attr.dlid));
	printf("modify_qp_req min_rnr_timer %zu\n", offsetof(struct modify_qp_req, attr.min_rnr_timer));
	printf("modify_qp_req rnr_retry %zu\n", offsetof(struct modify_qp_req, attr.rnr_retry));
	printf("modify_qp_req port_num %zu\n", offsetof(struct modify_qp_req, attr.port_num));
	S(cq_event_rsp, "cq_event_rsp");
	printf("mailbox %zu\nmailbox rsp %zu\n", sizeof(struct mailbox), offsetof(struct mailbox, rsp));
}

struct pair { uint32_t pd; struct cq ca, cb; struct qp a, b; struct mr ma, mb; char *ba, *bb; };

static void setup(struct pair *p, size_t len, int channel)
{
	p->pd = alloc_pd();
	p->ca = create_cq(channel, 4096);
	p->cb = create_cq(-1, 4096);
	p->a = create_qp(p->pd, &p->ca, &p->ca);
	p->b = create_qp(p->pd, &p->cb, &p->cb);
	if (posix_memalign((void **)&p->ba, 4096, len) || posix_memalign((void **)&p->bb, 4096, len))
		die("posix_memalign");
	memset(p->ba, 'a', len);
	memset(p->bb, 'b', len);
	p->ma = reg_mr(p->pd, p->ba, len, 7);
	p->mb = reg_mr(p->pd, p->bb, len, 7);
	connect_qp(&p->a, p->b.qpn);
	connect_qp(&p->b, p->a.qpn);
}

/* Send/recv, RDMA WRITE and READ on p, with a CQ event through the completion channel (fd; router_fd its number). */
static int exercise(struct pair *pp, int fd, int router_fd)
{
	struct pair p = *pp;
	if (p.ba[100] != 'a')
		fail("buffer contents lost by the MAP_FIXED remap");
	struct notify_req nq = { p.ca.handle, 0 };
	int32_t ret;
	call(REQ_NOTIFY_CQ, &nq, sizeof nq, &ret, 4);
	strcpy(p.ba + 4096, "zero-copy send");
	if (post_recv(&p.b, 1, &p.mb, p.bb + 8192, 4096).ret_errno)
		fail("post_recv");
	if (post_send(&p.a, 2, 2, &p.ma, p.ba + 4096, 15, 0, 0, 1).ret_errno)
		fail("post_send");
	struct pollfd pf = { fd, POLLIN, 0 };
	if (poll(&pf, 1, 5000) != 1)
		fail("completion channel fd never became readable");
	int s = connect_router();
	send_req(s, GET_CQ_EVENT, &router_fd, 4);
	struct cq_event_rsp ev;
	xread(s, &ev, sizeof ev);
	close(s);
	if (ev.cq_handle != p.ca.handle)
		fail("GET_CQ_EVENT named another CQ");
	struct wc w = wait_wc(&p.ca);
	if (w.status || w.opcode != 0 || w.wr_id != 2)
		fail("send completion");
	w = wait_wc(&p.cb);
	if (w.status || w.opcode != 128 || w.byte_len != 15 || w.src_qp != p.a.qpn)
		fail("recv completion");
	if (strcmp(p.bb + 8192, "zero-copy send"))
		fail("data not in the receiver's application buffer");
	/* RDMA WRITE to the peer's application address (remote addresses are app VAs, translated by the router). */
	strcpy(p.ba, "written");
	post_send(&p.a, 0, 3, &p.ma, p.ba, 8, (uint64_t)(uintptr_t)(p.bb + 500), p.mb.rkey, 1);
	w = wait_wc(&p.ca);
	if (w.status || strcmp(p.bb + 500, "written"))
		fail("RDMA WRITE");
	post_send(&p.a, 4, 4, &p.ma, p.ba + 9000, 8, (uint64_t)(uintptr_t)(p.bb + 500), p.mb.rkey, 1);
	w = wait_wc(&p.ca);
	if (w.status || w.opcode != 2 || strcmp(p.ba + 9000, "written"))
		fail("RDMA READ");
	close(fd);
	printf("OK qpn=%u/%u\n", p.a.qpn, p.b.qpn);
	return 0;
}

static int selftest(void)
{
	int router_fd;
	int fd = create_channel(&router_fd);
	struct pair p;
	setup(&p, 1 << 20, router_fd);
	return exercise(&p, fd, router_fd);
}

/*
 * Sets up its objects, says READY and waits for a line on stdin (the test hands the router's socket to a
 * successor meanwhile), then goes on with them: each verb opens a new connection, as the genuine client's do,
 * and names handles only the router it started on knows. A verb refused for an unknown handle fails at once.
 */
static int across_handover(void)
{
	int router_fd;
	int fd = create_channel(&router_fd);
	struct pair p;
	setup(&p, 1 << 20, router_fd);
	printf("READY\n");
	fflush(stdout);
	char line[16];
	if (!fgets(line, sizeof line, stdin))
		fail("stdin closed before the go");
	char *more;
	if (posix_memalign((void **)&more, 4096, 4096))
		die("posix_memalign");
	reg_mr(p.pd, more, 4096, 7);
	return exercise(&p, fd, router_fd);
}

/* Sets up objects, prints them, and waits to be killed: the router must reclaim everything. */
static int hold(void)
{
	struct pair p;
	setup(&p, 1 << 16, -1);
	post_recv(&p.b, 1, &p.mb, p.bb, 64);
	printf("READY %u %u %s\n", p.mb.handle, p.mb.rkey, p.mb.name);
	fflush(stdout);
	for (;;) {
		/* Mid-operation when killed: spinning on mailbox round trips. */
		struct wc w;
		poll_cq(&p.ca, &w, 1);
	}
	return 0;
}

static int probe(const char *file)
{
	int fd = open(file, O_RDWR);
	printf("%s\n", fd < 0 ? strerror(errno) : "opened");
	return fd < 0 ? 1 : 0;
}

/* Best of ROUNDS (FFR_ROUNDS, default 3) for every figure: the machine is shared, the best run shows what the
 * router can do; memcpy is measured in the same rounds, interleaved with the router runs. */
static int rounds(void)
{
	const char *r = getenv("FFR_ROUNDS");
	int n = r ? atoi(r) : 3;
	return n > 0 ? n : 3;
}

/* iters messages of sz bytes, at most depth outstanding; op 0 = SEND (receives re-posted as they complete), 1 = WRITE. */
static double bw_run(struct pair *p, int op, size_t sz, int iters, size_t max)
{
	static int primed;
	int depth = 64, posted = 0, done = 0;
	struct wc w[64];
	if (op == 0 && !primed++) /* every run re-posts as many receives as it consumes */
		for (int i = 0; i < depth + 8; i++)
			post_recv(&p->b, i, &p->mb, p->bb, (uint32_t)max);
	double t0 = now_s();
	while (done < iters) {
		while (posted < iters && posted - done < depth) {
			if (post_send(&p->a, op == 0 ? 2 : 0, posted, &p->ma, p->ba, (uint32_t)sz,
				      (uint64_t)(uintptr_t)p->bb, p->mb.rkey, 1).ret_errno)
				break;
			posted++;
		}
		int n = poll_cq(&p->ca, w, 64);
		for (int i = 0; i < n; i++)
			if (w[i].status) {
				fprintf(stderr, "ffclient: completion status %d opcode %d\n", w[i].status, w[i].opcode);
				fail("bench completion error");
			}
		done += n;
		if (op == 0) {
			int m = poll_cq(&p->cb, w, 64);
			for (int i = 0; i < m; i++)
				post_recv(&p->b, 0, &p->mb, p->bb, (uint32_t)max);
		}
	}
	double el = now_s() - t0;
	if (op == 0) {
		int m;
		do {
			m = poll_cq(&p->cb, w, 64);
			for (int i = 0; i < m; i++)
				post_recv(&p->b, 0, &p->mb, p->bb, (uint32_t)max);
		} while (m > 0);
	}
	return sz * (double)iters / el / 1e6;
}

/* n 64-byte unsignaled WRITEs posted list WRs per ibv_post_send, the last of every 64 WRs signaled. */
static double rate_run(struct pair *p, int n, int list)
{
	struct wc w[64];
	int posted = 0;
	double t0 = now_s();
	while (posted < n) {
		int sig = ((posted + list) % 64) < list || list >= 64;
		struct post_rsp r = list == 1
			? post_send(&p->a, 0, posted, &p->ma, p->ba, 64, (uint64_t)(uintptr_t)p->bb, p->mb.rkey, sig)
			: post_send_list(&p->a, list, 0, posted, &p->ma, p->ba, 64, (uint64_t)(uintptr_t)p->bb, p->mb.rkey, sig);
		if (r.ret_errno) {
			poll_cq(&p->ca, w, 64);
			continue;
		}
		posted += list;
		if (sig)
			while (poll_cq(&p->ca, w, 64) == 0)
				;
	}
	return posted / (now_s() - t0) / 1e6;
}

static int bench(void)
{
	struct pair p;
	size_t max = 1 << 20;
	int nr = rounds();
	setup(&p, max * 2, -1);
	char *src = malloc(max), *dst = malloc(max);
	memset(src, 1, max);
	memset(dst, 0, max);
	printf("best of %d rounds; memcpy of the same size measured in the same rounds\n", nr);
	printf("%-6s %8s %12s %12s %12s %8s\n", "op", "size", "router_MB/s", "memcpy_MB/s", "msgs/s", "%memcpy");
	for (size_t sz = 4096; sz <= max; sz *= 4) {
		int iters = (int)(128u * 1024 * 1024 / sz);
		if (iters > 10000)
			iters = 10000;
		double mc = 0, bw[2] = { 0, 0 };
		for (int r = 0; r < nr; r++) {
			double t0 = now_s();
			for (int i = 0; i < iters; i++) {
				memcpy(dst, src, sz);
				__asm__ __volatile__("" : : "r"(dst) : "memory"); /* keep every copy */
			}
			double m = sz * (double)iters / (now_s() - t0) / 1e6;
			if (m > mc)
				mc = m;
			for (int op = 0; op < 2; op++) {
				double b = bw_run(&p, op, sz, iters, max);
				if (b > bw[op])
					bw[op] = b;
			}
		}
		for (int op = 0; op < 2; op++)
			printf("%-6s %8zu %12.0f %12.0f %12.0f %7.0f%%\n", op == 0 ? "SEND" : "WRITE", sz, bw[op], mc,
			       bw[op] * 1e6 / sz, 100 * bw[op] / mc);
	}
	/* Raw mailbox round trip: an empty POLL_CQ (the router does nothing but answer); its rate is the ceiling
	 * for anything that needs one round trip per call. */
	struct wc w[64];
	int rt = 200000;
	double raw = 1e9;
	for (int r = 0; r < nr; r++) {
		double t0 = now_s();
		for (int i = 0; i < rt; i++)
			poll_cq(&p.cb, w, 1);
		double us = (now_s() - t0) / rt * 1e6;
		if (us < raw)
			raw = us;
	}
	/* 64-byte message rate, one router thread: one WR per ibv_post_send (perftest's default), then chains of 16
	 * (perftest --post_list 16): the genuine client forwards a chain as one mailbox request. */
	double r1 = 0, r16 = 0;
	for (int r = 0; r < nr; r++) {
		double a = rate_run(&p, 300000, 1), b = rate_run(&p, 1600000, 16);
		if (a > r1)
			r1 = a;
		if (b > r16)
			r16 = b;
	}
	printf("RATE   64-byte WRITE, 1 WR per post: %.2f Mpps (%.0f%% of the raw round-trip rate %.2f M/s)\n", r1,
	       100 * r1 * raw, 1 / raw);
	printf("RATE   64-byte WRITE, 16 WRs per post: %.2f Mpps\n", r16);
	/* Ping-pong: A sends 64 B, B's receive completes, B sends back, A's receive completes. */
	for (int i = 0; i < 16; i++) {
		post_recv(&p.a, 0, &p.ma, p.ba + 65536, 64);
		post_recv(&p.b, 0, &p.mb, p.bb + 65536, 64);
	}
	int pp = 50000;
	double rtt = 1e9;
	for (int r = 0; r < nr; r++) {
		double t0 = now_s();
		for (int i = 0; i < pp; i++) {
			post_send(&p.a, 2, i, &p.ma, p.ba, 64, 0, 0, 0);
			while (poll_cq(&p.cb, w, 1) == 0)
				;
			post_recv(&p.b, 0, &p.mb, p.bb + 65536, 64);
			post_send(&p.b, 2, i, &p.mb, p.bb, 64, 0, 0, 0);
			while (poll_cq(&p.ca, w, 1) == 0)
				;
			post_recv(&p.a, 0, &p.ma, p.ba + 65536, 64);
		}
		double us = (now_s() - t0) / pp * 1e6;
		if (us < rtt)
			rtt = us;
	}
	printf("LAT    ping-pong RTT %.2f us; raw mailbox round trip %.2f us (RTT uses >= 6 round trips: %.2f us, %.2fx)\n",
	       rtt, raw, 6 * raw, rtt / (6 * raw));
	return 0;
}


static void hex(const char *name, const void *p, size_t n)
{
	printf("%s ", name);
	for (size_t i = 0; i < n; i++)
		printf("%02x", ((const unsigned char *)p)[i]);
	printf("\n");
}

/* Golden bytes: each message filled through the C structs with recognisable values (fixtures/wire/). */
static void golden(void)
{
	struct create_cq_req cq = { -1, 3, 256 };
	hex("create_cq_req", &cq, sizeof cq);
	struct create_cq_rsp cr;
	memset(&cr, 0, sizeof cr);
	cr.cqe = 256; cr.handle = 3; strcpy(cr.shm_name, "ff-t-cq");
	hex("create_cq_rsp", &cr, sizeof cr);
	struct create_qp_req qq = { 1, 2, 1, 3, 4, 0, { 128, 64, 2, 3, 0 } };
	hex("create_qp_req", &qq, sizeof qq);
	struct create_qp_rsp qr;
	memset(&qr, 0, sizeof qr);
	qr.qp_num = 0x123456; qr.handle = 9; qr.cap = (struct qp_cap){ 128, 64, 2, 3, 0 }; strcpy(qr.shm_name, "ff-t-qp");
	hex("create_qp_rsp", &qr, sizeof qr);
	struct modify_qp_req mq;
	memset(&mq, 0, sizeof mq);
	mq.handle = 9; mq.attr.qp_state = 2; mq.attr.path_mtu = 5; mq.attr.dest_qp_num = 0xabcdef; mq.attr.rq_psn = 77;
	mq.attr.ah_attr.dlid = 0x1234; mq.attr.ah_attr.grh.dgid.raw[15] = 0xfe; mq.attr.min_rnr_timer = 12;
	mq.attr.max_dest_rd_atomic = 4; mq.attr.port_num = 1; mq.attr.rnr_retry = 7; mq.attr.timeout = 14;
	mq.attr.retry_cnt = 6; mq.attr_mask = 1 | 128 | 256 | 1048576 | 4096 | 131072 | 32768;
	hex("modify_qp_req", &mq, sizeof mq);
	struct modify_qp_rsp mr = { 22, 9 };
	hex("modify_qp_rsp", &mr, sizeof mr);
	struct reg_mr_req rq;
	memset(&rq, 0, sizeof rq);
	rq.pd_handle = 1; rq.mem_size = 65536; rq.access_flags = 7;
	hex("reg_mr_req", &rq, sizeof rq);
	struct reg_mr_rsp rr;
	memset(&rr, 0, sizeof rr);
	rr.handle = 2; rr.lkey = 0xdeadbeef; rr.rkey = 0xdeadbeef; strcpy(rr.shm_name, "ff-t-mr");
	hex("reg_mr_rsp", &rr, sizeof rr);
	struct reg_mr_mapping_req mm;
	memset(&mm, 0, sizeof mm); /* the pad after key */
	mm.key = 0xdeadbeef; mm.mr_ptr = 0x7f0000100000ull; mm.shm_ptr = 0x7f0000200000ull;
	hex("reg_mr_mapping_req", &mm, sizeof mm);
	/* The same 24 bytes are what a genuine router sends to the other hosts' routers (UDP 11232). Their answer,
	   as ffrouter.cpp's UDPServer makes it: the received mapping in its 1400-byte buffer, sprintf(buf, "ack-%u",
	   key) over the start, all 1400 bytes sent; 0xa5 stands for what the rest of its stack buffer held. */
	char ack[1400];
	memset(ack, 0xa5, sizeof ack);
	memcpy(ack, &mm, sizeof mm);
	sprintf(ack, "ack-%u", mm.key);
	hex("mr_mapping_ack_genuine", ack, sizeof ack);
	struct poll_cq_req pq = { 3, 16 };
	hex("poll_cq_req", &pq, sizeof pq);
	struct { struct post_hdr h; struct send_wr w[2]; struct sge s[3]; } ps;
	memset(&ps, 0, sizeof ps);
	ps.h.qp_handle = 9; ps.h.wr_count = 2; ps.h.sge_count = 3;
	ps.w[0].wr_id = 0x1111; ps.w[0].num_sge = 2; ps.w[0].opcode = 3; ps.w[0].send_flags = 2; ps.w[0].imm_data = 0x99;
	ps.w[1].wr_id = 0x2222; ps.w[1].num_sge = 1; ps.w[1].opcode = 0; ps.w[1].wr.rdma.remote_addr = 0x7f0000100010ull;
	ps.w[1].wr.rdma.rkey = 0xdeadbeef;
	ps.s[0] = (struct sge){ 0, 100, 0xdeadbeef }; ps.s[1] = (struct sge){ 4096, 200, 0xdeadbeef };
	ps.s[2] = (struct sge){ 8192, 300, 0xdeadbeef };
	hex("post_send_body", &ps, sizeof ps);
	struct { struct post_hdr h; struct recv_wr w; struct sge s; } pr;
	memset(&pr, 0, sizeof pr);
	pr.h.qp_handle = 9; pr.h.wr_count = 1; pr.h.sge_count = 1; pr.w.wr_id = 0x3333; pr.w.num_sge = 1;
	pr.s = (struct sge){ 64, 4096, 0xdeadbeef };
	hex("post_recv_body", &pr, sizeof pr);
	struct post_rsp po = { 12, 2 };
	hex("post_rsp", &po, sizeof po);
	struct wc w;
	memset(&w, 0, sizeof w);
	w.wr_id = 0x3333; w.status = 0; w.opcode = 128; w.byte_len = 4096; w.imm_data = 0x99; w.qp_num = 0x123456;
	w.src_qp = 0xabcdef; w.wc_flags = 2;
	hex("wc", &w, sizeof w);
}

int main(int argc, char **argv)
{
	sock_path = getenv("FFR_SOCKET");
	shm_dir = getenv("FFR_SHM") ? getenv("FFR_SHM") : "/dev/shm";
	client_id = getenv("FFR_ID") ? atoi(getenv("FFR_ID")) : 1;
	const char *mode = argc > 1 ? argv[1] : "selftest";
	if (!strcmp(mode, "layouts")) {
		print_layouts();
		return 0;
	}
	if (!strcmp(mode, "golden")) {
		golden();
		return 0;
	}
	if (!strcmp(mode, "probe") && argc > 2)
		return probe(argv[2]);
	if (!sock_path) {
		fprintf(stderr, "ffclient: set FFR_SOCKET\n");
		return 2;
	}
	if (!strcmp(mode, "selftest"))
		return selftest();
	if (!strcmp(mode, "hold"))
		return hold();
	if (!strcmp(mode, "handover"))
		return across_handover();
	if (!strcmp(mode, "bench"))
		return bench();
	fprintf(stderr, "ffclient: unknown mode %s\n", mode);
	return 2;
}
