package io.vecflow.dataplane.plugins.clove.path;

import io.vecflow.common.IpAddresses;
import io.vecflow.packet.LinkType;
import io.vecflow.packet.PacketParser;
import io.vecflow.packet.ParsedPacket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * CLOVE path discovery by traceroute-style probes (docs/load-balancing.md §4 "Path discovery"; the detail is marked
 * unverified there): to learn which outer UDP source ports the fabric's ECMP hash sends over distinct paths, send for
 * each candidate source port a probe with TTL 1..h towards the destination's tunnel endpoint (same destination port
 * as the data, e.g. VXLAN 4789, so the probe hashes like the data), collect the routers' ICMP Time Exceeded replies,
 * and keep k ports whose hop sequences ("path signatures") differ. Relies on static ECMP hashing; re-probe
 * periodically.
 *
 * <p><b>Probe encoding.</b> The router's reply quotes the probe's IP header and at least its first 8 UDP bytes
 * (RFC 792 "Time Exceeded"; RFC 4443 §3.3 quotes as much as fits), which carry the source port (the path key) and the
 * UDP Length. The quoted IP TTL is the expired value, not the one sent, so the probe's TTL is encoded in its size: a
 * probe sent with TTL t has a UDP payload of t zero bytes ({@link #udpLength}{@code (t) = 8 + t}) — shorter than a
 * tunnel header up to t = 7, an all-zero (invalid) tunnel header beyond, so an endpoint that receives one counts it
 * as a probe ({@code Overlay.PROBE}) and drops it. The probe's IPv4 Identification is {@link #probeId}: a random
 * 16-bit nonce of the round plus the probe's index, so a reply quoting another round's probe, or a forged one that
 * does not know the nonce, is counted and ignored ({@link #idMismatches}) — the quote carries the ID (RFC 792). The
 * destination itself answers a probe that reaches it with ICMP Port Unreachable (or nothing); that marks the path's
 * end.
 *
 * <p><b>Replies</b> ({@link #parseReply}): ICMPv4 type 11 code 0 / ICMPv6 type 3 code 0 (hop), ICMPv4 type 3 code 3 /
 * ICMPv6 type 1 code 4 (destination reached). The outer headers are parsed with the {@code packet} module's
 * {@link PacketParser}; the quote (inner IPv4 with options, or IPv6 with up to 8 extension headers, then UDP) is
 * parsed here with every read bounds-checked against the captured length; errors name the offset.
 *
 * <p>Control-plane code: allocation is fine, every loop is bounded by the number of probes or headers.
 */
public final class PathDiscovery {
    /** Largest TTL probed. */
    public static final int MAX_TTL = 64;
    /** Largest number of candidate ports per destination. */
    public static final int MAX_CANDIDATE_PORTS = 4096;
    /** Most IPv6 extension headers walked in a quote. */
    static final int MAX_QUOTED_EXTENSION_HEADERS = 8;

    /** What a reply says. */
    public enum Kind {
        /** A router on the path: Time Exceeded. */
        HOP,
        /** The destination: Port Unreachable. */
        REACHED
    }

    /**
     * One parsed reply.
     *
     * @param kind         hop or destination reached
     * @param from         the replying address (the outer source), as text
     * @param srcPort      the probe's UDP source port, from the quote
     * @param dstPort      the probe's UDP destination port
     * @param ttl          the probe's TTL, from the quoted UDP Length
     * @param quotedDst    the probe's destination address, from the quote, as text
     * @param quotedId     the probe's IPv4 Identification from the quote (0..65535), or -1 for an IPv6 quote
     */
    public record Reply(Kind kind, String from, int srcPort, int dstPort, int ttl, String quotedDst, int quotedId) {}

    /** A reply that cannot be used; {@link #offset()} is where in the captured bytes the problem is. */
    public static final class ReplyFormatException extends Exception {
        private final int offset;

        ReplyFormatException(int offset, String message) {
            super(message + " (offset " + offset + ")");
            this.offset = offset;
        }

        /** @return the byte offset, relative to the start of the captured packet */
        public int offset() {
            return offset;
        }
    }

    private final int[] ports;
    private final int maxTtl;
    private final String[][] hops; // [port index][ttl − 1]
    private final int[] reachedAt; // smallest TTL that reached the destination, 0 = not yet
    private final Map<Integer, Integer> indexOfPort = new HashMap<>();
    private final int nonce;
    private long accepted, unmatched, idMismatches;

    /**
     * @param candidatePorts outer UDP source ports to try (distinct, 0..65535; at most {@link #MAX_CANDIDATE_PORTS})
     * @param maxTtl         h, the largest TTL probed (1..{@link #MAX_TTL}); at least the fabric's hop count
     * @throws IllegalArgumentException on a bad port list or TTL
     */
    public PathDiscovery(int[] candidatePorts, int maxTtl) {
        this(candidatePorts, maxTtl, java.util.concurrent.ThreadLocalRandom.current().nextInt(0x10000));
    }

    /**
     * A round with a given ID nonce (tests; the other constructor draws it at random).
     *
     * @param nonce the round's Identification base, 0..65535
     * @throws IllegalArgumentException on a bad port list, TTL or nonce
     */
    public PathDiscovery(int[] candidatePorts, int maxTtl, int nonce) {
        if (nonce < 0 || nonce > 0xFFFF) {
            throw new IllegalArgumentException("probe ID nonce must be 0..65535, got " + nonce);
        }
        this.nonce = nonce;
        if (candidatePorts.length < 1 || candidatePorts.length > MAX_CANDIDATE_PORTS) {
            throw new IllegalArgumentException("candidate ports must number 1.." + MAX_CANDIDATE_PORTS + ", got "
                    + candidatePorts.length);
        }
        if (maxTtl < 1 || maxTtl > MAX_TTL) {
            throw new IllegalArgumentException("max TTL must be in [1, " + MAX_TTL + "], got " + maxTtl);
        }
        this.ports = candidatePorts.clone();
        for (int i = 0; i < ports.length; i++) {
            if (ports[i] < 0 || ports[i] > 0xFFFF) {
                throw new IllegalArgumentException("candidate port " + i + " must be 0..65535, got " + ports[i]);
            }
            if (indexOfPort.put(ports[i], i) != null) {
                throw new IllegalArgumentException("candidate port " + ports[i] + " listed twice");
            }
        }
        this.maxTtl = maxTtl;
        this.hops = new String[ports.length][maxTtl];
        this.reachedAt = new int[ports.length];
    }

    /** @return the UDP Length of a probe sent with TTL {@code ttl}: 8 + ttl (payload of ttl bytes) */
    public static int udpLength(int ttl) {
        return 8 + ttl;
    }

    /** @return the number of probes in the plan: candidate ports × max TTL */
    public int probeCount() {
        return ports.length * maxTtl;
    }

    /** @return the source port of probe {@code i} (0 ≤ i &lt; {@link #probeCount()}); probes go port by port */
    public int probePort(int i) {
        return ports[i / maxTtl];
    }

    /** @return the IPv4 Identification of probe {@code i}: (the round's nonce + i) mod 2<sup>16</sup> */
    public int probeId(int i) {
        return (nonce + i) & 0xFFFF;
    }

    /** @return the TTL of probe {@code i}: 1..h */
    public int probeTtl(int i) {
        return i % maxTtl + 1;
    }

    /**
     * Records a reply. Replies for unknown ports or TTLs above h are counted and ignored.
     *
     * @return true if it was recorded
     */
    public boolean onReply(Reply r) {
        Integer idx = indexOfPort.get(r.srcPort());
        if (idx == null || r.ttl() < 1 || r.ttl() > maxTtl) {
            unmatched++;
            return false;
        }
        if (r.quotedId() >= 0 && r.quotedId() != probeId(idx * maxTtl + r.ttl() - 1)) {
            idMismatches++; // another round's probe, or not ours
            unmatched++;
            return false;
        }
        if (r.kind() == Kind.REACHED) {
            if (reachedAt[idx] == 0 || r.ttl() < reachedAt[idx]) {
                reachedAt[idx] = r.ttl();
            }
        } else {
            hops[idx][r.ttl() - 1] = r.from();
        }
        accepted++;
        return true;
    }

    /**
     * @param port a candidate port
     * @return its path signature: the hop addresses for TTL 1.. up to the destination (or h), joined by {@code " > "},
     *         {@code *} for a TTL without reply, ending in {@code " > dst"} when the destination answered; null if no
     *         reply at all came for the port
     */
    public String signature(int port) {
        Integer idx = indexOfPort.get(port);
        if (idx == null) {
            return null;
        }
        int end = reachedAt[idx] > 0 ? reachedAt[idx] - 1 : maxTtl;
        boolean any = reachedAt[idx] > 0;
        StringBuilder sb = new StringBuilder();
        for (int t = 0; t < end; t++) {
            String h = hops[idx][t];
            any |= h != null;
            if (t > 0) {
                sb.append(" > ");
            }
            sb.append(h == null ? "*" : h);
        }
        if (reachedAt[idx] > 0) {
            sb.append(sb.isEmpty() ? "dst" : " > dst");
        }
        return any ? sb.toString() : null;
    }

    /**
     * Picks up to k ports with pairwise different signatures, in candidate order (the first port seen for each path).
     * Ports whose signature contains {@code *} are used only if no complete signature is left.
     *
     * @param k how many paths are wanted (≥ 1)
     * @return the chosen ports; fewer than k when the fabric showed fewer distinct paths
     */
    public int[] selectPorts(int k) {
        if (k < 1) {
            throw new IllegalArgumentException("k must be >= 1, got " + k);
        }
        List<Integer> chosen = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (int pass = 0; pass < 2 && chosen.size() < k; pass++) {
            for (int i = 0; i < ports.length && chosen.size() < k; i++) {
                String s = signature(ports[i]);
                if (s == null || seen.contains(s) || (pass == 0 && s.contains("*"))) {
                    continue;
                }
                seen.add(s);
                chosen.add(ports[i]);
            }
        }
        return chosen.stream().mapToInt(Integer::intValue).toArray();
    }

    /** @return replies recorded */
    public long accepted() {
        return accepted;
    }

    /** @return replies whose quoted IPv4 Identification is not the one this round sent for that port and TTL */
    public long idMismatches() {
        return idMismatches;
    }

    /** @return replies ignored (unknown port, TTL out of range, or an ID mismatch) */
    public long unmatched() {
        return unmatched;
    }

    /** @return the candidate ports, in order */
    public int[] candidatePorts() {
        return Arrays.copyOf(ports, ports.length);
    }

    /**
     * Parses an ICMP/ICMPv6 reply to a probe.
     *
     * @param buf      captured bytes
     * @param off      start of the packet in {@code buf}
     * @param len      captured length
     * @param linkType how the capture starts (Ethernet, raw IP, ...)
     * @param scratch  a reusable parse result for the outer headers
     * @return the reply
     * @throws ReplyFormatException if it is not a Time Exceeded / Port Unreachable reply to a UDP probe, or the quote
     *         is cut short or malformed; the message names the field and offset
     */
    public static Reply parseReply(byte[] buf, int off, int len, LinkType linkType, ParsedPacket scratch)
            throws ReplyFormatException {
        int st = PacketParser.parse(buf, off, len, linkType, PacketParser.Config.NO_DECAPSULATION, scratch);
        if (st != ParsedPacket.OK) {
            throw new ReplyFormatException(scratch.errorOffset(), "outer headers: "
                    + ParsedPacket.statusName(st));
        }
        int v = scratch.ipVersion();
        int proto = scratch.protocol();
        int l4 = scratch.l4Offset();
        if (!(v == 4 && proto == 1) && !(v == 6 && proto == 58)) {
            throw new ReplyFormatException(scratch.l3Offset(), "not ICMP: IPv" + v + " protocol " + proto);
        }
        int type = scratch.icmpType(), code = scratch.icmpCode();
        Kind kind;
        if (v == 4 && type == 11 && code == 0 || v == 6 && type == 3 && code == 0) {
            kind = Kind.HOP;
        } else if (v == 4 && type == 3 && code == 3 || v == 6 && type == 1 && code == 4) {
            kind = Kind.REACHED;
        } else {
            throw new ReplyFormatException(l4, "ICMPv" + (v == 4 ? "4" : "6") + " type " + type + " code " + code
                    + " is not Time Exceeded or Port Unreachable");
        }
        int end = len; // relative to off
        int q = l4 + 8; // quote after type, code, checksum, 4 unused/MTU bytes
        if (q + 1 > end) {
            throw new ReplyFormatException(q, "quote missing: ICMP message ends at " + end);
        }
        int qv = (buf[off + q] & 0xFF) >>> 4;
        int udp;
        String dst;
        int id = -1;
        if (qv == 4) {
            need(q, 20, end, "quoted IPv4 header");
            int ihl = (buf[off + q] & 0x0F) * 4;
            if (ihl < 20) {
                throw new ReplyFormatException(q, "quoted IPv4 IHL " + ihl / 4 + " is below 5");
            }
            need(q, ihl, end, "quoted IPv4 header with options");
            int p = buf[off + q + 9] & 0xFF;
            if (p != 17) {
                throw new ReplyFormatException(q + 9, "quoted IPv4 protocol " + p + " is not UDP (17)");
            }
            dst = IpAddresses.toString(buf, off + q + 16, 4);
            id = u16(buf, off + q + 4);
            udp = q + ihl;
        } else if (qv == 6) {
            need(q, 40, end, "quoted IPv6 header");
            dst = IpAddresses.toString(buf, off + q + 24, 16);
            int next = buf[off + q + 6] & 0xFF;
            int pos = q + 40;
            for (int n = 0; next != 17; n++) {
                if (n == MAX_QUOTED_EXTENSION_HEADERS || !(next == 0 || next == 43 || next == 60)) {
                    throw new ReplyFormatException(pos, "quoted IPv6 next header " + next
                            + (n == MAX_QUOTED_EXTENSION_HEADERS ? " after " + n + " extension headers" : "")
                            + " is not UDP (17)");
                }
                need(pos, 8, end, "quoted IPv6 extension header");
                int hlen = ((buf[off + pos + 1] & 0xFF) + 1) * 8;
                next = buf[off + pos] & 0xFF;
                pos += hlen;
            }
            udp = pos;
        } else {
            throw new ReplyFormatException(q, "quoted IP version " + qv + " is neither 4 nor 6");
        }
        need(udp, 8, end, "quoted UDP header");
        int sport = u16(buf, off + udp), dport = u16(buf, off + udp + 2), ulen = u16(buf, off + udp + 4);
        int ttl = ulen - 8;
        if (ttl < 1 || ttl > 255) {
            throw new ReplyFormatException(udp + 4, "quoted UDP Length " + ulen
                    + " does not encode a probe TTL (8 + 1..255)");
        }
        return new Reply(kind, scratch.srcAddressString(), sport, dport, ttl, dst, id);
    }

    private static void need(int at, int n, int end, String what) throws ReplyFormatException {
        if (at + n > end) {
            throw new ReplyFormatException(at, what + " truncated: needs " + n + " bytes, " + Math.max(0, end - at)
                    + " captured");
        }
    }

    private static int u16(byte[] b, int i) {
        return (b[i] & 0xFF) << 8 | (b[i + 1] & 0xFF);
    }
}
