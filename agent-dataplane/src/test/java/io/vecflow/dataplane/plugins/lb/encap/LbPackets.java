package io.vecflow.dataplane.plugins.lb.encap;

import io.vecflow.packet.LinkType;
import io.vecflow.packet.PcapWriter;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Test frames (Ethernet II + IPv4/IPv6 + TCP/UDP with correct checksums) built byte by byte from the RFCs, a pcap
 * helper and a bounded tshark runner.
 */
public final class LbPackets {
    private LbPackets() {
    }

    public static byte[] v4(String a) {
        try {
            byte[] b = InetAddress.getByName(a).getAddress();
            if (b.length != 4) {
                throw new IllegalArgumentException(a);
            }
            return b;
        } catch (IOException e) {
            throw new IllegalArgumentException(a, e);
        }
    }

    public static int v4int(String a) {
        byte[] b = v4(a);
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF);
    }

    static byte[] v6(String a) {
        try {
            byte[] b = InetAddress.getByName(a).getAddress();
            if (b.length != 16) {
                throw new IllegalArgumentException(a);
            }
            return b;
        } catch (IOException e) {
            throw new IllegalArgumentException(a, e);
        }
    }

    static long hi(byte[] a16) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = v << 8 | (a16[i] & 0xFF);
        }
        return v;
    }

    static long lo(byte[] a16) {
        long v = 0;
        for (int i = 8; i < 16; i++) {
            v = v << 8 | (a16[i] & 0xFF);
        }
        return v;
    }

    /** Ethernet header (dst 02:00:00:00:00:01, src 02:00:00:00:00:02, optional 802.1Q tag); returns its length. */
    static int ethernet(byte[] f, int etherType, int vlan) {
        byte[] dst = {0x02, 0, 0, 0, 0, 0x01};
        byte[] src = {0x02, 0, 0, 0, 0, 0x02};
        System.arraycopy(dst, 0, f, 0, 6);
        System.arraycopy(src, 0, f, 6, 6);
        int p = 12;
        if (vlan >= 0) {
            f[p++] = (byte) 0x81;
            f[p++] = 0x00;
            f[p++] = (byte) (vlan >>> 8);
            f[p++] = (byte) vlan;
        }
        f[p++] = (byte) (etherType >>> 8);
        f[p++] = (byte) etherType;
        return p;
    }

    /**
     * Ethernet + IPv4 + TCP/UDP frame. {@code payloadLen} bytes of payload ('a'..'z' cycling); DF set when
     * {@code df}. tcpFlags used for TCP.
     */
    public static byte[] ipv4Frame(String src, String dst, int proto, int sport, int dport, int tcpFlags,
            int payloadLen, boolean df, int vlan) {
        int l4 = proto == 6 ? 20 : 8;
        int ipLen = 20 + l4 + payloadLen;
        int l2 = vlan >= 0 ? 18 : 14;
        byte[] f = new byte[Math.max(60, l2 + ipLen)];
        ethernet(f, 0x0800, vlan);
        int ip = l2;
        f[ip] = 0x45;
        f[ip + 1] = (byte) 0xB8; // DSCP EF (46) << 2
        put16(f, ip + 2, ipLen);
        put16(f, ip + 4, 0x1234);
        put16(f, ip + 6, df ? 0x4000 : 0);
        f[ip + 8] = 61;
        f[ip + 9] = (byte) proto;
        System.arraycopy(v4(src), 0, f, ip + 12, 4);
        System.arraycopy(v4(dst), 0, f, ip + 16, 4);
        put16(f, ip + 10, checksum(f, ip, 20, 0));
        transport(f, ip + 20, proto, sport, dport, tcpFlags, payloadLen);
        long pseudo = sum(f, ip + 12, 8, 0) + proto + (l4 + payloadLen);
        put16(f, ip + 20 + (proto == 6 ? 16 : 6), checksum(f, ip + 20, l4 + payloadLen, pseudo));
        return f;
    }

    /** Ethernet + IPv6 + TCP/UDP frame. */
    public static byte[] ipv6Frame(String src, String dst, int proto, int sport, int dport, int tcpFlags,
            int payloadLen, int vlan) {
        int l4 = proto == 6 ? 20 : 8;
        int plen = l4 + payloadLen;
        int l2 = vlan >= 0 ? 18 : 14;
        byte[] f = new byte[Math.max(60, l2 + 40 + plen)];
        ethernet(f, 0x86DD, vlan);
        int ip = l2;
        put32(f, ip, 6 << 28 | 0x2E << 20 | 0x12345); // traffic class 0x2e, flow label 0x12345
        put16(f, ip + 4, plen);
        f[ip + 6] = (byte) proto;
        f[ip + 7] = 59;
        System.arraycopy(v6(src), 0, f, ip + 8, 16);
        System.arraycopy(v6(dst), 0, f, ip + 24, 16);
        transport(f, ip + 40, proto, sport, dport, tcpFlags, payloadLen);
        long pseudo = sum(f, ip + 8, 32, 0) + proto + plen;
        put16(f, ip + 40 + (proto == 6 ? 16 : 6), checksum(f, ip + 40, plen, pseudo));
        return f;
    }

    private static void transport(byte[] f, int at, int proto, int sport, int dport, int tcpFlags, int payloadLen) {
        put16(f, at, sport);
        put16(f, at + 2, dport);
        int l4;
        if (proto == 6) {
            put32(f, at + 4, 1000);
            put32(f, at + 8, (tcpFlags & 0x10) != 0 ? 2000 : 0);
            f[at + 12] = 0x50;
            f[at + 13] = (byte) tcpFlags;
            put16(f, at + 14, 65535);
            l4 = 20;
        } else {
            put16(f, at + 4, 8 + payloadLen);
            l4 = 8;
        }
        for (int i = 0; i < payloadLen; i++) {
            f[at + l4 + i] = (byte) ('a' + i % 26);
        }
    }

    public static void put16(byte[] f, int at, int v) {
        f[at] = (byte) (v >>> 8);
        f[at + 1] = (byte) v;
    }

    public static void put32(byte[] f, int at, int v) {
        put16(f, at, v >>> 16);
        put16(f, at + 2, v);
    }

    public static int u16(byte[] f, int at) {
        return (f[at] & 0xFF) << 8 | (f[at + 1] & 0xFF);
    }

    static long sum(byte[] f, int at, int len, long acc) {
        for (int i = 0; i + 1 < len; i += 2) {
            acc += u16(f, at + i);
        }
        if ((len & 1) != 0) {
            acc += (f[at + len - 1] & 0xFF) << 8;
        }
        return acc;
    }

    public static int checksum(byte[] f, int at, int len, long initial) {
        long acc = sum(f, at, len, initial);
        while ((acc >>> 16) != 0) {
            acc = (acc & 0xFFFF) + (acc >>> 16);
        }
        return (int) (~acc & 0xFFFF);
    }

    /** Copies a frame into a pool-like segment at {@code bufStart}. */
    public static void load(MemorySegment seg, long bufStart, byte[] frame) {
        MemorySegment.copy(frame, 0, seg, ValueLayout.JAVA_BYTE, bufStart, frame.length);
    }

    public static byte[] bytes(MemorySegment seg, long bufStart, int len) {
        byte[] b = new byte[len];
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, bufStart, b, 0, len);
        return b;
    }

    public static void writePcap(Path file, List<byte[]> frames) throws IOException {
        try (PcapWriter w = PcapWriter.create(file, LinkType.ETHERNET, 65535)) {
            long t = 1_700_000_000_000_000_000L;
            for (byte[] f : frames) {
                w.write(t, f);
                t += 1_000_000;
            }
        }
    }

    /**
     * Runs {@code tshark -r file -T fields -E separator=| <args>} and returns one line per packet. Fails (never
     * skips) when tshark is missing, exits non-zero, or takes longer than 60 s.
     */
    public static List<String> tshark(Path file, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("tshark", "-n", "-r", file.toString(), "-T", "fields",
                "-E", "separator=|", "-E", "occurrence=a", "-E", "aggregator=,"));
        cmd.addAll(List.of(args));
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
        } catch (IOException e) {
            throw new AssertionError("tshark is required for this test (apt-get install tshark): " + e.getMessage(), e);
        }
        p.getOutputStream().close();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("tshark did not finish within 60 s: " + cmd);
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new AssertionError("tshark exited " + p.exitValue() + ": " + err + "\n" + cmd);
        }
        List<String> lines = new ArrayList<>();
        for (String l : out.split("\n")) {
            if (!l.isEmpty()) {
                lines.add(l);
            }
        }
        return lines;
    }
}
