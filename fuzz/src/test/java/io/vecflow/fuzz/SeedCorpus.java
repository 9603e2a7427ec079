package io.vecflow.fuzz;

import io.vecflow.packet.LinkType;
import io.vecflow.packet.PacketParser;
import io.vecflow.packet.ParsedPacket;
import io.vecflow.sflow.DatagramHeader;
import io.vecflow.sflow.DecodeStats;
import io.vecflow.sflow.FlowSample;
import io.vecflow.sflow.SflowDecoder;
import io.vecflow.sflow.SflowVisitor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Builds the seed corpora of the three fuzz targets from the shared captures in {@code testdata/} (see
 * testdata/MANIFEST.md for their sources and licences), plus a few synthetic inputs for formats the captures lack.
 *
 * <p>The seeds are committed under {@code src/test/resources/io/vecflow/fuzz/<Target>Inputs/<method>/}, where
 * Jazzer's JUnit integration finds them: as regression inputs (plain {@code mvn test}) and as the starting corpus
 * in fuzzing mode. {@link SeedCorpusTest} checks that the committed files still match what this class extracts and
 * rewrites them when run with {@code -Dvecflow.fuzz.writeSeeds=true} (see fuzz/README.md).
 *
 * <p>The captures are read with a minimal pcap reader of its own, so that the seeds do not depend on the
 * {@code PcapReader} under test (and so that the PPP capture, which {@code PcapReader} rejects, can be used).
 */
final class SeedCorpus {
    static final Path TESTDATA = Path.of("..", "testdata");
    static final Path RESOURCES = Path.of("src", "test", "resources", "io", "vecflow", "fuzz");
    static final Path SFLOW_DIR = RESOURCES.resolve("SflowDecoderFuzzTestInputs").resolve("decode");
    static final Path PACKET_DIR = RESOURCES.resolve("PacketParserFuzzTestInputs").resolve("parse");
    static final Path PCAP_DIR = RESOURCES.resolve("PcapReaderFuzzTestInputs").resolve("read");
    static final Path NETLINK_DIR = RESOURCES.resolve("NetlinkCodecFuzzTestInputs").resolve("decode");
    static final Path CONFIG_DIR = RESOURCES.resolve("ConfigFuzzTestInputs").resolve("parse");

    /** Packets longer than this are cut (as an sFlow agent cuts its sampled headers); headers are what matters. */
    static final int MAX_PACKET_SEED = 256;
    /** Whole pcap files up to this size are seeds; larger ones are cut after the last record that fits. */
    static final int MAX_PCAP_SEED = 16 * 1024;
    /** Packets of one capture with the same {@link #shape} kept as seeds (the rest add nothing but run time). */
    static final int PER_SHAPE = 2;

    private SeedCorpus() {}

    /** One pcap record: link type of its file and the captured bytes. */
    record Packet(int linkType, byte[] data) {}

    // ---- sFlow decoder ---------------------------------------------------------------------------

    /** @return file name to bytes: every distinct UDP payload of testdata/sflow, then the synthetic datagrams */
    static Map<String, byte[]> sflowSeeds() {
        Map<String, byte[]> out = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        for (Path pcap : pcaps("sflow")) {
            List<byte[]> payloads = udpPayloads(pcap);
            for (int i = 0; i < payloads.size(); i++) {
                byte[] p = payloads.get(i);
                if (seen.add(Arrays.toString(p))) {
                    out.put(String.format("%s-%02d", stem(pcap), i), p);
                }
            }
        }
        out.put("synthetic-all-flow-records", SyntheticSflow.allFlowRecords());
        out.put("synthetic-discard-and-counters-ipv6-agent", SyntheticSflow.discardAndCounters());
        return out;
    }

    // ---- packet parser ---------------------------------------------------------------------------

    /**
     * @return file name to bytes: each distinct packet of testdata/traffic (PPP frames rewritten to Ethernet, cut to
     *     {@value #MAX_PACKET_SEED} bytes, at most {@value #PER_SHAPE} per capture and {@link #shape}), one L3-only
     *     copy per shape (for the raw-IP link types),
     *     and every distinct sampled_header of testdata/sflow
     */
    static Map<String, byte[]> packetSeeds() {
        Map<String, byte[]> out = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        Set<String> l3Shapes = new HashSet<>();
        Map<String, Integer> shapes = new HashMap<>();
        ParsedPacket pp = new ParsedPacket();
        for (Path pcap : pcaps("traffic")) {
            List<Packet> packets = readPcap(pcap);
            for (int i = 0; i < packets.size(); i++) {
                Packet p = packets.get(i);
                byte[] frame = p.linkType() == 9 ? pppToEthernet(p.data()) : p.data();
                if (frame == null) {
                    continue;
                }
                LinkType lt = p.linkType() == 113 ? LinkType.LINUX_SLL : LinkType.ETHERNET;
                PacketParser.parse(frame, 0, frame.length, lt, pp);
                byte[] cut = Arrays.copyOf(frame, Math.min(frame.length, MAX_PACKET_SEED));
                boolean newShape = shapes.merge(stem(pcap) + shape(pp), 1, Integer::sum) <= PER_SHAPE;
                if (newShape && seen.add(Arrays.toString(cut))) {
                    out.put(String.format("%s-%03d", stem(pcap), i), cut);
                }
                if (pp.l3Offset() > 0 && pp.ipVersion() != 0) {
                    String shape = shape(pp);
                    byte[] l3 = Arrays.copyOfRange(frame, pp.l3Offset(),
                            Math.min(frame.length, pp.l3Offset() + MAX_PACKET_SEED));
                    if (l3Shapes.add(shape) && seen.add(Arrays.toString(l3))) {
                        out.put(String.format("%s-%03d-l3", stem(pcap), i), l3);
                    }
                }
            }
        }
        for (Map.Entry<String, byte[]> e : sflowSeeds().entrySet()) {
            List<byte[]> headers = sampledHeaders(e.getValue());
            for (int i = 0; i < headers.size(); i++) {
                byte[] h = headers.get(i);
                if (seen.add(Arrays.toString(h))) {
                    out.put(String.format("sampled-header-%s-%02d", e.getKey(), i), h);
                }
            }
        }
        return out;
    }

    /** What the parser made of a packet, as far as its paths go (addresses, ports and payload aside). */
    static String shape(ParsedPacket p) {
        return String.join("/", ParsedPacket.statusName(p.status()), String.valueOf(p.errorLayer()),
                Integer.toHexString(p.etherType()), "v" + p.vlanCount(), "m" + p.mplsLabelCount(),
                "ip" + p.ipVersion(), "p" + p.protocol(), "f" + p.isFragment(), "rh" + p.routingHeaderType(),
                "srh" + p.srhPresent(), String.valueOf(p.encapsulation()), "t" + p.tunnelDepth(),
                "gre" + p.grePresent(), Integer.toHexString(p.innerEtherType()), "ip" + p.innerIpVersion(),
                "p" + p.innerProtocol());
    }

    // ---- pcap reader -----------------------------------------------------------------------------

    /**
     * @return file name to bytes: every capture of testdata up to {@value #MAX_PCAP_SEED} bytes whole, larger ones
     *     cut after the last whole record that fits, plus byte-order, timestamp-resolution and raw-IP variants
     */
    static Map<String, byte[]> pcapSeeds() {
        Map<String, byte[]> out = new LinkedHashMap<>();
        for (String dir : List.of("sflow", "traffic")) {
            for (Path pcap : pcaps(dir)) {
                byte[] file = read(pcap);
                out.put(stem(pcap) + ".pcap", cutPcap(file, MAX_PCAP_SEED));
            }
        }
        // Variants of one small Ethernet capture: big-endian microseconds, little-endian nanoseconds, and the three
        // raw-IP link types (Ethernet header stripped), so every magic and link type has a seed.
        List<Packet> icmp6 = readPcap(TESTDATA.resolve("traffic").resolve("icmpv6.pcap"));
        out.put("synthetic-big-endian-micros.pcap", writePcap(icmp6, 1, true, false, 0));
        out.put("synthetic-little-endian-nanos.pcap", writePcap(icmp6, 1, false, true, 0));
        out.put("synthetic-raw-101.pcap", writePcap(icmp6, 101, false, false, 14));
        out.put("synthetic-ipv6-229.pcap", writePcap(icmp6, 229, true, true, 14));
        List<Packet> dns = readPcap(TESTDATA.resolve("traffic").resolve("dns_tcp.pcap"));
        out.put("synthetic-ipv4-228.pcap", writePcap(dns.subList(0, 3), 228, false, false, 14));
        return out;
    }

    // ---- helpers ---------------------------------------------------------------------------------

    static List<Path> pcaps(String dir) {
        try (Stream<Path> files = Files.list(TESTDATA.resolve(dir))) {
            return files.filter(f -> f.getFileName().toString().endsWith(".pcap")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String stem(Path pcap) {
        String n = pcap.getFileName().toString();
        return n.substring(0, n.length() - ".pcap".length());
    }

    static byte[] read(Path p) {
        try {
            return Files.readAllBytes(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Minimal classic-pcap reader (any byte order, either resolution); stops at the first short record. */
    static List<Packet> readPcap(Path pcap) {
        ByteBuffer b = ByteBuffer.wrap(read(pcap));
        int magic = b.getInt(0);
        b.order(magic == 0xa1b2c3d4 || magic == 0xa1b23c4d ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
        int linkType = b.getInt(20) & 0xFFFF;
        List<Packet> out = new ArrayList<>();
        int p = 24;
        while (p + 16 <= b.limit()) {
            int incl = b.getInt(p + 8);
            if (incl < 0 || p + 16 + incl > b.limit()) {
                break;
            }
            out.add(new Packet(linkType, Arrays.copyOfRange(b.array(), p + 16, p + 16 + incl)));
            p += 16 + incl;
        }
        return out;
    }

    /** @return the first bytes of a pcap file: its header and the whole records that fit in {@code max} bytes */
    static byte[] cutPcap(byte[] file, int max) {
        if (file.length <= max) {
            return file;
        }
        ByteBuffer b = ByteBuffer.wrap(file);
        int magic = b.getInt(0);
        b.order(magic == 0xa1b2c3d4 || magic == 0xa1b23c4d ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
        int p = 24;
        while (p + 16 <= file.length) {
            int next = p + 16 + b.getInt(p + 8);
            if (next > max) {
                break;
            }
            p = next;
        }
        return Arrays.copyOf(file, p);
    }

    /** Writes packets as a pcap file with the given link type, dropping {@code strip} leading bytes of each. */
    static byte[] writePcap(List<Packet> packets, int linkType, boolean bigEndian, boolean nanos, int strip) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer h = ByteBuffer.allocate(24).order(bigEndian ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
        h.putInt(nanos ? 0xa1b23c4d : 0xa1b2c3d4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0)
                .putInt(262144).putInt(linkType);
        out.writeBytes(h.array());
        int t = 1_700_000_000;
        for (Packet p : packets) {
            byte[] d = Arrays.copyOfRange(p.data(), Math.min(strip, p.data().length), p.data().length);
            ByteBuffer r = ByteBuffer.allocate(16).order(h.order());
            r.putInt(t++).putInt(nanos ? 123_456_789 : 123_456).putInt(d.length).putInt(d.length + 4);
            out.writeBytes(r.array());
            out.writeBytes(d);
        }
        return out.toByteArray();
    }

    /**
     * Rewrites a PPP frame (HDLC-like framing {@code ff 03} optional, then the 2-byte protocol) as Ethernet with the
     * matching EtherType, so that its MPLS and IP layers reach the parser; null for other protocols.
     */
    static byte[] pppToEthernet(byte[] ppp) {
        int p = ppp.length >= 2 && (ppp[0] & 0xFF) == 0xFF && ppp[1] == 0x03 ? 2 : 0;
        if (ppp.length < p + 2) {
            return null;
        }
        int etherType = switch ((ppp[p] & 0xFF) << 8 | (ppp[p + 1] & 0xFF)) {
            case 0x0021 -> 0x0800;
            case 0x0057 -> 0x86DD;
            case 0x0281 -> 0x8847;
            case 0x0283 -> 0x8848;
            default -> -1;
        };
        if (etherType < 0) {
            return null;
        }
        byte[] eth = new byte[14 + ppp.length - p - 2];
        byte[] macs = {0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02};
        System.arraycopy(macs, 0, eth, 0, 12);
        eth[12] = (byte) (etherType >>> 8);
        eth[13] = (byte) etherType;
        System.arraycopy(ppp, p + 2, eth, 14, ppp.length - p - 2);
        return eth;
    }

    /** @return the UDP payload of every UDP packet of an Ethernet/SLL/raw capture, in order */
    static List<byte[]> udpPayloads(Path pcap) {
        List<byte[]> out = new ArrayList<>();
        ParsedPacket pp = new ParsedPacket();
        for (Packet p : readPcap(pcap)) {
            LinkType lt = switch (p.linkType()) {
                case 1 -> LinkType.ETHERNET;
                case 113 -> LinkType.LINUX_SLL;
                default -> LinkType.RAW;
            };
            byte[] d = p.data();
            PacketParser.parse(d, 0, d.length, lt, PacketParser.Config.NO_DECAPSULATION, pp);
            if (pp.protocol() != 17 || pp.l4Offset() < 0 || pp.l4Offset() + 8 > d.length) {
                continue;
            }
            int udpLen = (d[pp.l4Offset() + 4] & 0xFF) << 8 | (d[pp.l4Offset() + 5] & 0xFF);
            int from = pp.l4Offset() + 8;
            int to = Math.min(d.length, pp.l4Offset() + Math.max(udpLen, 8));
            out.add(Arrays.copyOfRange(d, from, to));
        }
        return out;
    }

    /** @return copies of the sampled_header bytes of every flow and discard sample of one datagram */
    static List<byte[]> sampledHeaders(byte[] datagram) {
        List<byte[]> out = new ArrayList<>();
        SflowVisitor v = new SflowVisitor() {
            @Override
            public void onDatagram(DatagramHeader header) {}

            @Override
            public void onFlowSample(DatagramHeader header, FlowSample s) {
                if (s.hasSampledHeader && s.sampledHeader.header.length > 0) {
                    out.add(s.sampledHeader.header.toArray());
                }
            }

            @Override
            public void onDiscardSample(DatagramHeader header, FlowSample s) {
                onFlowSample(header, s);
            }
        };
        new SflowDecoder(new DecodeStats()).decode(datagram, 0, datagram.length, v);
        return out;
    }

    /**
     * @return file name to bytes: one message per netlink codec the agent and the collector's peers parse, as the
     *     codecs encode them, each after its selector byte ({@link NetlinkCodecFuzzTest#CODECS})
     */
    static Map<String, byte[]> netlinkSeeds() {
        Map<String, byte[]> m = new TreeMap<>();
        byte[] header = new byte[64];
        for (int i = 0; i < header.length; i++) {
            header[i] = (byte) (i * 7);
        }
        java.lang.foreign.MemorySegment seg = java.lang.foreign.MemorySegment.ofArray(new byte[4096]);
        io.vecflow.netlink.NetlinkWriter w = new io.vecflow.netlink.NetlinkWriter(seg);
        io.vecflow.netlink.psample.PsampleSample ps = new io.vecflow.netlink.psample.PsampleSample().iifIndex(7)
                .oifIndex(3).origSize(1514).sampleGroup(1).groupSeq(42).sampleRate(10).data(header, 0, header.length)
                .proto(1);
        io.vecflow.netlink.psample.PsampleCodec pc = new io.vecflow.netlink.psample.PsampleCodec();
        m.put("psample-vpp", seed(0, seg, pc.encode(ps, w.reset(), io.vecflow.netlink.psample.Psample
                .USERSOCK_MSG_TYPE, 1, 0, io.vecflow.netlink.psample.Psample.Convention.VPP)));
        m.put("psample-kernel", seed(0, seg, pc.encode(ps, w.reset(), 0x1c, 2, 0,
                io.vecflow.netlink.psample.Psample.Convention.KERNEL)));
        byte[] vip = {(byte) 192, 0, 2, 10};
        ps.userCookie(new io.vecflow.netlink.psample.LbDecisionCookie()
                .kind(io.vecflow.netlink.psample.LbDecisionCookie.Kind.MAGLEV_NEW).vip(vip)
                .backend(new byte[] {10, 0, 0, 1}).flow(6, 80));
        m.put("psample-lb-cookie", seed(0, seg, pc.encode(ps, w.reset(), io.vecflow.netlink.psample.Psample
                .USERSOCK_MSG_TYPE, 3, 0, io.vecflow.netlink.psample.Psample.Convention.VPP)));
        io.vecflow.netlink.netdm.NetDmAlert a = new io.vecflow.netlink.netdm.NetDmAlert().pc(0xFFFF_FFFF_81A2_B3C4L)
                .symbol("kfree_skb_reason").inPortIfIndex(3).inPortName("eth0").timestampNs(1_700_000_000_000_000_000L)
                .proto(0x0800).payload(header, 0, header.length).origLen(98)
                .origin(io.vecflow.netlink.netdm.NetDm.ORIGIN_SW).reason("NO_SOCKET");
        io.vecflow.netlink.netdm.NetDmCodec nc = new io.vecflow.netlink.netdm.NetDmCodec();
        m.put("netdm-kernel", seed(1, seg, nc.encode(a, w.reset(), 0x1d, 4, 0,
                io.vecflow.netlink.netdm.NetDm.Convention.KERNEL)));
        io.vecflow.netlink.vpp.VppIfCounters ic = new io.vecflow.netlink.vpp.VppIfCounters()
                .portName("GigabitEthernet0/8/0").ifIndex(1).ifType(6).ifSpeed(10_000_000_000L).ifDirection(1)
                .operUp(1).adminUp(1).seq(5);
        for (int id = 7; id <= 18; id++) {
            ic.counter(id, 1000 + id);
        }
        m.put("vpp-if-counters", seed(2, seg, new io.vecflow.netlink.vpp.VppIfCountersCodec().encode(ic, w.reset(), 6,
                0)));
        m.put("vpp-status", seed(3, seg, new io.vecflow.netlink.vpp.VppStatusCodec().encode(
                new io.vecflow.netlink.vpp.VppStatus().uptimeS(3600).drops(2).seq(7), w.reset(), 7, 0)));
        io.vecflow.netlink.vpp.LbCounters lc = new io.vecflow.netlink.vpp.LbCounters();
        lc.role = io.vecflow.netlink.vpp.LbCounters.ROLE_SRLB_LB;
        lc.vipIndex = 2;
        lc.vip(true, 0x2001_0db8_0000_0000L, 0x100L);
        lc.protocol = 6;
        m.put("lb-counters", seed(4, seg, new io.vecflow.netlink.vpp.LbCountersCodec().encode(lc, w.reset(), 8, 0)));
        return m;
    }

    private static byte[] seed(int selector, java.lang.foreign.MemorySegment seg, int len) {
        byte[] out = new byte[len + 1];
        out[0] = (byte) selector;
        java.lang.foreign.MemorySegment.copy(seg, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, out, 1, len);
        return out;
    }

    /**
     * @return file name to bytes: the configuration examples and test files of the three parsers (hsflowd.conf, the
     *     collector's YAML, the dataplane's YAML), each after its selector byte ({@link ConfigFuzzTest})
     */
    static Map<String, byte[]> configSeeds() {
        Map<String, byte[]> m = new TreeMap<>();
        Path conf = Path.of("..", "hsflowd-compat", "src", "test", "resources", "conf");
        for (Path p : list(conf, ".conf")) {
            m.put("hsflowd-" + p.getFileName(), withSelector(0, read(p)));
        }
        for (Path p : list(conf.resolve("broken"), ".conf")) {
            m.put("hsflowd-broken-" + p.getFileName(), withSelector(0, read(p)));
        }
        m.put("collector-example.yaml", withSelector(1, read(Path.of("..", "collector", "src", "main", "resources",
                "io", "vecflow", "collector", "collector-example.yaml"))));
        m.put("collector-minimal.yaml", withSelector(1, ("clickhouse:\n  url: http://127.0.0.1:8123\nconsole:\n"
                + "  enabled: true\n  listen: 127.0.0.1:8080\nmetrics:\n  port: 0\n").getBytes(
                java.nio.charset.StandardCharsets.UTF_8)));
        m.put("dataplane-example.yaml", withSelector(2, read(Path.of("..", "agent-dataplane", "src", "main",
                "resources", "io", "vecflow", "dataplane", "config", "dataplane-example.yaml"))));
        return m;
    }

    private static List<Path> list(Path dir, String suffix) {
        try (java.util.stream.Stream<Path> s = java.nio.file.Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(suffix)).sorted().toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static byte[] withSelector(int selector, byte[] body) {
        byte[] out = new byte[body.length + 1];
        out[0] = (byte) selector;
        System.arraycopy(body, 0, out, 1, body.length);
        return out;
    }
}
