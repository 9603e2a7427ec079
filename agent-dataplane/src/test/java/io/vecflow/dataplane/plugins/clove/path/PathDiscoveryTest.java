package io.vecflow.dataplane.plugins.clove.path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.dataplane.plugins.clove.path.PathDiscovery.Kind;
import io.vecflow.dataplane.plugins.clove.path.PathDiscovery.Reply;
import io.vecflow.dataplane.plugins.clove.path.PathDiscovery.ReplyFormatException;
import io.vecflow.packet.LinkType;
import io.vecflow.packet.PacketParser;
import io.vecflow.packet.ParsedPacket;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/**
 * Probe planning and ICMP/ICMPv6 reply parsing. Replies are assembled byte by byte here (RFC 791, 792, 8200, 4443,
 * 768 layouts) and first checked with the packet module's {@link PacketParser}, so the test does not rest on the
 * code under test for the outer headers.
 */
class PathDiscoveryTest {
    static byte[] ip(String s) throws Exception {
        return InetAddress.getByName(s).getAddress();
    }

    /** Inner probe: IPv4 header (TTL as expired: 1) + the first 8 UDP bytes. */
    static byte[] probe4(String src, String dst, int sport, int dport, int ttlSent) throws Exception {
        return probe4(src, dst, sport, dport, ttlSent, 0x1234);
    }

    /** {@link #probe4} with Identification {@code id}. */
    static byte[] probe4(String src, String dst, int sport, int dport, int ttlSent, int id) throws Exception {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        int udpLen = PathDiscovery.udpLength(ttlSent);
        o.writeBytes(new byte[] {0x45, 0, (byte) ((20 + udpLen) >> 8), (byte) (20 + udpLen), (byte) (id >> 8),
                (byte) id, 0x40, 0, 1, 17, 0, 0});
        o.writeBytes(ip(src));
        o.writeBytes(ip(dst));
        o.writeBytes(new byte[] {(byte) (sport >> 8), (byte) sport, (byte) (dport >> 8), (byte) dport,
                (byte) (udpLen >> 8), (byte) udpLen, 0, 0});
        return o.toByteArray();
    }

    /** Raw IPv4 ICMP message from {@code router} to the prober quoting {@code quote}. */
    static byte[] icmp4(String router, String prober, int type, int code, byte[] quote) throws Exception {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        int total = 20 + 8 + quote.length;
        o.writeBytes(new byte[] {0x45, (byte) 0xC0, (byte) (total >> 8), (byte) total, 0, 0, 0, 0, 64, 1, 0, 0});
        o.writeBytes(ip(router));
        o.writeBytes(ip(prober));
        o.writeBytes(new byte[] {(byte) type, (byte) code, 0, 0, 0, 0, 0, 0});
        o.writeBytes(quote);
        return o.toByteArray();
    }

    /** Ethernet + IPv6 ICMPv6 message quoting an IPv6 probe (optionally with a Destination Options header). */
    static byte[] icmp6(String router, String prober, int type, int code, String probeSrc, String probeDst,
                        int sport, int dport, int ttlSent, boolean destOpts) throws Exception {
        ByteArrayOutputStream q = new ByteArrayOutputStream();
        int udpLen = PathDiscovery.udpLength(ttlSent);
        int innerPayload = udpLen + (destOpts ? 8 : 0);
        q.writeBytes(new byte[] {0x60, 0, 0, 0, (byte) (innerPayload >> 8), (byte) innerPayload,
                (byte) (destOpts ? 60 : 17), 1});
        q.writeBytes(ip(probeSrc));
        q.writeBytes(ip(probeDst));
        if (destOpts) {
            q.writeBytes(new byte[] {17, 0, 1, 4, 0, 0, 0, 0}); // next UDP, len 0 (8 bytes), PadN
        }
        q.writeBytes(new byte[] {(byte) (sport >> 8), (byte) sport, (byte) (dport >> 8), (byte) dport,
                (byte) (udpLen >> 8), (byte) udpLen, 0, 0});
        byte[] quote = q.toByteArray();
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        o.writeBytes(new byte[] {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, (byte) 0x86, (byte) 0xDD});
        int plen = 8 + quote.length;
        o.writeBytes(new byte[] {0x60, 0, 0, 0, (byte) (plen >> 8), (byte) plen, 58, 64});
        o.writeBytes(ip(router));
        o.writeBytes(ip(prober));
        o.writeBytes(new byte[] {(byte) type, (byte) code, 0, 0, 0, 0, 0, 0});
        o.writeBytes(quote);
        return o.toByteArray();
    }

    @Test
    void icmpv4TimeExceededQuote() throws Exception {
        byte[] b = icmp4("10.0.0.254", "10.0.0.1", 11, 0, probe4("10.0.0.1", "10.0.1.9", 49157, 4789, 3));
        ParsedPacket p = new ParsedPacket();
        assertThat(PacketParser.parse(b, 0, b.length, LinkType.RAW, p)).isEqualTo(ParsedPacket.OK);
        assertThat(p.protocol()).isEqualTo(1);
        assertThat(p.icmpType()).isEqualTo(11);
        assertThat(p.srcAddressString()).isEqualTo("10.0.0.254");
        assertThat(p.l4Offset()).isEqualTo(20);

        Reply r = PathDiscovery.parseReply(b, 0, b.length, LinkType.RAW, p);
        assertThat(r).isEqualTo(new Reply(Kind.HOP, "10.0.0.254", 49157, 4789, 3, "10.0.1.9", 0x1234));

        byte[] reached = icmp4("10.0.1.9", "10.0.0.1", 3, 3, probe4("10.0.0.1", "10.0.1.9", 49157, 4789, 4));
        assertThat(PathDiscovery.parseReply(reached, 0, reached.length, LinkType.RAW, p).kind())
                .isEqualTo(Kind.REACHED);
    }

    @Test
    void icmpv6TimeExceededQuoteWithExtensionHeader() throws Exception {
        for (boolean ext : new boolean[] {false, true}) {
            byte[] b = icmp6("fd00:1::1", "fd00::10", 3, 0, "fd00::10", "fd00:9::9", 50000, 6081, 2, ext);
            ParsedPacket p = new ParsedPacket();
            assertThat(PacketParser.parse(b, 0, b.length, LinkType.ETHERNET, p)).isEqualTo(ParsedPacket.OK);
            assertThat(p.protocol()).isEqualTo(58);
            assertThat(p.icmpType()).isEqualTo(3);
            Reply r = PathDiscovery.parseReply(b, 0, b.length, LinkType.ETHERNET, p);
            assertThat(r).isEqualTo(new Reply(Kind.HOP, "fd00:1::1", 50000, 6081, 2, "fd00:9::9", -1));
        }
        byte[] reached = icmp6("fd00:9::9", "fd00::10", 1, 4, "fd00::10", "fd00:9::9", 50000, 6081, 5, false);
        Reply r = PathDiscovery.parseReply(reached, 0, reached.length, LinkType.ETHERNET, new ParsedPacket());
        assertThat(r.kind()).isEqualTo(Kind.REACHED);
        assertThat(r.ttl()).isEqualTo(5);
    }

    @Test
    void errorsNameTheOffset() throws Exception {
        ParsedPacket p = new ParsedPacket();
        byte[] full = icmp4("10.0.0.254", "10.0.0.1", 11, 0, probe4("10.0.0.1", "10.0.1.9", 49157, 4789, 3));
        // capture cut inside the quoted UDP header (quote starts at 28, UDP at 48)
        assertThatThrownBy(() -> PathDiscovery.parseReply(full, 0, 52, LinkType.RAW, p))
                .isInstanceOf(ReplyFormatException.class)
                .hasMessage("quoted UDP header truncated: needs 8 bytes, 4 captured (offset 48)")
                .extracting(e -> ((ReplyFormatException) e).offset()).isEqualTo(48);
        assertThatThrownBy(() -> PathDiscovery.parseReply(full, 0, 40, LinkType.RAW, p))
                .hasMessage("quoted IPv4 header truncated: needs 20 bytes, 12 captured (offset 28)");
        byte[] echo = icmp4("10.0.0.254", "10.0.0.1", 0, 0, new byte[8]);
        assertThatThrownBy(() -> PathDiscovery.parseReply(echo, 0, echo.length, LinkType.RAW, p))
                .hasMessage("ICMPv4 type 0 code 0 is not Time Exceeded or Port Unreachable (offset 20)");
        byte[] tcp = probe4("10.0.0.1", "10.0.1.9", 1, 2, 3);
        tcp[9] = 6;
        byte[] tcpQuote = icmp4("10.0.0.254", "10.0.0.1", 11, 0, tcp);
        assertThatThrownBy(() -> PathDiscovery.parseReply(tcpQuote, 0, tcpQuote.length, LinkType.RAW, p))
                .hasMessage("quoted IPv4 protocol 6 is not UDP (17) (offset 37)");
        byte[] notProbe = icmp4("10.0.0.254", "10.0.0.1", 11, 0, probe4("10.0.0.1", "10.0.1.9", 1, 2, 3));
        notProbe[48 + 5] = 8; // UDP Length 8: no payload, no TTL encoded
        assertThatThrownBy(() -> PathDiscovery.parseReply(notProbe, 0, notProbe.length, LinkType.RAW, p))
                .hasMessageContaining("UDP Length 8 does not encode a probe TTL").hasMessageEndingWith("(offset 52)");
        byte[] cut = icmp4("10.0.0.254", "10.0.0.1", 11, 0, probe4("10.0.0.1", "10.0.1.9", 1, 2, 3));
        assertThatThrownBy(() -> PathDiscovery.parseReply(cut, 0, 10, LinkType.RAW, p))
                .hasMessageStartingWith("outer headers:");
    }

    /** A 2-tier fabric with 4 spines; port → spine by a static hash; the prober keeps one port per spine. */
    @Test
    void discoversDistinctPaths() throws Exception {
        int[] candidates = new int[12];
        for (int i = 0; i < candidates.length; i++) {
            candidates[i] = 49152 + i;
        }
        PathDiscovery d = new PathDiscovery(candidates, 4, 0xFFF0);
        assertThat(d.probeCount()).isEqualTo(48);
        assertThat(d.probeId(0)).isEqualTo(0xFFF0);
        assertThat(d.probeId(47)).as("wraps").isEqualTo(0x001F);
        assertThat(d.probePort(0)).isEqualTo(49152);
        assertThat(d.probeTtl(0)).isEqualTo(1);
        assertThat(d.probePort(47)).isEqualTo(49163);
        assertThat(d.probeTtl(47)).isEqualTo(4);
        ParsedPacket p = new ParsedPacket();
        for (int i = 0; i < d.probeCount(); i++) {
            int port = d.probePort(i), ttl = d.probeTtl(i);
            int spine = (port * 7 + 3) % 4; // the fabric's ECMP choice (static hash)
            if (port == 49152 && ttl == 2) {
                continue; // a lost reply: this port's signature has a hole
            }
            String from = switch (ttl) {
                case 1 -> "10.0.0.254";
                case 2 -> "10.1." + spine + ".1";
                case 3 -> "10.0.1.254";
                default -> "10.0.1.9";
            };
            byte[] b = icmp4(from, "10.0.0.1", ttl == 4 ? 3 : 11, ttl == 4 ? 3 : 0,
                    probe4("10.0.0.1", "10.0.1.9", port, 4789, ttl, d.probeId(i)));
            assertThat(d.onReply(PathDiscovery.parseReply(b, 0, b.length, LinkType.RAW, p))).isTrue();
        }
        assertThat(d.accepted()).isEqualTo(47);
        assertThat(d.signature(49153)).isEqualTo("10.0.0.254 > 10.1.2.1 > 10.0.1.254 > dst"); // (49153·7+3) mod 4 = 2
        assertThat(d.signature(49152)).isEqualTo("10.0.0.254 > * > 10.0.1.254 > dst");
        int[] chosen = d.selectPorts(4);
        assertThat(chosen).hasSize(4);
        java.util.Set<Integer> spines = new java.util.HashSet<>();
        for (int port : chosen) {
            spines.add((port * 7 + 3) % 4);
        }
        assertThat(spines).containsExactlyInAnyOrder(0, 1, 2, 3);
        assertThat(chosen).doesNotContain(49152).containsExactly(49153, 49154, 49155, 49156);
        assertThat(d.selectPorts(6)).as("only 4 complete paths + the one with a hole").hasSize(5).contains(49152);
        // replies for ports or TTLs not probed are ignored
        assertThat(d.onReply(new Reply(Kind.HOP, "10.9.9.9", 1, 4789, 1, "10.0.1.9", d.probeId(0)))).isFalse();
        assertThat(d.onReply(new Reply(Kind.HOP, "10.9.9.9", 49153, 4789, 9, "10.0.1.9", d.probeId(4)))).isFalse();
        assertThat(d.unmatched()).isEqualTo(2);
        // a reply quoting another round's probe (another ID) for a probed port and TTL: counted, not recorded
        int stale = (d.probeId(5) + 1000) & 0xFFFF; // probe 5: port 49153, TTL 2
        assertThat(d.onReply(new Reply(Kind.HOP, "10.9.9.9", 49153, 4789, 2, "10.0.1.9", stale))).isFalse();
        assertThat(d.onReply(new Reply(Kind.HOP, "10.9.9.9", 49153, 4789, 2, "10.0.1.9", d.probeId(6)))).isFalse();
        assertThat(d.idMismatches()).isEqualTo(2);
        assertThat(d.unmatched()).isEqualTo(4);
        assertThat(d.signature(49153)).as("unchanged").isEqualTo("10.0.0.254 > 10.1.2.1 > 10.0.1.254 > dst");
        // an IPv6 quote has no Identification: port and TTL decide
        assertThat(d.onReply(new Reply(Kind.HOP, "fd00::1", 49153, 4789, 2, "fd00::9", -1))).isTrue();
        assertThat(new PathDiscovery(new int[] {1}, 4).probeId(0)).isBetween(0, 0xFFFF);
        assertThatThrownBy(() -> new PathDiscovery(new int[] {1}, 4, 0x10000)).hasMessageContaining("nonce");
        assertThatThrownBy(() -> new PathDiscovery(new int[] {1, 1}, 4)).hasMessageContaining("twice");
        assertThatThrownBy(() -> new PathDiscovery(new int[] {1}, 65)).hasMessageContaining("max TTL");
    }
}
