/* bench/agent/sflow-sink.c — sFlow v5 sink for the agent throughput harness (bench/agent-throughput.sh).
 *
 * Receives sFlow v5 datagrams on 127.0.0.1:PORT (8 MiB receive buffer, recvmmsg), walks every sample (flow_sample 1
 * and flow_sample_expanded 3, sFlow v5 §5.4) down to its sampled_header record (format 1), reads the 32-bit sequence
 * number psample-sender put at frame offset 42 and marks it in a bitmap of [SEQ_START, SEQ_START + COUNT). Ends when
 * every number arrived, or IDLE_MS after the last datagram, or after MAX_S seconds; prints one JSON line: flow
 * samples, unique, duplicates, out of range, missing, datagrams, bad datagrams, the largest flow-sample `drops`
 * field seen (the agent's own count of samples it lost), the socket's drops (from SO_RXQ_OVFL).
 *
 * usage: sflow-sink PORT SEQ_START COUNT [IDLE_MS=2000] [MAX_S=120] [SPIN=0]
 * SPIN=1 polls without blocking (MSG_DONTWAIT, sched_yield when empty): the agent's sends then never have to wake a
 * sleeping sink on another CPU — a wake-up that costs the sender an inter-processor interrupt, which in a VM is a
 * VM exit, and which a collector on another machine would not cost the agent. It prints "ready" on stderr once bound.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#define VLEN 64
#define DGRAM 65536

static uint32_t rd(const uint8_t *p) { return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint8_t *seen;
static uint32_t seq0;
static long count, flow, uniq, dups, outside, bad, maxdrops;

static void datagram(const uint8_t *p, long n) {
    if (n < 28 || rd(p) != 5) { bad++; return; }
    long o = 4;
    uint32_t at = rd(p + o);
    o += 4 + (at == 2 ? 16 : 4);
    o += 12; /* sub-agent, sequence, uptime */
    if (o + 4 > n) { bad++; return; }
    uint32_t samples = rd(p + o);
    o += 4;
    for (uint32_t s = 0; s < samples; s++) {
        if (o + 8 > n) { bad++; return; }
        uint32_t tag = rd(p + o), len = rd(p + o + 4);
        long body = o + 8, end = body + len;
        if (end > n) { bad++; return; }
        o = end;
        long q;
        if (tag == 1) q = body + 16; /* seq, source, rate, pool */
        else if (tag == 3) q = body + 20; /* seq, class, index, rate, pool */
        else continue;
        if (q + 4 > end) { bad++; return; }
        long drops = rd(p + q);
        if (drops > maxdrops) maxdrops = drops;
        q += tag == 1 ? 12 : 20; /* drops + input + output [+ formats] */
        if (q + 4 > end) { bad++; return; }
        uint32_t records = rd(p + q);
        q += 4;
        flow++;
        for (uint32_t r = 0; r < records; r++) {
            if (q + 8 > end) { bad++; return; }
            uint32_t rt = rd(p + q), rl = rd(p + q + 4);
            long rb = q + 8;
            if (rb + rl > end) { bad++; return; }
            if (rt == 1 && rl >= 16 + 46) {
                uint32_t seq = rd(p + rb + 16 + 42) - seq0;
                if (seq >= (uint32_t)count) outside++;
                else if (seen[seq >> 3] & (1 << (seq & 7))) dups++;
                else { seen[seq >> 3] |= (uint8_t)(1 << (seq & 7)); uniq++; }
            }
            q = rb + ((rl + 3) & ~3u);
        }
    }
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: sflow-sink PORT SEQ_START COUNT [IDLE_MS=2000] [MAX_S=120]\n"); return 2; }
    int port = atoi(argv[1]);
    seq0 = (uint32_t)strtoul(argv[2], 0, 10);
    count = atol(argv[3]);
    int idle_ms = argc > 4 ? atoi(argv[4]) : 2000;
    double max_s = argc > 5 ? atof(argv[5]) : 120;
    int spin = argc > 6 ? atoi(argv[6]) : 0;
    if (count < 1 || count > 2000000000L) { fprintf(stderr, "sflow-sink: COUNT 1..2e9\n"); return 2; }
    seen = calloc((size_t)(count + 7) / 8, 1);
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int one = 1, rcv = 8 << 20;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof rcv);
    setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0) { perror("bind"); return 1; }
    struct timeval tv = {0, 100000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    static uint8_t bufs[VLEN][DGRAM];
    static char ctl[VLEN][64];
    struct iovec iov[VLEN];
    struct mmsghdr mm[VLEN];
    fprintf(stderr, "ready\n");
    double start = now(), last = 0;
    long dgrams = 0;
    uint32_t sockdrops = 0;
    while (uniq < count) {
        for (int i = 0; i < VLEN; i++) {
            iov[i].iov_base = bufs[i];
            iov[i].iov_len = DGRAM;
            memset(&mm[i], 0, sizeof mm[i]);
            mm[i].msg_hdr.msg_iov = &iov[i];
            mm[i].msg_hdr.msg_iovlen = 1;
            mm[i].msg_hdr.msg_control = ctl[i];
            mm[i].msg_hdr.msg_controllen = sizeof ctl[i];
        }
        int r = recvmmsg(fd, mm, VLEN, spin ? MSG_DONTWAIT : MSG_WAITFORONE, 0);
        double t = now();
        if (r <= 0) {
            if (spin) sched_yield();
            if (last > 0 && (t - last) * 1000 > idle_ms) break;
            if (t - start > max_s) break;
            continue;
        }
        last = t;
        for (int i = 0; i < r; i++) {
            dgrams++;
            datagram(bufs[i], mm[i].msg_len);
            for (struct cmsghdr *c = CMSG_FIRSTHDR(&mm[i].msg_hdr); c; c = CMSG_NXTHDR(&mm[i].msg_hdr, c)) {
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) memcpy(&sockdrops, CMSG_DATA(c), 4);
            }
        }
        if (t - start > max_s) break;
    }
    printf("{\"flow_samples\":%ld,\"unique\":%ld,\"duplicates\":%ld,\"out_of_range\":%ld,\"missing\":%ld,"
           "\"datagrams\":%ld,\"bad_datagrams\":%ld,\"max_drops_field\":%ld,\"sink_socket_drops\":%u}\n",
           flow, uniq, dups, outside, count - uniq, dgrams, bad, maxdrops, sockdrops);
    return 0;
}
