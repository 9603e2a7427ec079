package io.vecflow.sflow;

import static io.vecflow.sflow.SflowFormats.pad4;

import io.vecflow.sflow.FlowRecords.ExtendedGateway;
import io.vecflow.sflow.FlowRecords.SampledIp;

/**
 * Writes one {@link FlowSample} holder back to the wire: flow_sample (0:1), flow_sample_expanded (0:3) or
 * discarded_packet (0:5), in the encoding {@link FlowSample#kind} names, with its flow records — the inverse of
 * {@link SflowDecoder}. Sources: sflow.org/sflow_version_5.txt ("Flow Data", "flow_sample", "flow_sample_expanded"),
 * sflow_drops.txt (discarded_packet), sflow_tunnels.txt, host-sflow {@code src/sflow/sflow.h} (0:1041–0:1043), and
 * docs/sflow.md (§1 XDR rules, §4 source_id and interface encodings, §5 flow records).
 *
 * <h2>Layout</h2>
 * <ul>
 *   <li>Sample: {@code data_format = kind}, length (back-patched: bytes of the body, always a multiple of 4), then
 *       <ul>
 *         <li>0:1 — seq, compact source_id {@code type << 24 | index}, sampling_rate, sample_pool, drops, compact
 *             input and output {@code format << 30 | value}, n records (32 bytes);</li>
 *         <li>0:3 — seq, source_id type, source_id index, sampling_rate, sample_pool, drops, input format, input value,
 *             output format, output value, n (44 bytes);</li>
 *         <li>0:5 — seq, source_id type, source_id index, drops, input ifIndex, output ifIndex (plain values), reason,
 *             n (32 bytes).</li>
 *       </ul></li>
 *   <li>Records, in {@link FlowSample#recordFormats} order ({@code recordsListed} of them): {@code data_format},
 *       length, body. A known format is written from its holder (it must have its {@code has…} flag), with its
 *       length back-patched (every known body is a multiple of 4 bytes). Any other format takes the next kept raw
 *       body ({@link FlowSample#unknownBodies}, in order), written as the XDR {@code opaque<>} the record wrapper
 *       is: the body's own length, its bytes as they came, zero padding (so the raw body round-trips even when an
 *       agent declared a length that is not a multiple of 4).</li>
 *   <li>sampled_ethernet is always the standard 24-byte layout (MACs padded to 8 bytes), so a 20-byte record from an
 *       agent that does not pad (Huawei S6720) comes back as 24 bytes; sampled_header's header bytes, strings and
 *       opaques are zero-padded (XDR {@code opaque<>}); addresses take 0, 4 or 16 bytes after their type.</li>
 *   <li>u32 fields are written as their low 32 bits ({@link XdrWriter#u32(long)}).</li>
 * </ul>
 *
 * <h2>Samples that are refused</h2>
 * A sample the encoder cannot write faithfully is refused as a whole ({@link #encodedBytes} returns -1 and
 * {@link #encode} returns false without writing), rather than written with records silently missing:
 * <ul>
 *   <li>records the holder does not list: {@code recordCount > recordsListed} (a decoded sample with more than
 *       {@link FlowSample#MAX_RECORDS_LISTED} records);</li>
 *   <li>unknown records that were counted but not kept ({@code unknownRecords > }{@link FlowSample#MAX_UNKNOWN_KEPT}),
 *       or unknown formats in {@code recordFormats} that do not match {@code unknownFormats} one for one;</li>
 *   <li>records that failed to decode ({@code recordErrors > 0}) or known records that appeared twice
 *       ({@code duplicateRecords > 0}: only the last one was kept); a listed known format without its flag;</li>
 *   <li>values the chosen encoding cannot carry: a compact (0:1) source_id type above 255 or index above
 *       0xFFFFFF, a compact interface format above 3 or value above 0x3FFFFFFF (use 0:3, spec §4: never mask); a
 *       0:5 sample with interface format bits or a reason outside 0..0xFFFFFFFF; an unknown {@code kind};</li>
 *   <li>anything the decoder would reject: an address type other than 0/1/2, a sampled_ipv4/ipv6 address of the
 *       other family, a string longer than {@link FlowRecords#MAX_STRING}, a stack deeper than
 *       {@link FlowRecords#MAX_STACK}, AS-path segment lengths that do not add up to {@code asPathLength}, more
 *       segments or communities than the holders hold.</li>
 * </ul>
 * Callers tell a refusal from a full buffer with {@link #encodedBytes}: -1 means refused, anything else is the room
 * the sample needs. {@code recordsListed} says what is written: a {@code recordCount} below it (a hand-filled holder
 * that never set it) is ignored, and so is {@link FlowSample#expanded} ({@code kind} alone picks the encoding).
 *
 * <p>The size is computed and checked against the writer's remaining capacity before the first byte is written, so
 * a sample that does not fit leaves the writer exactly as it was (the outcome of rolling back to its mark).
 *
 * <p>Stateless, thread-safe and allocation-free (the holder and the writer are the caller's).
 */
public final class FlowSampleEncoder {
    private FlowSampleEncoder() {}

    /** Fixed part of flow_sample (0:1) in bytes: 7 words + the record count. */
    public static final int FLOW_SAMPLE_FIXED_BYTES = 32;
    /** Fixed part of flow_sample_expanded (0:3) in bytes: 10 words + the record count. */
    public static final int FLOW_SAMPLE_EXPANDED_FIXED_BYTES = 44;
    /** Fixed part of discarded_packet (0:5) in bytes: 7 words + the record count. */
    public static final int DISCARDED_PACKET_FIXED_BYTES = 32;

    private static final long U32 = 0xFFFFFFFFL;

    /**
     * Writes {@code s} at the writer's position: the sample's data_format and back-patched length, its fixed part
     * in the encoding {@code s.kind} names, then its records in {@code recordFormats} order.
     *
     * @param s the sample (a decoded holder or one filled by hand; its views must still be valid)
     * @param w the writer; on success its position has moved by {@link #encodedBytes(FlowSample)}
     * @return true if written; false if the sample does not fit the writer's remaining capacity, is refused (see
     *         the class comment), or the writer had already overflowed — then nothing is written and the writer is
     *         back at the position it had (its overflow flag untouched)
     */
    public static boolean encode(FlowSample s, XdrWriter w) {
        if (w.overflow()) {
            return false;
        }
        int size = encodedBytes(s);
        int mark = w.mark();
        if (size < 0 || size > w.capacity() - mark) {
            return false;
        }
        writeSample(s, w);
        if (w.overflow() || w.position() - mark != size) {
            // Cannot happen unless encodedBytes and the writers disagree: a bug, never a bad input.
            int wrote = w.position() - mark;
            w.reset(mark);
            throw new IllegalStateException("flow sample encoder wrote " + wrote + " bytes, sized " + size);
        }
        return true;
    }

    /**
     * Size of {@code s} on the wire, for budget checks before {@link #encode} ({@code DatagramBuilder.fits}).
     *
     * @param s the sample
     * @return bytes the whole sample takes (8-byte data_format/length tag included), or -1 if the sample would be
     *         refused (see the class comment)
     */
    public static int encodedBytes(FlowSample s) {
        int fixed;
        switch (s.kind) {
            case SflowFormats.FLOW_SAMPLE -> {
                if (s.sourceIdType < 0 || s.sourceIdType > 0xFF || s.sourceIdIndex < 0 || s.sourceIdIndex > 0xFFFFFF
                        || !compactInterface(s.inputFormat, s.input) || !compactInterface(s.outputFormat, s.output)) {
                    return -1;
                }
                fixed = FLOW_SAMPLE_FIXED_BYTES;
            }
            case SflowFormats.FLOW_SAMPLE_EXPANDED -> fixed = FLOW_SAMPLE_EXPANDED_FIXED_BYTES;
            case SflowFormats.DISCARDED_PACKET -> {
                if (s.inputFormat != 0 || s.outputFormat != 0 || s.reason < 0 || s.reason > U32) {
                    return -1;
                }
                fixed = DISCARDED_PACKET_FIXED_BYTES;
            }
            default -> {
                return -1;
            }
        }
        int n = s.recordsListed;
        if (n < 0 || n > FlowSample.MAX_RECORDS_LISTED || s.recordCount > n || s.recordErrors != 0
                || s.duplicateRecords != 0 || s.unknownRecords < 0 || s.unknownRecords > FlowSample.MAX_UNKNOWN_KEPT) {
            return -1;
        }
        long total = 8L + fixed;
        int unknown = 0;
        for (int i = 0; i < n; i++) {
            int format = s.recordFormats[i];
            int body = knownBodyBytes(s, format);
            if (body == UNKNOWN_FORMAT) {
                if (unknown >= s.unknownRecords || s.unknownFormats[unknown] != format) {
                    return -1;
                }
                body = pad4(s.unknownBodies[unknown].length);
                unknown++;
            }
            if (body < 0) {
                return -1;
            }
            total += 8L + body;
        }
        if (unknown != s.unknownRecords || total > Integer.MAX_VALUE) {
            return -1;
        }
        return (int) total;
    }

    private static boolean compactInterface(int format, long value) {
        return format >= 0 && format <= 3 && value >= 0 && value <= 0x3FFFFFFFL;
    }

    /** Marker from {@link #knownBodyBytes}: not a format the decoder decodes. */
    private static final int UNKNOWN_FORMAT = Integer.MIN_VALUE;

    /** @return body bytes of a known record, -1 if it cannot be written, {@link #UNKNOWN_FORMAT} for other formats */
    private static int knownBodyBytes(FlowSample s, int format) {
        return switch (format) {
            case SflowFormats.SAMPLED_HEADER -> s.hasSampledHeader && s.sampledHeader.header.length >= 0
                    ? 16 + pad4(s.sampledHeader.header.length) : -1;
            case SflowFormats.SAMPLED_ETHERNET -> s.hasSampledEthernet ? 24 : -1;
            case SflowFormats.SAMPLED_IPV4 -> s.hasSampledIpv4 && ipFamily(s.sampledIpv4, SflowFormats.ADDRESS_IPV4)
                    ? 32 : -1;
            case SflowFormats.SAMPLED_IPV6 -> s.hasSampledIpv6 && ipFamily(s.sampledIpv6, SflowFormats.ADDRESS_IPV6)
                    ? 56 : -1;
            case SflowFormats.EXTENDED_SWITCH -> s.hasExtendedSwitch ? 16 : -1;
            case SflowFormats.EXTENDED_ROUTER -> s.hasExtendedRouter
                    ? sum(address(s.extendedRouter.nextHop), 8) : -1;
            case SflowFormats.EXTENDED_GATEWAY -> s.hasExtendedGateway ? gatewayBytes(s.extendedGateway) : -1;
            case SflowFormats.EXTENDED_USER -> s.hasExtendedUser
                    ? sum(sum(string(s.extendedUser.srcUser), string(s.extendedUser.dstUser)), 8) : -1;
            case SflowFormats.EXTENDED_URL -> s.hasExtendedUrl
                    ? sum(sum(string(s.extendedUrl.url), string(s.extendedUrl.host)), 4) : -1;
            case SflowFormats.EXTENDED_MPLS -> s.hasExtendedMpls
                    ? sum(address(s.extendedMpls.nextHop),
                            sum(stack(s.extendedMpls.inDepth), stack(s.extendedMpls.outDepth))) : -1;
            case SflowFormats.EXTENDED_NAT -> s.hasExtendedNat
                    ? sum(address(s.extendedNat.src), address(s.extendedNat.dst)) : -1;
            case SflowFormats.EXTENDED_VLAN_TUNNEL -> s.hasExtendedVlanTunnel ? stack(s.extendedVlanTunnel.depth) : -1;
            case SflowFormats.EXTENDED_EGRESS_QUEUE -> s.hasEgressQueue ? 4 : -1;
            case SflowFormats.EXTENDED_ACL -> s.hasExtendedAcl ? sum(string(s.extendedAcl.name), 8) : -1;
            case SflowFormats.EXTENDED_FUNCTION -> s.hasFunction ? string(s.function) : -1;
            case SflowFormats.EXTENDED_TRANSIT -> s.hasTransitDelay ? 4 : -1;
            case SflowFormats.EXTENDED_QUEUE -> s.hasQueueDepth ? 4 : -1;
            case SflowFormats.EXTENDED_HW_TRAP -> s.hasHwTrap ? sum(string(s.hwTrap.group), string(s.hwTrap.trap)) : -1;
            case SflowFormats.EXTENDED_LINUX_DROP_REASON -> s.hasLinuxDropReason ? string(s.linuxDropReason) : -1;
            case SflowFormats.EXTENDED_TIMESTAMP -> s.hasTimestamp ? 8 : -1;
            default -> UNKNOWN_FORMAT;
        };
    }

    /** @return a + b, or -1 if either is -1. */
    private static int sum(int a, int b) {
        return a < 0 || b < 0 ? -1 : a + b;
    }

    private static boolean ipFamily(SampledIp ip, int type) {
        return ip.src.type == type && ip.dst.type == type;
    }

    /** @return bytes of an sFlow address (type word + 0/4/16), or -1 for a type the decoder rejects. */
    private static int address(SflowAddress a) {
        return switch (a.type) {
            case SflowFormats.ADDRESS_UNKNOWN -> 4;
            case SflowFormats.ADDRESS_IPV4 -> 8;
            case SflowFormats.ADDRESS_IPV6 -> 20;
            default -> -1;
        };
    }

    /** @return bytes of a {@code string<>} (length word + padded bytes), or -1 beyond the decoder's cap. */
    private static int string(ByteView v) {
        return v.length < 0 || v.length > FlowRecords.MAX_STRING ? -1 : 4 + pad4(v.length);
    }

    /** @return bytes of a {@code u32<>} label/VLAN stack, or -1 beyond the holders' capacity. */
    private static int stack(int depth) {
        return depth < 0 || depth > FlowRecords.MAX_STACK ? -1 : 4 + 4 * depth;
    }

    private static int gatewayBytes(ExtendedGateway g) {
        int next = address(g.nextHop);
        if (next < 0 || g.segments < 0 || g.segments > FlowRecords.MAX_AS_SEGMENTS || g.asPathLength < 0
                || g.asPathLength > FlowRecords.MAX_AS_PATH || g.communityCount < 0
                || g.communityCount > FlowRecords.MAX_AS_PATH) {
            return -1;
        }
        int asns = 0;
        for (int i = 0; i < g.segments; i++) {
            int len = g.segmentLength[i];
            if (len < 0 || len > g.asPathLength - asns) {
                return -1;
            }
            asns += len;
        }
        if (asns != g.asPathLength) {
            return -1;
        }
        // nexthop, as, src_as, src_peer_as, segment count, per segment (type, count, ASNs), communities<>, localpref
        return next + 16 + 8 * g.segments + 4 * asns + 4 + 4 * g.communityCount + 4;
    }

    // ---- writing (sizes and validity were checked by encodedBytes; the buffer has room) ----

    private static void writeSample(FlowSample s, XdrWriter w) {
        w.u32(s.kind);
        int sampleLength = w.beginLength();
        w.u32(s.sequenceNumber);
        switch (s.kind) {
            case SflowFormats.FLOW_SAMPLE -> {
                w.u32((long) s.sourceIdType << 24 | s.sourceIdIndex);
                w.u32(s.samplingRate);
                w.u32(s.samplePool);
                w.u32(s.drops);
                w.u32((long) s.inputFormat << 30 | s.input);
                w.u32((long) s.outputFormat << 30 | s.output);
            }
            case SflowFormats.FLOW_SAMPLE_EXPANDED -> {
                w.u32(s.sourceIdType);
                w.u32(s.sourceIdIndex);
                w.u32(s.samplingRate);
                w.u32(s.samplePool);
                w.u32(s.drops);
                w.u32(s.inputFormat);
                w.u32(s.input);
                w.u32(s.outputFormat);
                w.u32(s.output);
            }
            default -> { // DISCARDED_PACKET (sflow_drops.txt): plain ifIndexes, no format bits
                w.u32(s.sourceIdType);
                w.u32(s.sourceIdIndex);
                w.u32(s.drops);
                w.u32(s.input);
                w.u32(s.output);
                w.u32(s.reason);
            }
        }
        int n = s.recordsListed;
        w.u32(n);
        int unknown = 0;
        for (int i = 0; i < n; i++) {
            int format = s.recordFormats[i];
            w.u32(format);
            if (isKnown(format)) {
                int recordLength = w.beginLength();
                writeKnownRecord(s, format, w);
                w.endLength(recordLength);
            } else {
                // The record wrapper is XDR opaque<>: the kept body's own length, its bytes, zero padding. Bodies
                // are multiples of 4 from any agent that follows the spec; an odd declared length stays as declared.
                w.opaque(s.unknownBodies[unknown++]);
            }
        }
        w.endLength(sampleLength);
    }

    /** @return true for a flow record format {@link SflowDecoder} decodes into a holder. */
    private static boolean isKnown(int format) {
        return switch (format) {
            case SflowFormats.SAMPLED_HEADER, SflowFormats.SAMPLED_ETHERNET, SflowFormats.SAMPLED_IPV4,
                    SflowFormats.SAMPLED_IPV6, SflowFormats.EXTENDED_SWITCH, SflowFormats.EXTENDED_ROUTER,
                    SflowFormats.EXTENDED_GATEWAY, SflowFormats.EXTENDED_USER, SflowFormats.EXTENDED_URL,
                    SflowFormats.EXTENDED_MPLS, SflowFormats.EXTENDED_NAT, SflowFormats.EXTENDED_VLAN_TUNNEL,
                    SflowFormats.EXTENDED_EGRESS_QUEUE, SflowFormats.EXTENDED_ACL, SflowFormats.EXTENDED_FUNCTION,
                    SflowFormats.EXTENDED_TRANSIT, SflowFormats.EXTENDED_QUEUE, SflowFormats.EXTENDED_HW_TRAP,
                    SflowFormats.EXTENDED_LINUX_DROP_REASON, SflowFormats.EXTENDED_TIMESTAMP -> true;
            default -> false;
        };
    }

    /** Writes the body of a known record (see {@link #isKnown}). */
    private static void writeKnownRecord(FlowSample s, int format, XdrWriter w) {
        switch (format) {
            case SflowFormats.SAMPLED_HEADER -> {
                var h = s.sampledHeader;
                w.u32(h.headerProtocol);
                w.u32(h.frameLength);
                w.u32(h.stripped);
                w.opaque(h.header);
            }
            case SflowFormats.SAMPLED_ETHERNET -> {
                var e = s.sampledEthernet;
                w.u32(e.length);
                w.mac(e.srcMac);
                w.mac(e.dstMac);
                w.u32(e.type);
            }
            case SflowFormats.SAMPLED_IPV4 -> sampledIp(s.sampledIpv4, 4, w);
            case SflowFormats.SAMPLED_IPV6 -> sampledIp(s.sampledIpv6, 16, w);
            case SflowFormats.EXTENDED_SWITCH -> {
                var x = s.extendedSwitch;
                w.u32(x.srcVlan);
                w.u32(x.srcPriority);
                w.u32(x.dstVlan);
                w.u32(x.dstPriority);
            }
            case SflowFormats.EXTENDED_ROUTER -> {
                var x = s.extendedRouter;
                w.address(x.nextHop);
                w.u32(x.srcMaskLen);
                w.u32(x.dstMaskLen);
            }
            case SflowFormats.EXTENDED_GATEWAY -> gateway(s.extendedGateway, w);
            case SflowFormats.EXTENDED_USER -> {
                var u = s.extendedUser;
                w.u32(u.srcCharset);
                w.opaque(u.srcUser);
                w.u32(u.dstCharset);
                w.opaque(u.dstUser);
            }
            case SflowFormats.EXTENDED_URL -> {
                var u = s.extendedUrl;
                w.u32(u.direction);
                w.opaque(u.url);
                w.opaque(u.host);
            }
            case SflowFormats.EXTENDED_MPLS -> {
                var m = s.extendedMpls;
                w.address(m.nextHop);
                w.u32Array(m.inStack, m.inDepth);
                w.u32Array(m.outStack, m.outDepth);
            }
            case SflowFormats.EXTENDED_NAT -> {
                w.address(s.extendedNat.src);
                w.address(s.extendedNat.dst);
            }
            case SflowFormats.EXTENDED_VLAN_TUNNEL -> w.u32Array(s.extendedVlanTunnel.stack,
                    s.extendedVlanTunnel.depth);
            case SflowFormats.EXTENDED_EGRESS_QUEUE -> w.u32(s.egressQueue);
            case SflowFormats.EXTENDED_ACL -> {
                var a = s.extendedAcl;
                w.u32(a.number);
                w.opaque(a.name);
                w.u32(a.direction);
            }
            case SflowFormats.EXTENDED_FUNCTION -> w.opaque(s.function);
            case SflowFormats.EXTENDED_TRANSIT -> w.u32(s.transitDelayNanos);
            case SflowFormats.EXTENDED_QUEUE -> w.u32(s.queueDepthBytes);
            case SflowFormats.EXTENDED_HW_TRAP -> {
                w.opaque(s.hwTrap.group);
                w.opaque(s.hwTrap.trap);
            }
            case SflowFormats.EXTENDED_LINUX_DROP_REASON -> w.opaque(s.linuxDropReason);
            case SflowFormats.EXTENDED_TIMESTAMP -> w.u64(s.timestampNanos);
            default -> throw new IllegalStateException("not a known flow record: " + format);
        }
    }

    private static void sampledIp(SampledIp ip, int addrLen, XdrWriter w) {
        w.u32(ip.length);
        w.u32(ip.protocol);
        w.fixed(ip.src.bytes, 0, addrLen);
        w.fixed(ip.dst.bytes, 0, addrLen);
        w.u32(ip.srcPort);
        w.u32(ip.dstPort);
        w.u32(ip.tcpFlags);
        w.u32(ip.tos);
    }

    private static void gateway(ExtendedGateway g, XdrWriter w) {
        w.address(g.nextHop);
        w.u32(g.as);
        w.u32(g.srcAs);
        w.u32(g.srcPeerAs);
        w.u32(g.segments);
        int k = 0;
        for (int i = 0; i < g.segments; i++) {
            int len = g.segmentLength[i];
            w.u32(g.segmentType[i]);
            w.u32(len);
            for (int j = 0; j < len; j++) {
                w.u32(g.asPath[k++]);
            }
        }
        w.u32Array(g.communities, g.communityCount);
        w.u32(g.localPref);
    }
}
