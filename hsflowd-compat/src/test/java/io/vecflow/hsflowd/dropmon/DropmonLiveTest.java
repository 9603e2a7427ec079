package io.vecflow.hsflowd.dropmon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.vecflow.hsflowd.SflowAgent;
import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.netlink.GenlController;
import io.vecflow.netlink.GenlFamilyNotFoundException;
import io.vecflow.netlink.Netlink;
import io.vecflow.netlink.NetlinkException;
import io.vecflow.netlink.NetlinkSocket;
import io.vecflow.netlink.netdm.NetDmSubscriber;
import io.vecflow.sflow.DatagramHeader;
import io.vecflow.sflow.DecodeStats;
import io.vecflow.sflow.FlowSample;
import io.vecflow.sflow.SflowDecodeException;
import io.vecflow.sflow.SflowDecoder;
import io.vecflow.sflow.SflowVisitor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end as root: a second socket sends hand-built NET_DM PACKET_ALERTs on NETLINK_USERSOCK, the dropmon daemon
 * turns them into 0:5 samples, the agent sends them to a UDP sink on 127.0.0.1; the datagram is decoded by our
 * SflowDecoder, checked byte by byte against the sflow_drops.txt / docs/sflow.md layout, and shown to tshark, which
 * decodes the datagram header but not the 0:5 sample (docs/netlink.md §6 rule 10).
 */
class DropmonLiveTest {
    private static final int GROUP = 25;

    @Test
    void alertsOverUsersockBecomeDiscardDatagramsAtTheCollector(@TempDir Path tmp) throws Exception {
        try (DatagramSocket sink = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            sink.setSoTimeout(5000);
            HsflowdConfig config = HsflowdConfig.parse("sflow {\n  headerBytes = 128\n  dropmon { start = off }\n"
                    + "  collector { ip = 127.0.0.1 udpport = " + sink.getLocalPort() + " }\n}\n");
            DropmonSettings settings = new DropmonSettings();
            settings.transport = "usersock";
            settings.usersockGroup = GROUP;
            byte[] datagram;
            try (SflowAgent agent = new SflowAgent(config, InetAddress.getByName("127.0.0.1"));
                 Arena arena = Arena.ofConfined();
                 NetlinkSocket tx = NetlinkSocket.open(Netlink.NETLINK_USERSOCK)) {
                DropmonDaemon daemon = new DropmonDaemon(agent, settings, config.headerBytes,
                        DropmonDaemon.openSubscriber(settings));
                try {
                    tx.bind(0, 0);
                    for (byte[] msg : List.of(Vectors.kernelNoSocket(), Vectors.lldpTrap(), Vectors.vppTtl())) {
                        MemorySegment seg = arena.allocate(msg.length);
                        MemorySegment.copy(msg, 0, seg, ValueLayout.JAVA_BYTE, 0, msg.length);
                        tx.send(seg, msg.length, 0, Netlink.groupMask(GROUP));
                    }
                    DatagramPacket p = new DatagramPacket(new byte[65536], 65536);
                    sink.receive(p); // the agent flushes within ~1 s of the first sample
                    datagram = Arrays.copyOf(p.getData(), p.getLength());
                    assertThat(daemon.module().alerts()).isEqualTo(3);
                    assertThat(daemon.module().notDrops()).isEqualTo(1);
                    assertThat(daemon.subscriber().decodeErrors()).isZero();
                    assertThat(agent.discardsSent()).isEqualTo(2);
                } finally {
                    daemon.close();
                }
            }
            decodedByOurDecoder(datagram);
            layoutByteByByte(datagram);
            judgedByTshark(datagram, tmp);
        }
    }

    private static void decodedByOurDecoder(byte[] datagram) {
        List<String> got = new ArrayList<>();
        SflowDecodeException err = new SflowDecoder(new DecodeStats()).decode(datagram, 0, datagram.length,
                new SflowVisitor() {
                    @Override
                    public void onDatagram(DatagramHeader h) {
                        got.add("v" + h.version + " sub " + h.subAgentId + " seq " + h.sequenceNumber
                                + " n " + h.numSamples);
                    }

                    @Override
                    public void onFlowSample(DatagramHeader h, FlowSample s) {
                        got.add("flow?");
                    }

                    @Override
                    public void onDiscardSample(DatagramHeader h, FlowSample s) {
                        got.add("discard src 0:" + s.sourceIdIndex + " in " + s.input + " reason " + s.reason
                                + " hdr " + s.sampledHeader.header.length + "/" + s.sampledHeader.frameLength
                                + " eth " + Integer.toHexString(s.sampledHeader.header.get(12)) + "."
                                + Integer.toHexString(s.sampledHeader.header.get(13)));
                    }
                });
        assertThat(err).isNull();
        assertThat(got).containsExactly("v5 sub 100000 seq 1 n 2",
                "discard src 0:3 in 3 reason 3 hdr 128/164 eth 8.0",
                "discard src 0:7 in 7 reason 256 hdr 128/1518 eth 8.0");
    }

    /** docs/sflow.md §2 (header), §3 (0:5 fixed part), §5 (records), XDR big-endian with 4-byte padding. */
    private static void layoutByteByByte(byte[] d) {
        ByteBuffer b = ByteBuffer.wrap(d);
        assertThat(b.getInt()).as("version").isEqualTo(5);
        assertThat(b.getInt()).as("agent address type IPv4").isEqualTo(1);
        assertThat(b.getInt()).as("agent 127.0.0.1").isEqualTo(0x7F000001);
        assertThat(b.getInt()).as("sub_agent_id").isEqualTo(100000);
        assertThat(b.getInt()).as("sequence_number").isEqualTo(1);
        b.getInt(); // uptime
        assertThat(b.getInt()).as("num_samples").isEqualTo(2);
        // sample 1: kernel NO_SOCKET
        assertThat(b.getInt()).as("data_format 0:5").isEqualTo(5);
        int len1 = b.getInt();
        int start1 = b.position();
        assertThat(b.getInt()).as("sequence_number").isEqualTo(1);
        assertThat(b.getInt()).as("source_id type").isZero();
        assertThat(b.getInt()).as("source_id index").isEqualTo(3);
        assertThat(b.getInt()).as("drops").isZero();
        assertThat(b.getInt()).as("inputifindex").isEqualTo(3);
        assertThat(b.getInt()).as("outputifindex").isZero();
        assertThat(b.getInt()).as("reason port_unreachable").isEqualTo(3);
        assertThat(b.getInt()).as("flow_records").isEqualTo(4);
        assertThat(b.getInt()).as("0:1 sampled_header").isEqualTo(1);
        assertThat(b.getInt()).as("record length 16 + 128").isEqualTo(144);
        assertThat(b.getInt()).as("header_protocol").isEqualTo(1);
        assertThat(b.getInt()).as("frame_length").isEqualTo(164);
        assertThat(b.getInt()).as("stripped").isEqualTo(4);
        assertThat(b.getInt()).as("header length").isEqualTo(128);
        byte[] h = new byte[128];
        b.get(h);
        assertThat(h).containsExactly(Arrays.copyOf(Vectors.frame(160), 128));
        assertThat(b.getInt()).as("0:1038 extended_function").isEqualTo(1038);
        assertThat(b.getInt()).isEqualTo(20);
        assertThat(xdrString(b)).isEqualTo("kfree_skb_reason");
        assertThat(b.getInt()).as("0:1042 extended_linux_drop_reason").isEqualTo(1042);
        assertThat(b.getInt()).isEqualTo(16);
        assertThat(xdrString(b)).isEqualTo("NO_SOCKET");
        assertThat(b.getInt()).as("0:1043 extended_timestamp").isEqualTo(1043);
        assertThat(b.getInt()).isEqualTo(8);
        assertThat(b.getLong()).isEqualTo(Vectors.TS);
        assertThat(b.position() - start1).as("declared sample length").isEqualTo(len1);
        // sample 2: VPP ttl drop
        assertThat(b.getInt()).isEqualTo(5);
        int len2 = b.getInt();
        int start2 = b.position();
        assertThat(new int[] {b.getInt(), b.getInt(), b.getInt(), b.getInt(), b.getInt(), b.getInt(), b.getInt(),
                b.getInt()}).as("seq, src type, src index, drops, in, out, reason, records")
                .containsExactly(1, 0, 7, 0, 7, 0, 256, 2);
        assertThat(new int[] {b.getInt(), b.getInt(), b.getInt(), b.getInt(), b.getInt(), b.getInt()})
                .containsExactly(1, 144, 1, 1518, 4, 128);
        b.position(b.position() + 128);
        assertThat(b.getInt()).as("0:1041 extended_hw_trap").isEqualTo(1041);
        assertThat(b.getInt()).as("4 + 16 + 4 + 20").isEqualTo(44);
        assertThat(xdrString(b)).isEqualTo("vpp_ip4-input");
        assertThat(xdrString(b)).isEqualTo("vpp_ip4_ttl_expired");
        assertThat(b.position() - start2).isEqualTo(len2);
        assertThat(b.remaining()).as("nothing after the declared samples").isZero();
    }

    private static String xdrString(ByteBuffer b) {
        int n = b.getInt();
        byte[] s = new byte[n];
        b.get(s);
        for (int i = n; i % 4 != 0; i++) {
            assertThat(b.get()).as("XDR pad byte").isZero();
        }
        return new String(s, StandardCharsets.US_ASCII);
    }

    /**
     * tshark 4.0 decodes the datagram header; it does not decode 0:5 (docs/netlink.md §6 rule 10), so the sample is
     * opaque.
     */
    private static void judgedByTshark(byte[] datagram, Path tmp) throws Exception {
        Path pcap = tmp.resolve("discards.pcap");
        Files.write(pcap, pcap(datagram));
        Process p = new ProcessBuilder("tshark", "-r", pcap.toString(), "-d", "udp.port==6343,sflow", "-V")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("Datagram version: 5", "Agent address: 127.0.0.1", "Sub-agent ID: 100000",
                "Sequence number: 1", "NumSamples: 2");
        // tshark 4.0 has no 0:5 dissector: both samples show as "Unknown (5)" with the lengths we declared
        ByteBuffer b = ByteBuffer.wrap(datagram);
        int len1 = b.getInt(32);
        int len2 = b.getInt(28 + 8 + len1 + 4);
        assertThat(out.split("sFlow sample type: Unknown \\(5\\)", -1)).as(out).hasSize(3);
        assertThat(out).contains("Enterprise: standard sFlow (0)", "Sample length (byte): " + len1,
                "Sample length (byte): " + len2);
        assertThat(len1).isEqualTo(252);
        assertThat(len2).isEqualTo(236);
        assertThat(out).doesNotContain("Malformed");
    }

    /** One Ethernet/IPv4/UDP frame 127.0.0.1:40000 → 127.0.0.1:6343 in a classic pcap file. */
    static byte[] pcap(byte[] payload) {
        ByteBuffer pkt = ByteBuffer.allocate(14 + 20 + 8 + payload.length);
        pkt.put(new byte[] {0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1}).putShort((short) 0x0800);
        int ipStart = pkt.position();
        pkt.put((byte) 0x45).put((byte) 0).putShort((short) (20 + 8 + payload.length)).putShort((short) 1)
                .putShort((short) 0x4000).put((byte) 64).put((byte) 17).putShort((short) 0)
                .putInt(0x7F000001).putInt(0x7F000001);
        int sum = 0;
        for (int i = 0; i < 20; i += 2) {
            sum += pkt.getShort(ipStart + i) & 0xFFFF;
        }
        sum = (sum & 0xFFFF) + (sum >>> 16);
        sum = (sum & 0xFFFF) + (sum >>> 16);
        pkt.putShort(ipStart + 10, (short) ~sum);
        pkt.putShort((short) 40000).putShort((short) 6343).putShort((short) (8 + payload.length)).putShort((short) 0)
                .put(payload);
        byte[] frame = pkt.array();
        ByteBuffer file = ByteBuffer.allocate(24 + 16 + frame.length).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        file.putInt(0xA1B2C3D4).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0).putInt(65535).putInt(1);
        file.putInt(1_700_000_000).putInt(0).putInt(frame.length).putInt(frame.length).put(frame);
        return file.array();
    }

    @Test
    void genlWithoutDropMonitorIsOneClearError() throws Exception {
        // the kernel's answer for a family it lacks (a name no kernel has, so this passes with or without NET_DM)
        GenlFamilyNotFoundException missing;
        try (NetlinkSocket sock = NetlinkSocket.open(Netlink.NETLINK_GENERIC)) {
            missing = catchThrowableOfType(GenlFamilyNotFoundException.class,
                    () -> GenlController.resolve(sock, "vfNoSuchFamily"));
        }
        assertThat(DropmonDaemon.missingFamily(missing)).hasCause(missing)
                .hasMessageEndingWith("generic netlink family "
                + "\"NET_DM\" is not available on this kernel: load it with `modprobe drop_monitor`, or set "
                + "`dropmon { transport = usersock }` in hsflowd.conf");
        // and on this kernel: genl opens where NET_DM is registered, else fails with that message
        DropmonSettings s = new DropmonSettings();
        if (GenlController.isRegistered("NET_DM")) {
            DropmonDaemon.openSubscriber(s).close();
        } else {
            assertThatThrownBy(() -> DropmonDaemon.openSubscriber(s).close())
                    .isInstanceOf(NetlinkException.class)
                    .hasMessageContaining("load it with `modprobe drop_monitor`, or set `dropmon { transport = "
                            + "usersock }` in hsflowd.conf");
        }
    }

    @Test
    void usersockSubscriberNeedsNoModule() throws Exception {
        DropmonSettings s = new DropmonSettings();
        s.transport = "usersock";
        s.usersockGroup = GROUP;
        try (NetDmSubscriber sub = DropmonDaemon.openSubscriber(s)) {
            assertThat(sub.groupId()).isEqualTo(GROUP);
        }
    }
}
