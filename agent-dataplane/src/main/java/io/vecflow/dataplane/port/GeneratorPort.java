package io.vecflow.dataplane.port;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.vnet.interfaces.Port;
import io.vecflow.dataplane.vnet.interfaces.PortCounters;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

/**
 * A traffic generator {@link Port} for benchmarks: Ethernet frames of {@link Options#flows} UDP/TCP flows over IPv4
 * and/or IPv6, fixed size or IMIX, flows picked with uniform or Zipf popularity, with correct IPv4 header, UDP and TCP
 * checksums (RFC 791 §3.1, RFC 768, RFC 9293 §3.1, IPv6 pseudo-header RFC 8200 §8.1; ones' complement sum RFC 1071).
 *
 * <p><b>Bytes.</b> Sizes are frame lengths in bytes <i>without</i> FCS, as a port puts them in
 * {@link BufferPool#length}. Each frame is Ethernet II (src {@link Options#srcMac}, dst {@link Options#dstMac}), then
 * IPv4 (IHL 5, DF, TTL 64) or IPv6 (hop limit 64), then UDP or TCP (data offset 5, flags ACK, window 65535, fixed
 * per-flow sequence numbers), then a payload pattern shared by all flows (byte {@code i} of the payload is
 * {@code (i × 31 + 7) mod 256}). Flow {@code i}'s addresses come from the benchmarking ranges: IPv4 source
 * 198.18.0.0/16 + {@code i mod 65536}, destination a seeded random address of 198.19.0.0/16 (RFC 2544 §12, RFC 6890);
 * IPv6 source 2001:2::{@code i}, destination 2001:2::1:0:{@code random} (RFC 5180 §5); source port
 * {@code 1024 + i / 65536}, destination port seeded random in 1024..65535, so every flow's 5-tuple is distinct.
 * Which flows are IPv6 and which TCP is a seeded shuffle: exactly {@code round(flows × ipv6Fraction)} IPv6 flows and
 * {@code round(flows × tcpFraction)} TCP flows.
 *
 * <p><b>IMIX.</b> The "simple IMIX" of 7:4:1 frames of 60, 590 and 1514 bytes without FCS (64, 594, 1518 on the wire
 * with FCS; IPv4 packets of 46, 576 and 1500 bytes), as TRex's {@code stl/imix.py} profile sends it. An IPv6 frame
 * needs at least 62 (UDP) or 74 (TCP) bytes, so an IPv6 flow's small IMIX frames have that size instead of 60. The
 * size sequence is a seeded shuffle of a 12,288-entry schedule holding exactly 7 × 1024, 4 × 1024 and 1 × 1024 of the
 * three sizes, replayed in a loop, so every 12,288 frames of a queue hold exactly 7:4:1.
 *
 * <p><b>Popularity.</b> Flow {@code i} has rank {@code i + 1}. Uniform: every flow equally likely. Zipf(s): rank
 * {@code k} has probability {@code k^−s / Σ_j j^−s}. Draws use Walker's alias method (one 64-bit random number per
 * frame). With several queues, flow {@code i} belongs to queue {@code i mod queues} only (as a NIC's RSS keeps a flow
 * on one queue), and each queue draws among its flows with the same weights.
 *
 * <p><b>Work per frame.</b> Frames are prebuilt off-heap at construction: per flow its headers (≤ 74 bytes), per flow
 * and size its IP length and checksums. {@link #rx} copies the headers and the payload pattern into the buffer and
 * writes the length and checksum fields; it allocates nothing. {@link #tx} is a sink: it counts and frees.
 *
 * <p><b>Queues, count, rate.</b> Each queue is its own stream (random state seeded from {@link Options#seed} and the
 * queue index: the same options give the same frames). {@link Options#count} (0 = unlimited) is split over the queues
 * (the first {@code count mod queues} queues get one more); {@link #rxExhausted} turns true when a queue has produced
 * its share. {@link Options#packetsPerSecond} (0 = as fast as possible) is split evenly; each queue paces itself from
 * its first {@link #rx} call, producing at most {@code elapsed × rate + 1} frames.
 */
public final class GeneratorPort extends Port {
    /** Simple IMIX frame lengths without FCS (TRex stl/imix.py): 60, 590, 1514 bytes. */
    public static final int[] IMIX_SIZES = {60, 590, 1514};
    /** Simple IMIX weights: 7:4:1. */
    public static final int[] IMIX_WEIGHTS = {7, 4, 1};
    /** Upper bound on {@link Options#flows}. */
    public static final int MAX_FLOWS = 1 << 20;
    /** Longest frame the generator builds (bytes without FCS; a 9000-byte MTU jumbo frame). */
    public static final int MAX_FRAME = 9014;

    private static final int ETH = 14;
    private static final int IPV4 = 20;
    private static final int IPV6 = 40;
    private static final int UDP = 8;
    private static final int TCP = 20;
    private static final int TEMPLATE = 128; // bytes per flow header template (≤ 74 used)
    private static final int SCHEDULE_REPEAT = 1024;
    private static final ValueLayout.OfShort BE_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /** Flow popularity. */
    public enum Popularity {
        /** Every flow equally likely. */
        UNIFORM,
        /** Zipf with exponent {@link Options#zipfExponent}. */
        ZIPF
    }

    /**
     * Generator settings; defaults: fixed 60-byte frames without FCS (64 on the wire), 1 flow, uniform, IPv4 UDP only,
     * no count limit, unlimited rate, seed 1, MACs 02:00:00:00:00:01 → 02:00:00:00:00:02.
     */
    public static final class Options {
        int frameSize = 60;
        boolean imix;
        int flows = 1;
        Popularity popularity = Popularity.UNIFORM;
        double zipfExponent = 1.0;
        double ipv6Fraction;
        double tcpFraction;
        long count;
        double packetsPerSecond;
        long seed = 1;
        long srcMac = 0x02_00_00_00_00_01L;
        long dstMac = 0x02_00_00_00_00_02L;

        /** @return the defaults. */
        public static Options defaults() {
            return new Options();
        }

        /**
         * @param bytes fixed frame length without FCS (60 = a minimum 64-byte frame on the wire), at least the headers
         *     of every flow kind in use (42 IPv4/UDP, 54 IPv4/TCP, 62 IPv6/UDP, 74 IPv6/TCP), at most 9014
         * @return this (and IMIX off)
         */
        public Options frameSize(int bytes) {
            this.frameSize = bytes;
            this.imix = false;
            return this;
        }

        /** @return this, with IMIX sizes (class comment) instead of a fixed size */
        public Options imix() {
            this.imix = true;
            return this;
        }

        /** @param n number of flows (distinct 5-tuples), 1..2^20 @return this */
        public Options flows(int n) {
            this.flows = n;
            return this;
        }

        /** @return this, with uniform flow popularity */
        public Options uniform() {
            this.popularity = Popularity.UNIFORM;
            return this;
        }

        /** @param s Zipf exponent, &gt; 0 (1.0 is the classic Zipf law) @return this */
        public Options zipf(double s) {
            this.popularity = Popularity.ZIPF;
            this.zipfExponent = s;
            return this;
        }

        /** @param f fraction of flows that are IPv6, 0..1 (0 = IPv4 only, 1 = IPv6 only) @return this */
        public Options ipv6Fraction(double f) {
            this.ipv6Fraction = f;
            return this;
        }

        /** @param f fraction of flows that are TCP (the rest UDP), 0..1 @return this */
        public Options tcpFraction(double f) {
            this.tcpFraction = f;
            return this;
        }

        /** @param n frames to produce over all queues, 0 = unlimited @return this */
        public Options count(long n) {
            this.count = n;
            return this;
        }

        /** @param pps frames per second over all queues, 0 = as fast as possible @return this */
        public Options packetsPerSecond(double pps) {
            this.packetsPerSecond = pps;
            return this;
        }

        /** @param seed random seed: flows, schedule and draws are a function of it @return this */
        public Options seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** @param src source MAC (48 bits) @param dst destination MAC (48 bits) @return this */
        public Options macs(long src, long dst) {
            this.srcMac = src;
            this.dstMac = dst;
            return this;
        }
    }

    /** Per-queue stream state; padded against false sharing. */
    private static final class Queue {
        long rng;
        int[] flowIds; // the queue's flows (global ids)
        long[] threshold; // alias method: accept column with probability threshold / 2^32
        int[] alias;
        int schedulePos;
        long limit; // 0 = unlimited
        long produced;
        double rate;
        long startNanos;
        long p0, p1, p2, p3, p4, p5, p6, p7;
    }

    private final Arena arena = Arena.ofShared();
    private final MemorySegment templates; // flows × TEMPLATE header bytes
    private final MemorySegment payload; // the shared payload pattern, MAX_FRAME bytes
    private final byte[] headerLength; // per flow: 42/54/62/74
    private final byte[] kind; // per flow: bit 0 = IPv6, bit 1 = TCP
    private final int classes; // 1 (fixed) or 3 (IMIX)
    private final short[] frameLength; // per flow × class
    private final int[] checksums; // per flow × class: IPv4 header checksum << 16 | L4 checksum
    private final byte[] schedule; // size class per frame
    private final Queue[] q;
    private final Options options;

    /**
     * Builds every flow's frames.
     *
     * @param name port name (e.g. {@code gen0})
     * @param ifIndex the dataplane's ifIndex of this port, ≥ 1
     * @param queues queues (workers), ≥ 1
     * @param o settings (copied; later changes to {@code o} have no effect)
     * @throws IllegalArgumentException a setting out of range (named in the message), e.g. a fixed frame size below
     *     the headers of a flow kind in use
     */
    public GeneratorPort(String name, int ifIndex, int queues, Options o) {
        super(name, ifIndex, queues);
        String where = "generator port " + name;
        check(o.flows >= 1 && o.flows <= MAX_FLOWS, where, "flows must be in 1.." + MAX_FLOWS + ", got " + o.flows);
        check(o.ipv6Fraction >= 0 && o.ipv6Fraction <= 1, where, "ipv6Fraction must be in [0, 1], got "
                + o.ipv6Fraction);
        check(o.tcpFraction >= 0 && o.tcpFraction <= 1, where, "tcpFraction must be in [0, 1], got " + o.tcpFraction);
        check(o.count >= 0, where, "count must be >= 0, got " + o.count);
        check(o.packetsPerSecond >= 0 && Double.isFinite(o.packetsPerSecond), where,
                "packetsPerSecond must be finite and >= 0, got " + o.packetsPerSecond);
        check(o.popularity == Popularity.UNIFORM || (o.zipfExponent > 0 && Double.isFinite(o.zipfExponent)), where,
                "zipf exponent must be > 0, got " + o.zipfExponent);
        Options c = new Options();
        c.frameSize = o.frameSize;
        c.imix = o.imix;
        c.flows = o.flows;
        c.popularity = o.popularity;
        c.zipfExponent = o.zipfExponent;
        c.ipv6Fraction = o.ipv6Fraction;
        c.tcpFraction = o.tcpFraction;
        c.count = o.count;
        c.packetsPerSecond = o.packetsPerSecond;
        c.seed = o.seed;
        c.srcMac = o.srcMac;
        c.dstMac = o.dstMac;
        this.options = c;
        int n = o.flows;
        SplittableRandom rnd = new SplittableRandom(o.seed);

        // which flows are IPv6 / TCP: exact counts, seeded positions
        kind = new byte[n];
        markFraction(kind, 1, o.ipv6Fraction, rnd);
        markFraction(kind, 2, o.tcpFraction, rnd);
        headerLength = new byte[n];
        int maxHeader = 0;
        for (int i = 0; i < n; i++) {
            headerLength[i] = (byte) headerLength(kind[i]);
            maxHeader = Math.max(maxHeader, headerLength[i]);
        }
        classes = o.imix ? IMIX_SIZES.length : 1;
        if (!o.imix) {
            check(o.frameSize >= maxHeader && o.frameSize <= MAX_FRAME, where, "frameSize must be in " + maxHeader
                    + ".." + MAX_FRAME + " bytes (without FCS) for the flow kinds in use, got " + o.frameSize);
        }

        payload = arena.allocate(MAX_FRAME, 64);
        byte[] pattern = new byte[MAX_FRAME];
        for (int i = 0; i < MAX_FRAME; i++) {
            pattern[i] = (byte) (i * 31 + 7);
        }
        MemorySegment.copy(pattern, 0, payload, ValueLayout.JAVA_BYTE, 0, MAX_FRAME);
        long[] patternPrefix = prefixSums(pattern); // ones' complement partial sums of the first k payload bytes

        templates = arena.allocate((long) n * TEMPLATE, 64);
        frameLength = new short[n * classes];
        checksums = new int[n * classes];
        byte[] h = new byte[TEMPLATE];
        for (int i = 0; i < n; i++) {
            long srcPortDst = rnd.nextLong();
            long addrRandom = rnd.nextLong();
            long tcpSeq = rnd.nextLong();
            boolean v6 = (kind[i] & 1) != 0;
            boolean tcp = (kind[i] & 2) != 0;
            int hl = headerLength[i];
            java.util.Arrays.fill(h, (byte) 0);
            putMac(h, 0, o.dstMac);
            putMac(h, 6, o.srcMac);
            int l4;
            int proto = tcp ? 6 : 17;
            if (!v6) {
                put16(h, 12, 0x0800);
                h[14] = 0x45;
                put16(h, 20, 0x4000); // DF, fragment offset 0
                h[22] = 64; // TTL
                h[23] = (byte) proto;
                put32(h, 26, 0xC612_0000 | (i & 0xffff)); // 198.18.0.0/16 + i
                put32(h, 30, 0xC613_0000 | (int) (addrRandom & 0xffff)); // 198.19.0.0/16
                l4 = ETH + IPV4;
            } else {
                put16(h, 12, 0x86DD);
                h[14] = 0x60;
                h[20] = (byte) proto; // next header
                h[21] = 64; // hop limit
                put32(h, 22, 0x2001_0002); // 2001:2::/48 (RFC 5180)
                put32(h, 34, i); // source 2001:2::i
                put32(h, 38, 0x2001_0002);
                put32(h, 46, 0x0001_0000); // destination 2001:2::1:0:random
                put32(h, 50, (int) addrRandom);
                l4 = ETH + IPV6;
            }
            put16(h, l4, 1024 + i / 65536); // source port
            put16(h, l4 + 2, 1024 + (int) Long.remainderUnsigned(srcPortDst, 65536 - 1024)); // destination port
            if (tcp) {
                put32(h, l4 + 4, (int) tcpSeq); // sequence number
                put32(h, l4 + 8, (int) (tcpSeq >>> 32)); // acknowledgment number
                h[l4 + 12] = 0x50; // data offset 5
                h[l4 + 13] = 0x10; // ACK
                put16(h, l4 + 14, 65535); // window
            }
            for (int k = 0; k < classes; k++) {
                int len = o.imix ? Math.max(IMIX_SIZES[k], hl) : o.frameSize;
                int payloadLen = len - hl;
                int ipPayload = len - l4; // L4 header + data
                int ipCsum = 0;
                if (!v6) {
                    put16(h, 16, len - ETH); // total length
                    put16(h, 24, 0);
                    ipCsum = fold(sum(h, ETH, IPV4, 0));
                } else {
                    put16(h, 18, ipPayload); // payload length
                }
                long pseudo = v6 ? sum(h, 22, 32, 0) : sum(h, 26, 8, 0);
                pseudo += proto + ipPayload; // zero/protocol and upper-layer length words
                if (!tcp) {
                    put16(h, l4 + 4, ipPayload); // UDP length
                    put16(h, l4 + 6, 0);
                } else {
                    put16(h, l4 + 16, 0);
                }
                long s = sum(h, l4, hl - l4, pseudo) + patternPrefix[payloadLen];
                int l4Csum = fold(s);
                if (!tcp && l4Csum == 0) {
                    l4Csum = 0xffff; // RFC 768: a computed zero is sent as all ones
                }
                frameLength[i * classes + k] = (short) len;
                checksums[i * classes + k] = ipCsum << 16 | l4Csum;
            }
            MemorySegment.copy(h, 0, templates, ValueLayout.JAVA_BYTE, (long) i * TEMPLATE, hl);
        }

        // IMIX schedule: exactly 7:4:1 per 12,288 frames, seeded order
        if (o.imix) {
            int total = 0;
            for (int w : IMIX_WEIGHTS) {
                total += w;
            }
            schedule = new byte[total * SCHEDULE_REPEAT];
            int at = 0;
            for (int k = 0; k < IMIX_WEIGHTS.length; k++) {
                for (int j = 0; j < IMIX_WEIGHTS[k] * SCHEDULE_REPEAT; j++) {
                    schedule[at++] = (byte) k;
                }
            }
            for (int j = schedule.length - 1; j > 0; j--) {
                int r = rnd.nextInt(j + 1);
                byte t = schedule[j];
                schedule[j] = schedule[r];
                schedule[r] = t;
            }
        } else {
            schedule = new byte[1];
        }

        // per-queue flows and alias tables
        q = new Queue[queues];
        for (int w = 0; w < queues; w++) {
            Queue s = new Queue();
            int mine = n / queues + (w < n % queues ? 1 : 0);
            s.flowIds = new int[mine];
            double[] weight = new double[mine];
            for (int j = 0; j < mine; j++) {
                int flow = w + j * queues;
                s.flowIds[j] = flow;
                weight[j] = o.popularity == Popularity.ZIPF ? Math.pow(flow + 1, -o.zipfExponent) : 1.0;
            }
            buildAlias(weight, s);
            s.rng = new SplittableRandom(o.seed ^ (0x9E3779B97F4A7C15L * (w + 1))).nextLong();
            s.limit = o.count == 0 ? 0 : o.count / queues + (w < o.count % queues ? 1 : 0);
            s.rate = o.packetsPerSecond / queues;
            q[w] = s;
        }
    }

    private static void check(boolean ok, String where, String msg) {
        if (!ok) {
            throw new IllegalArgumentException(where + ": " + msg);
        }
    }

    private static int headerLength(int kind) {
        return ETH + ((kind & 1) != 0 ? IPV6 : IPV4) + ((kind & 2) != 0 ? TCP : UDP);
    }

    private static void markFraction(byte[] kind, int bit, double fraction, SplittableRandom rnd) {
        int n = kind.length;
        int marked = (int) Math.round(n * fraction);
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int r = rnd.nextInt(i + 1);
            int t = order[i];
            order[i] = order[r];
            order[r] = t;
        }
        for (int i = 0; i < marked; i++) {
            kind[order[i]] |= (byte) bit;
        }
    }

    /** Walker/Vose alias table for {@code weight}, thresholds scaled to 2^32. */
    private static void buildAlias(double[] weight, Queue s) {
        int n = weight.length;
        s.threshold = new long[n];
        s.alias = new int[n];
        double total = 0;
        for (double w : weight) {
            total += w;
        }
        double[] p = new double[n];
        int[] small = new int[n];
        int[] large = new int[n];
        int ns = 0;
        int nl = 0;
        for (int i = 0; i < n; i++) {
            p[i] = weight[i] * n / total;
            if (p[i] < 1.0) {
                small[ns++] = i;
            } else {
                large[nl++] = i;
            }
        }
        while (ns > 0 && nl > 0) {
            int l = small[--ns];
            int g = large[--nl];
            s.threshold[l] = (long) (p[l] * 4294967296.0);
            s.alias[l] = g;
            p[g] = (p[g] + p[l]) - 1.0;
            if (p[g] < 1.0) {
                small[ns++] = g;
            } else {
                large[nl++] = g;
            }
        }
        while (nl > 0) {
            int g = large[--nl];
            s.threshold[g] = 1L << 32;
            s.alias[g] = g;
        }
        while (ns > 0) { // rounding leftovers: probability 1
            int l = small[--ns];
            s.threshold[l] = 1L << 32;
            s.alias[l] = l;
        }
    }

    /** Ones' complement partial sums: {@code out[k]} = sum of the first {@code k} bytes as 16-bit big-endian words. */
    private static long[] prefixSums(byte[] b) {
        long[] out = new long[b.length + 1];
        long s = 0;
        for (int k = 0; k < b.length; k++) {
            s += (k & 1) == 0 ? (b[k] & 0xff) << 8 : b[k] & 0xff;
            out[k + 1] = s;
        }
        return out;
    }

    private static long sum(byte[] b, int off, int len, long s) {
        for (int k = 0; k < len; k++) {
            s += (k & 1) == 0 ? (b[off + k] & 0xff) << 8 : b[off + k] & 0xff;
        }
        return s;
    }

    /** Folds a sum to 16 bits and complements it (RFC 1071 §4.1). */
    private static int fold(long s) {
        while ((s >>> 16) != 0) {
            s = (s & 0xffff) + (s >>> 16);
        }
        return (int) (~s & 0xffff);
    }

    private static void put16(byte[] b, int off, int v) {
        b[off] = (byte) (v >>> 8);
        b[off + 1] = (byte) v;
    }

    private static void put32(byte[] b, int off, int v) {
        put16(b, off, v >>> 16);
        put16(b, off + 2, v);
    }

    private static void putMac(byte[] b, int off, long mac) {
        for (int k = 0; k < 6; k++) {
            b[off + k] = (byte) (mac >>> (40 - 8 * k));
        }
    }

    /** splitmix64 step (Steele, Lea, Flood 2014): the next random 64 bits of a queue. */
    private static long next(Queue s) {
        long z = (s.rng += 0x9E3779B97F4A7C15L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * Generates up to {@code max} frames for queue {@code queue} (fewer when the pool runs out, the count limit is
     * reached or the rate allows fewer; see {@link Port#rx}). All frames of one call get one System.nanoTime stamp.
     */
    @Override
    public int rx(int queue, BufferPool pool, PacketVector out, int max) {
        Queue s = q[queue];
        int budget = max;
        if (s.limit != 0) {
            budget = (int) Math.min(budget, s.limit - s.produced);
        }
        long now = 0;
        if (s.rate > 0) {
            now = System.nanoTime();
            if (s.startNanos == 0) {
                s.startNanos = now;
            }
            long allowed = (long) ((now - s.startNanos) * s.rate / 1e9) + 1 - s.produced;
            budget = (int) Math.max(0, Math.min(budget, allowed));
        }
        if (budget <= 0) {
            return 0;
        }
        if (now == 0) {
            now = System.nanoTime();
        }
        MemorySegment dst = pool.data();
        int bufBytes = pool.bufferBytes();
        int ifIndex = ifIndex();
        int[] flowIds = s.flowIds;
        long[] threshold = s.threshold;
        int[] alias = s.alias;
        int nFlows = flowIds.length;
        int n = 0;
        int errors = 0;
        long octets = 0;
        while (n < budget) {
            int b = pool.alloc();
            if (b < 0) {
                break;
            }
            long r = next(s);
            int col = (int) (((r >>> 32) * nFlows) >>> 32);
            int j = (r & 0xffffffffL) < threshold[col] ? col : alias[col];
            int flow = flowIds[j];
            int cls = 0;
            if (classes > 1) {
                cls = schedule[s.schedulePos];
                s.schedulePos = s.schedulePos + 1 == schedule.length ? 0 : s.schedulePos + 1;
            }
            int fc = flow * classes + cls;
            int len = frameLength[fc];
            int hl = headerLength[flow];
            int k = kind[flow];
            long d = pool.offset(b);
            int copy = Math.min(len, bufBytes);
            if (copy < len) {
                errors++;
            }
            MemorySegment.copy(templates, (long) flow * TEMPLATE, dst, d, Math.min(hl, copy));
            if (copy > hl) {
                MemorySegment.copy(payload, 0, dst, d + hl, copy - hl);
            }
            int sums = checksums[fc];
            if (copy >= hl) {
                int l4;
                if ((k & 1) == 0) {
                    dst.set(BE_SHORT, d + ETH + 2, (short) (len - ETH)); // IPv4 total length
                    dst.set(BE_SHORT, d + ETH + 10, (short) (sums >>> 16)); // IPv4 header checksum
                    l4 = ETH + IPV4;
                } else {
                    dst.set(BE_SHORT, d + ETH + 4, (short) (len - ETH - IPV6)); // IPv6 payload length
                    l4 = ETH + IPV6;
                }
                if ((k & 2) == 0) {
                    dst.set(BE_SHORT, d + l4 + 4, (short) (len - l4)); // UDP length
                    dst.set(BE_SHORT, d + l4 + 6, (short) sums); // UDP checksum
                } else {
                    dst.set(BE_SHORT, d + l4 + 16, (short) sums); // TCP checksum
                }
            }
            pool.length[b] = copy;
            pool.rxIfIndex[b] = ifIndex;
            pool.txIfIndex[b] = 0;
            pool.timestampNanos[b] = now;
            out.add(b);
            octets += len;
            n++;
        }
        s.produced += n;
        if (n > 0) {
            PortCounters c = counters();
            c.add(queue, PortCounters.RX_PACKETS, n);
            c.add(queue, PortCounters.RX_OCTETS, octets);
            if (errors > 0) {
                c.add(queue, PortCounters.RX_ERRORS, errors);
            }
        }
        return n;
    }

    /**
     * A sink: counts every frame of {@code v} as transmitted (TX_PACKETS, TX_OCTETS), frees it and empties {@code v}.
     */
    @Override
    public void tx(int queue, BufferPool pool, PacketVector v) {
        long octets = 0;
        for (int i = 0; i < v.count; i++) {
            octets += pool.length[v.buffers[i]];
        }
        if (v.count > 0) {
            counters().add(queue, PortCounters.TX_PACKETS, v.count);
            counters().add(queue, PortCounters.TX_OCTETS, octets);
        }
        pool.free(v);
    }

    /** @return true once queue {@code queue} has produced its share of {@link Options#count} (never without a count) */
    @Override
    public boolean rxExhausted(int queue) {
        Queue s = q[queue];
        return s.limit != 0 && s.produced >= s.limit;
    }

    /** @return number of flows. */
    public int flows() {
        return options.flows;
    }

    /** @return true when flow {@code flow} is IPv6. */
    public boolean isIpv6(int flow) {
        return (kind[flow] & 1) != 0;
    }

    /** @return true when flow {@code flow} is TCP (else UDP). */
    public boolean isTcp(int flow) {
        return (kind[flow] & 2) != 0;
    }

    /**
     * @param flow flow id (rank − 1)
     * @return its IPv4 source address (198.18.0.0/16 + flow mod 65536) for IPv4 flows, or the last 32 bits of the IPv6
     *     source (= flow) for IPv6 flows: identifies the flow in a received frame together with the source port
     */
    public int sourceKey(int flow) {
        return isIpv6(flow) ? flow : 0xC612_0000 | (flow & 0xffff);
    }

    /** @return frames produced so far by queue {@code queue}. */
    public long produced(int queue) {
        return q[queue].produced;
    }

    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }

    @Override
    public String toString() {
        Options o = options;
        return "generator " + name() + " (" + o.flows + " flows " + o.popularity + (o.popularity == Popularity.ZIPF
                ? "(" + o.zipfExponent + ")" : "") + ", " + (o.imix ? "IMIX" : o.frameSize + " B") + ", IPv6 "
                + o.ipv6Fraction + ", TCP " + o.tcpFraction + ")";
    }
}
