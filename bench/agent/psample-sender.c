/* bench/agent/psample-sender.c — paced PSAMPLE sender for the agent throughput harness (bench/agent-throughput.sh).
 *
 * Sends COUNT PSAMPLE_CMD_SAMPLE messages (kernel convention: nlmsghdr type 0x10 on NETLINK_USERSOCK + genlmsghdr
 * cmd 0 version 1; attributes IIFINDEX u16, OIFINDEX u16, ORIGSIZE, SAMPLE_GROUP, GROUP_SEQ, SAMPLE_RATE u32, DATA —
 * the order of Linux net/psample/psample.c) to multicast group GROUP at RATE messages/s. Each sample's DATA is a
 * HEADER-byte Ethernet/IPv4/UDP frame whose UDP payload starts with the sample's 32-bit sequence number (big-endian,
 * frame offset 42), and GROUP_SEQ carries the same number, so the sink counts loss and duplicates exactly.
 * BATCH messages go in one netlink datagram (1 = what the kernel's psample module does; more = what vecflow's
 * dataplane does with sflow.psample-batch-bytes); up to 32 datagrams per sendmmsg(2).
 *
 * Pacing: the schedule is RATE × elapsed; a sender behind by more than 2 ms of schedule lets the rest slip (no
 * catch-up burst), so the achieved rate can be below RATE. Prints one line: sent=N seconds=S achieved=R slipped=N.
 *
 * usage: psample-sender GROUP RATE COUNT SEQ_START [BATCH=1] [HEADER=128]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_BATCH 64
#define VLEN 32
#define MSG_MAX 512

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int put_attr(uint8_t *p, int type, const void *v, int len) {
    uint16_t l = (uint16_t)(4 + len), t = (uint16_t)type;
    memcpy(p, &l, 2);
    memcpy(p + 2, &t, 2);
    memcpy(p + 4, v, len);
    int total = (4 + len + 3) & ~3;
    memset(p + 4 + len, 0, total - 4 - len);
    return total;
}

/* one message at p; returns its length; the offsets of GROUP_SEQ's value and the frame's seq go to *gs, *fs */
static int build(uint8_t *p, int header, int *gs, int *fs) {
    int o = 16;
    p[o] = 0; p[o + 1] = 1; p[o + 2] = 0; p[o + 3] = 0; /* genlmsghdr: cmd 0 (SAMPLE), version 1 */
    o += 4;
    uint16_t iif = 2, oif = 3;
    uint32_t orig = (uint32_t)header + 4, group = 1, seq = 0, rate = 1;
    o += put_attr(p + o, 0, &iif, 2);
    o += put_attr(p + o, 1, &oif, 2);
    o += put_attr(p + o, 2, &orig, 4);
    o += put_attr(p + o, 3, &group, 4);
    *gs = o + 4;
    o += put_attr(p + o, 4, &seq, 4);
    o += put_attr(p + o, 5, &rate, 4);
    uint8_t f[256];
    memset(f, 0, sizeof f);
    static const uint8_t eth[14] = {0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00};
    memcpy(f, eth, 14);
    int ip = header - 14;
    f[14] = 0x45; f[16] = (uint8_t)(ip >> 8); f[17] = (uint8_t)ip; f[22] = 64; f[23] = 17;
    f[26] = 10; f[27] = 0; f[28] = 0; f[29] = 1; /* 10.0.0.1 -> 10.0.0.2 */
    f[30] = 10; f[31] = 0; f[32] = 0; f[33] = 2;
    uint32_t sum = 0;
    for (int i = 14; i < 34; i += 2) sum += (uint32_t)(f[i] << 8 | f[i + 1]);
    while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
    f[24] = (uint8_t)(~sum >> 8); f[25] = (uint8_t)~sum;
    int udp = ip - 20;
    f[34] = 0x30; f[35] = 0x39; f[36] = 0x18; f[37] = 0xEB; f[38] = (uint8_t)(udp >> 8); f[39] = (uint8_t)udp;
    *fs = o + 4 + 42;
    o += put_attr(p + o, 6, f, header);
    uint32_t len = (uint32_t)o;
    uint16_t type = 0x10, flags = 0;
    memcpy(p, &len, 4);
    memcpy(p + 4, &type, 2);
    memcpy(p + 6, &flags, 2);
    memset(p + 8, 0, 8);
    return o;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: psample-sender GROUP RATE COUNT SEQ_START [BATCH=1] [HEADER=128]\n");
        return 2;
    }
    int group = atoi(argv[1]);
    double rate = atof(argv[2]);
    long count = atol(argv[3]);
    uint32_t seq = (uint32_t)strtoul(argv[4], 0, 10);
    int batch = argc > 5 ? atoi(argv[5]) : 1;
    int header = argc > 6 ? atoi(argv[6]) : 128;
    if (group < 1 || group > 32 || rate <= 0 || count < 1 || batch < 1 || batch > MAX_BATCH || header < 64
            || header > 256) {
        fprintf(stderr, "psample-sender: GROUP 1..32, RATE > 0, COUNT >= 1, BATCH 1..%d, HEADER 64..256\n",
                MAX_BATCH);
        return 2;
    }
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_USERSOCK);
    if (fd < 0) { perror("socket(NETLINK_USERSOCK)"); return 1; }
    struct sockaddr_nl self = {.nl_family = AF_NETLINK};
    if (bind(fd, (struct sockaddr *)&self, sizeof self) < 0) { perror("bind"); return 1; }
    int sndbuf = 4 << 20;
    setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof sndbuf);
    struct sockaddr_nl dst = {.nl_family = AF_NETLINK, .nl_pid = 0, .nl_groups = 1u << (group - 1)};

    static uint8_t bufs[VLEN][MAX_BATCH * MSG_MAX];
    struct iovec iov[VLEN];
    struct mmsghdr mm[VLEN];
    int gs, fs, len = 0;
    uint8_t one[MSG_MAX];
    len = build(one, header, &gs, &fs);
    for (int d = 0; d < VLEN; d++) {
        for (int k = 0; k < batch; k++) memcpy(bufs[d] + k * len, one, len);
        iov[d].iov_base = bufs[d];
        iov[d].iov_len = (size_t)len * batch;
        memset(&mm[d], 0, sizeof mm[d]);
        mm[d].msg_hdr.msg_name = &dst;
        mm[d].msg_hdr.msg_namelen = sizeof dst;
        mm[d].msg_hdr.msg_iov = &iov[d];
        mm[d].msg_hdr.msg_iovlen = 1;
    }
    double start = now(), burst = rate * 0.002;
    if (burst < batch) burst = batch;
    long sent = 0;
    double slipped = 0;
    long errors = 0;
    while (sent < count) {
        double due = (now() - start) * rate - slipped;
        if (due - sent > burst) { slipped += due - sent - burst; due = sent + burst; }
        if (due - sent < batch && count - sent >= batch) {
            struct timespec ts = {0, 20000};
            nanosleep(&ts, 0);
            continue;
        }
        long want = (long)due - sent;
        if (want > count - sent) want = count - sent;
        if (want < 1) want = count - sent < batch ? count - sent : batch;
        int dgrams = 0;
        long queued = 0;
        while (dgrams < VLEN && queued < want) {
            int k = (int)(want - queued < batch ? want - queued : batch);
            for (int j = 0; j < k; j++) {
                uint8_t *m = bufs[dgrams] + j * len;
                uint32_t s = seq + (uint32_t)(sent + queued + j);
                uint32_t be = __builtin_bswap32(s);
                memcpy(m + gs, &s, 4);
                memcpy(m + fs, &be, 4);
            }
            iov[dgrams].iov_len = (size_t)len * k;
            dgrams++;
            queued += k;
        }
        int done = 0;
        while (done < dgrams) {
            int r = sendmmsg(fd, mm + done, (unsigned)(dgrams - done), 0);
            if (r < 0) {
                if (errno == EINTR) continue;
                /* USERSOCK has no kernel socket at port 0: netlink_sendmsg broadcasts to the group first, then its
                 * unicast to port 0 fails with ECONNREFUSED — the datagram went out; go on with the next one */
                if (errno == ECONNREFUSED) { done++; continue; }
                errors++;
                if (errno == ENOBUFS || errno == EAGAIN) { struct timespec ts = {0, 10000}; nanosleep(&ts, 0); continue; }
                perror("sendmmsg");
                return 1;
            }
            done += r;
        }
        sent += queued;
        if (slipped > 0 && now() - start > 3.0 * count / rate) break; /* far behind: stop at 3x the step time */
    }
    double secs = now() - start;
    printf("sent=%ld seconds=%.3f achieved=%.0f slipped=%.0f send_errors=%ld\n", sent, secs, sent / secs, slipped,
           errors);
    return 0;
}
