package io.vecflow.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Two hand-built sFlow v5 datagrams for the decoder's seed corpus, covering structures the captures in testdata/ do
 * not have: every flow record vecflow decodes (sflow_version_5.txt "Flow Data", sflow_drops.txt, host-sflow
 * {@code sflow.h} 1041–1043), a vendor record and a vendor sample (skipped by length), an IPv6 agent, a discard
 * sample and a counters sample with several counter records. Written with a tiny XDR writer of its own so that the
 * seeds do not depend on the encoder of the module under test.
 */
final class SyntheticSflow {
    private SyntheticSflow() {}

    /** Big-endian XDR writer: u32, u64, fixed bytes, opaque/string with padding, nested length-prefixed blocks. */
    static final class Xdr {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Xdr u32(long v) {
            out.write((int) (v >>> 24));
            out.write((int) (v >>> 16));
            out.write((int) (v >>> 8));
            out.write((int) v);
            return this;
        }

        Xdr u64(long v) {
            return u32(v >>> 32).u32(v);
        }

        Xdr bytes(byte[] b) {
            out.writeBytes(b);
            return this;
        }

        Xdr pad() {
            while (out.size() % 4 != 0) {
                out.write(0);
            }
            return this;
        }

        Xdr opaque(byte[] b) {
            return u32(b.length).bytes(b).pad();
        }

        Xdr string(String s) {
            return opaque(s.getBytes(StandardCharsets.UTF_8));
        }

        Xdr ipv4(int a, int b, int c, int d) {
            return u32(1).bytes(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
        }

        Xdr ipv6Address() {
            return u32(2).bytes(ipv6Bytes());
        }

        /** Appends {@code format}, the length of {@code body} and the body (a record or a sample). */
        Xdr block(int format, Xdr body) {
            return u32(format).u32(body.out.size()).bytes(body.out.toByteArray());
        }

        byte[] toArray() {
            return out.toByteArray();
        }
    }

    static byte[] ipv6Bytes() {
        byte[] a = new byte[16];
        a[0] = 0x20;
        a[1] = 0x01;
        a[2] = 0x0d;
        a[3] = (byte) 0xb8;
        a[15] = 1;
        return a;
    }

    /** A 42-byte Ethernet + IPv4 + UDP header (192.0.2.1:5353 → 198.51.100.7:53). */
    static byte[] ethernetIpv4Udp() {
        Xdr h = new Xdr();
        h.bytes(new byte[] {0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00});
        h.bytes(new byte[] {0x45, 0, 0, 60, 0x12, 0x34, 0x40, 0, 64, 17, 0, 0, (byte) 192, 0, 2, 1, (byte) 198, 51,
                100, 7});
        h.bytes(new byte[] {0x14, (byte) 0xe9, 0, 53, 0, 40, 0, 0});
        return h.toArray();
    }

    static Xdr datagramHeader(boolean ipv6Agent, int samples) {
        Xdr d = new Xdr().u32(5);
        if (ipv6Agent) {
            d.ipv6Address();
        } else {
            d.ipv4(192, 0, 2, 10);
        }
        return d.u32(7).u32(4242).u32(123_456).u32(samples);
    }

    /** IPv4-agent datagram: an expanded flow sample with all decoded flow records and a vendor one; a vendor sample. */
    static byte[] allFlowRecords() {
        Xdr s = new Xdr();
        s.u32(99).u32(0).u32(0x01234567L); // sequence, source_id type and index (expanded: index > 2^24)
        s.u32(1000).u32(123_456_789).u32(3); // sampling_rate, sample_pool, drops
        s.u32(0).u32(29001).u32(2).u32(7); // input format/value, output format 2 (multiple), 7 interfaces
        Xdr[] records = new Xdr[22];
        int[] formats = new int[22];
        int n = 0;
        byte[] hdr = ethernetIpv4Udp();
        formats[n] = 1;
        records[n++] = new Xdr().u32(1).u32(82).u32(4).opaque(hdr); // sampled_header, Ethernet
        formats[n] = 2;
        records[n++] = new Xdr().u32(78).bytes(new byte[] {2, 0, 0, 0, 0, 1, 0, 0}) // sampled_ethernet, 24 bytes
                .bytes(new byte[] {2, 0, 0, 0, 0, 2, 0, 0}).u32(0x0800);
        formats[n] = 3;
        records[n++] = new Xdr().u32(60).u32(17).bytes(new byte[] {(byte) 192, 0, 2, 1})
                .bytes(new byte[] {(byte) 198, 51, 100, 7}).u32(5353).u32(53).u32(0).u32(0x10);
        formats[n] = 4;
        records[n++] = new Xdr().u32(80).u32(6).bytes(ipv6Bytes()).bytes(ipv6Bytes()).u32(443).u32(50000).u32(0x12)
                .u32(0);
        formats[n] = 1001;
        records[n++] = new Xdr().u32(10).u32(1).u32(20).u32(0xFFFFFFFFL);
        formats[n] = 1002;
        records[n++] = new Xdr().ipv4(192, 0, 2, 254).u32(24).u32(16);
        formats[n] = 1003;
        records[n++] = new Xdr().ipv6Address().u32(64500).u32(64501).u32(64502)
                .u32(2).u32(2).u32(3).u32(64510).u32(64511).u32(64512).u32(1).u32(1).u32(64520) // 2 AS-path segments
                .u32(2).u32(0xFDE80001L).u32(0xFDE80002L).u32(100); // communities, localpref
        formats[n] = 1004;
        records[n++] = new Xdr().u32(106).string("alice").u32(106).string("bob@example.org");
        formats[n] = 1005;
        records[n++] = new Xdr().u32(2).string("/index.html?q=1").string("www.example.org");
        formats[n] = 1006;
        records[n++] = new Xdr().ipv6Address().u32(2).u32(0x00100140L).u32(0x00200140L).u32(1).u32(0x00300140L);
        formats[n] = 1007;
        records[n++] = new Xdr().ipv4(203, 0, 113, 9).ipv6Address();
        formats[n] = 1012;
        records[n++] = new Xdr().u32(2).u32(0x88A80064L).u32(0x810000C8L);
        formats[n] = 1036;
        records[n++] = new Xdr().u32(42);
        formats[n] = 1037;
        records[n++] = new Xdr().u32(7).string("deny-all").u32(1);
        formats[n] = 1038;
        records[n++] = new Xdr().string("ip_rcv_core");
        formats[n] = 1039;
        records[n++] = new Xdr().u32(1500);
        formats[n] = 1040;
        records[n++] = new Xdr().u32(65536);
        formats[n] = 1041;
        records[n++] = new Xdr().string("l3_drops").string("blackhole_route");
        formats[n] = 1042;
        records[n++] = new Xdr().string("SKB_DROP_REASON_NO_SOCKET");
        formats[n] = 1043;
        records[n++] = new Xdr().u64(1_700_000_000_123_456_789L);
        formats[n] = 4413 << 12 | 7; // a vendor record: kept raw, 5 bytes + 3 padding
        records[n++] = new Xdr().bytes(new byte[] {1, 2, 3, 4, 5});
        s.u32(n);
        for (int i = 0; i < n; i++) {
            int len = records[i].out.size();
            records[i].pad();
            s.u32(formats[i]).u32(len).bytes(records[i].toArray()); // declared length without the padding
        }
        Xdr vendorSample = new Xdr().u32(1).u32(2).u32(3);
        return datagramHeader(false, 2).block(3, s).block(4413 << 12 | 1, vendorSample).toArray();
    }

    /** One IPv6-agent datagram: a discarded_packet sample and an expanded counters sample. */
    static byte[] discardAndCounters() {
        byte[] ipHeader = java.util.Arrays.copyOfRange(ethernetIpv4Udp(), 14, 42);
        // seq, source type and index, drops, in, out, reason
        Xdr discard = new Xdr().u32(2).u32(0).u32(1).u32(256).u32(1).u32(2).u32(1)
                .u32(3)
                .block(1, new Xdr().u32(11).u32(28).u32(0).opaque(ipHeader)) // sampled_header, IPv4
                .block(1036, new Xdr().u32(3))
                .block(1042, new Xdr().string("NETFILTER_DROP"));
        Xdr ifCounters = new Xdr().u32(3).u32(6).u64(10_000_000_000L).u32(1).u32(3).u64(123_456_789_012L);
        for (int i = 0; i < 6; i++) {
            ifCounters.u32(i);
        }
        ifCounters.u64(987_654_321L);
        for (int i = 0; i < 7; i++) {
            ifCounters.u32(i);
        }
        Xdr ethernet = new Xdr();
        for (int i = 0; i < 13; i++) {
            ethernet.u32(i);
        }
        Xdr hostDescr = new Xdr().string("host-1").bytes(new byte[16]).u32(3).u32(2).string("6.1.0");
        Xdr counters = new Xdr().u32(17).u32(0).u32(3) // seq, source type, index
                .u32(5)
                .block(1, ifCounters)
                .block(2, ethernet)
                .block(1005, new Xdr().string("eth0"))
                .block(2000, hostDescr)
                .block(4413 << 12 | 3, new Xdr().u32(1).u32(2)); // vendor counter record
        return datagramHeader(true, 2).block(5, discard).block(4, counters).toArray();
    }
}
