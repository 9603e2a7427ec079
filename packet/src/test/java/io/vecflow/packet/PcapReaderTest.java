package io.vecflow.packet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * PcapReader against real captures (testdata/MANIFEST.md; expected values read with tshark 4 /
 * capinfos) and synthetic files built here byte by byte (pcap-savefile(5) layout).
 */
class PcapReaderTest {

    private static final Path TCPREPLAY = Captures.traffic("tcpreplay-test.pcap");

    @Test
    void readsTcpreplayCaptureHeaderAndRecords() throws IOException {
        try (PcapReader r = PcapReader.open(TCPREPLAY)) {
            assertThat(r.linkType()).isEqualTo(LinkType.ETHERNET);
            assertThat(r.snapLength()).isEqualTo(262_144);
            assertThat(r.maxRecordLength()).isEqualTo(262_144);
            assertThat(r.nanosecondResolution()).isFalse();
            assertThat(r.bigEndian()).isFalse();

            PcapRecord rec = new PcapRecord();
            assertThat(r.next(rec)).isTrue();
            // tshark: frame 1 epoch 1278472579.466743000, 93 bytes, f8:1e:df:e5:84:3a -> 00:1f:f3:3c:e1:13
            assertThat(rec.timestampNanos()).isEqualTo(1_278_472_579_466_743_000L);
            assertThat(rec.capturedLength()).isEqualTo(93);
            assertThat(rec.originalLength()).isEqualTo(93);
            assertThat(rec.fileOffset()).isEqualTo(24);
            assertThat(Arrays.copyOf(rec.data(), 12)).isEqualTo(Captures.hex("001ff33ce113 f81edfe5843a"));

            assertThat(r.next(rec)).isTrue();
            assertThat(rec.fileOffset()).isEqualTo(24 + 16 + 93);
            assertThat(rec.capturedLength()).isEqualTo(66);

            int count = 2;
            long bytes = 93 + 66;
            long lastTs = 0;
            int lastLen = 0;
            while (r.next(rec)) {
                count++;
                bytes += rec.capturedLength();
                lastTs = rec.timestampNanos();
                lastLen = rec.capturedLength();
            }
            assertThat(count).isEqualTo(179);
            assertThat(bytes).isEqualTo(69_000); // sum of tshark frame.len
            // tshark: frame 179 epoch 1278472582.723492000, 144 bytes
            assertThat(lastTs).isEqualTo(1_278_472_582_723_492_000L);
            assertThat(lastLen).isEqualTo(144);
            assertThat(r.next(rec)).as("EOF is sticky").isFalse();
        }
    }

    @Test
    void recordBufferIsReusedAndGrownOnDemand() throws IOException {
        try (PcapReader r = PcapReader.open(TCPREPLAY)) {
            PcapRecord rec = new PcapRecord(64);
            assertThat(r.next(rec)).isTrue(); // 93 bytes: grows to 128 (doubling)
            byte[] grown = rec.data();
            assertThat(grown.length).isEqualTo(128);
            assertThat(r.next(rec)).isTrue(); // 66 bytes fits
            assertThat(rec.data()).isSameAs(grown);
        }
    }

    @Test
    void readAllMatchesStreamingAndIsImmutable() throws IOException {
        PcapFile file = PcapReader.readAll(TCPREPLAY);
        assertThat(file.linkType()).isEqualTo(LinkType.ETHERNET);
        assertThat(file.snapLength()).isEqualTo(262_144);
        assertThat(file.packets()).hasSize(179);
        assertThatThrownBy(() -> file.packets().clear()).isInstanceOf(UnsupportedOperationException.class);

        try (PcapReader r = PcapReader.open(TCPREPLAY)) {
            PcapRecord rec = new PcapRecord();
            for (PcapPacket p : file.packets()) {
                assertThat(r.next(rec)).isTrue();
                assertThat(p.timestampNanos()).isEqualTo(rec.timestampNanos());
                assertThat(p.originalLength()).isEqualTo(rec.originalLength());
                assertThat(p.data()).isEqualTo(Arrays.copyOf(rec.data(), rec.capturedLength()));
            }
        }
        PcapPacket first = file.packets().getFirst();
        first.data()[0] = 0x55;
        assertThat(first.data()[0]).isEqualTo((byte) 0x00); // accessor returns a copy
        assertThat(first.segment().isReadOnly()).isTrue();
        assertThat(first.segment().byteSize()).isEqualTo(93);
    }

    /** Every capture in testdata reads cleanly (counts and snaplen from capinfos). */
    @ParameterizedTest
    @CsvSource({
            "traffic/802.1ad_QinQ.pcap, ETHERNET, 10000, 2",
            "traffic/dns_tcp.pcap, ETHERNET, 262144, 11",
            "traffic/geneve.pcap, ETHERNET, 262144, 39",
            "traffic/icmpv6.pcap, ETHERNET, 65535, 5",
            "traffic/ipv4_tcp_http_xml.pcap, ETHERNET, 9096, 1",
            "traffic/ipv6-routing-header.pcap, ETHERNET, 65535, 4",
            "traffic/ipv6-srh-ext-header.pcap, ETHERNET, 262144, 1",
            "traffic/ipv6-srh-insert-cksum.pcap, ETHERNET, 262144, 1",
            "traffic/ipv6-srh-tlv-pad1-padn-5.pcap, ETHERNET, 262144, 1",
            "traffic/mptcp-v1.pcap, LINUX_SLL, 65535, 20",
            "traffic/tcpreplay-test.pcap, ETHERNET, 262144, 179",
            "traffic/various_gre.pcap, ETHERNET, 262144, 100",
            "traffic/vxlan.pcap, ETHERNET, 1500, 10",
            "sflow/akvorado-data-encap-vxlan.pcap, ETHERNET, 262144, 1",
            "sflow/akvorado-data-local-interface.pcap, ETHERNET, 65535, 1",
            "sflow/goflow2-TestSFlowDecode.pcap, ETHERNET, 65535, 1",
            "sflow/tcpdump-sflow-print-v6.pcap, ETHERNET, 262144, 25",
            "sflow/tcpdump-sflow_multiple_counter_30_pdus.pcap, ETHERNET, 65535, 30",
            "sflow/tcpdump-sflow_print-segv.pcap, ETHERNET, 1514, 1",
    })
    void readsEveryBundledCapture(String file, LinkType linkType, int snaplen, int packets) throws IOException {
        PcapFile f = PcapReader.readAll(Path.of("../testdata").resolve(file));
        assertThat(f.linkType()).isEqualTo(linkType);
        assertThat(f.snapLength()).isEqualTo(snaplen);
        assertThat(f.packets()).hasSize(packets);
    }

    @Test
    void rejectsPppCaptureWithClearMessage() {
        assertThatThrownBy(() -> PcapReader.open(Captures.traffic("mpls-traceroute.pcap")))
                .isInstanceOf(PcapFormatException.class)
                .hasMessage("unsupported pcap link type 9 (PPP) at offset 20; supported: Ethernet (1),"
                        + " Linux cooked v1 (113), raw IPv4/IPv6 (101, 228, 229)")
                .satisfies(e -> assertThat(((PcapFormatException) e).offset()).isEqualTo(20));
    }

    // ---- synthetic files: byte order and resolution --------------------------------------------

    @Test
    void readsBigEndianMicrosecondFile() throws IOException {
        byte[] frame = Captures.load("802.1ad_QinQ.pcap").packets().getFirst().data();
        byte[] file = pcap(ByteOrder.BIG_ENDIAN, 0xa1b2c3d4, 65535, 1,
                record(1_700_000_000L, 123_456, frame.length, 1514), frame,
                record(1_700_000_001L, 999_999, 4, 4), new byte[] {1, 2, 3, 4});
        assertThat(Arrays.copyOf(file, 4)).isEqualTo(Captures.hex("a1b2c3d4"));
        try (PcapReader r = new PcapReader(new ByteArrayInputStream(file))) {
            assertThat(r.bigEndian()).isTrue();
            assertThat(r.nanosecondResolution()).isFalse();
            assertThat(r.snapLength()).isEqualTo(65535);
            assertThat(r.maxRecordLength()).isEqualTo(262_144);
            PcapRecord rec = new PcapRecord();
            assertThat(r.next(rec)).isTrue();
            assertThat(rec.timestampNanos()).isEqualTo(1_700_000_000_123_456_000L);
            assertThat(rec.capturedLength()).isEqualTo(64);
            assertThat(rec.originalLength()).isEqualTo(1514);
            assertThat(Arrays.copyOf(rec.data(), 64)).isEqualTo(frame);
            assertThat(r.next(rec)).isTrue();
            assertThat(rec.timestampNanos()).isEqualTo(1_700_000_001_999_999_000L);
            assertThat(rec.fileOffset()).isEqualTo(24 + 16 + 64);
            assertThat(Arrays.copyOf(rec.data(), 4)).containsExactly(1, 2, 3, 4);
            assertThat(r.next(rec)).isFalse();
        }
    }

    @Test
    void readsNanosecondFilesInBothByteOrders() throws IOException {
        for (ByteOrder order : List.of(ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN)) {
            byte[] file = pcap(order, 0xa1b23c4d, 262144, 101,
                    record(1_600_000_000L, 987_654_321, 3, 3), new byte[] {0x45, 0, 0});
            byte[] expectedMagic = order == ByteOrder.BIG_ENDIAN ? Captures.hex("a1b23c4d") : Captures.hex("4d3cb2a1");
            assertThat(Arrays.copyOf(file, 4)).isEqualTo(expectedMagic);
            try (PcapReader r = new PcapReader(new ByteArrayInputStream(file))) {
                assertThat(r.nanosecondResolution()).isTrue();
                assertThat(r.bigEndian()).isEqualTo(order == ByteOrder.BIG_ENDIAN);
                assertThat(r.linkType()).isEqualTo(LinkType.RAW);
                PcapRecord rec = new PcapRecord();
                assertThat(r.next(rec)).isTrue();
                assertThat(rec.timestampNanos()).isEqualTo(1_600_000_000_987_654_321L);
                assertThat(rec.capturedLength()).isEqualTo(3);
                assertThat(r.next(rec)).isFalse();
            }
        }
    }

    @Test
    void timestampsAfter2038AreUnsigned() throws IOException {
        byte[] file = pcap(ByteOrder.LITTLE_ENDIAN, 0xa1b2c3d4, 65535, 1,
                record(0xFFFF_FFF0L, 1, 0, 0), new byte[0]);
        try (PcapReader r = new PcapReader(new ByteArrayInputStream(file))) {
            PcapRecord rec = new PcapRecord();
            assertThat(r.next(rec)).isTrue();
            assertThat(rec.timestampNanos()).isEqualTo(0xFFFF_FFF0L * 1_000_000_000L + 1_000L);
            assertThat(rec.capturedLength()).isZero();
        }
    }

    // ---- errors ------------------------------------------------------------------------------------

    @Test
    void rejectsPcapng() {
        byte[] shb = Captures.hex("0a0d0d0a 1c000000 4d3c2b1a 01000000 ffffffffffffffff 1c000000");
        assertThatThrownBy(() -> new PcapReader(new ByteArrayInputStream(shb)))
                .isInstanceOf(PcapFormatException.class)
                .hasMessageStartingWith("pcapng is not supported yet; convert with `editcap -F pcap")
                .hasMessageContaining("offset 0");
    }

    @Test
    void rejectsNonPcapMagic() {
        byte[] elf = Captures.hex("7f454c46 02010100 00000000 00000000 03003e00 01000000");
        assertThatThrownBy(() -> new PcapReader(new ByteArrayInputStream(elf)))
                .isInstanceOf(PcapFormatException.class)
                .hasMessage("not a pcap file: bad magic_number 0x7f454c46 at offset 0 (expected 0xa1b2c3d4"
                        + " or 0xa1b23c4d, in either byte order)");
    }

    @Test
    void rejectsEmptyAndShortFileHeader() throws IOException {
        assertThatThrownBy(() -> new PcapReader(new ByteArrayInputStream(new byte[0])))
                .isInstanceOf(PcapFormatException.class)
                .hasMessage("empty file: no pcap file header (magic_number) at offset 0, need 24 bytes, got 0");
        byte[] head = Arrays.copyOf(Files.readAllBytes(TCPREPLAY), 20);
        assertThatThrownBy(() -> new PcapReader(new ByteArrayInputStream(head)))
                .isInstanceOf(PcapFormatException.class)
                .hasMessage("truncated pcap file header at offset 20: need 24 bytes, got 20")
                .satisfies(e -> assertThat(((PcapFormatException) e).offset()).isEqualTo(20));
    }

    @Test
    void rejectsUnknownMajorVersion() {
        byte[] file = pcap(ByteOrder.LITTLE_ENDIAN, 0xa1b2c3d4, 65535, 1);
        file[4] = 3;
        assertThatThrownBy(() -> new PcapReader(new ByteArrayInputStream(file)))
                .hasMessage("unsupported pcap version_major 3 at offset 4 (expected 2)");
    }

    @Test
    void rejectsTruncatedRecordHeaderWithItsOffset() throws IOException {
        // record 1 at 24 (16 + 93 bytes), record 2 header at 133: keep only 10 of its 16 bytes
        byte[] cut = Arrays.copyOf(Files.readAllBytes(TCPREPLAY), 133 + 10);
        try (PcapReader r = new PcapReader(new ByteArrayInputStream(cut))) {
            PcapRecord rec = new PcapRecord();
            assertThat(r.next(rec)).isTrue();
            assertThatThrownBy(() -> r.next(rec))
                    .isInstanceOf(PcapFormatException.class)
                    .hasMessage("truncated record header at offset 133: need 16 bytes, got 10")
                    .satisfies(e -> assertThat(((PcapFormatException) e).offset()).isEqualTo(133));
        }
    }

    @Test
    void rejectsTruncatedRecordDataWithItsOffset() throws IOException {
        // record 2 (66 bytes) data starts at 149: keep 5 bytes of it
        byte[] cut = Arrays.copyOf(Files.readAllBytes(TCPREPLAY), 149 + 5);
        try (PcapReader r = new PcapReader(new ByteArrayInputStream(cut))) {
            PcapRecord rec = new PcapRecord();
            assertThat(r.next(rec)).isTrue();
            assertThatThrownBy(() -> r.next(rec))
                    .isInstanceOf(PcapFormatException.class)
                    .hasMessage("truncated record data at offset 149 (record at offset 133): incl_len 66 but only"
                            + " 5 bytes left")
                    .satisfies(e -> assertThat(((PcapFormatException) e).offset()).isEqualTo(149));
        }
    }

    @Test
    void readAllReportsTruncationToo(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("cut.pcap");
        Files.write(f, Arrays.copyOf(Files.readAllBytes(TCPREPLAY), 71_888 - 1));
        assertThatThrownBy(() -> PcapReader.readAll(f))
                .isInstanceOf(PcapFormatException.class)
                .hasMessageStartingWith("truncated record data at offset ")
                .hasMessageEndingWith("incl_len 144 but only 143 bytes left");
    }

    @Test
    void rejectsOversizedInclLenBeforeAllocating() throws IOException {
        byte[] bytes = Files.readAllBytes(TCPREPLAY);
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(133 + 8, 262_145);
        try (PcapReader r = new PcapReader(new ByteArrayInputStream(bytes))) {
            PcapRecord rec = new PcapRecord();
            assertThat(r.next(rec)).isTrue();
            assertThatThrownBy(() -> r.next(rec))
                    .isInstanceOf(PcapFormatException.class)
                    .hasMessage("record at offset 133: incl_len 262145 (at offset 141) exceeds the limit of"
                            + " 262144 bytes (snaplen 262144)")
                    .satisfies(e -> assertThat(((PcapFormatException) e).offset()).isEqualTo(133));
            assertThat(rec.data().length).as("nothing allocated for the bad record").isLessThan(4096);
        }
    }

    @Test
    void recordCapFollowsSnaplenWithinSaneBounds() throws IOException {
        // snaplen 1 MB: a 500 kB record is fine
        byte[] big = new byte[500_000];
        big[499_999] = 7;
        try (PcapReader r = new PcapReader(new ByteArrayInputStream(pcap(ByteOrder.LITTLE_ENDIAN, 0xa1b2c3d4,
                1_000_000, 1, record(1, 0, big.length, big.length), big)))) {
            assertThat(r.maxRecordLength()).isEqualTo(1_000_000);
            PcapRecord rec = new PcapRecord();
            assertThat(r.next(rec)).isTrue();
            assertThat(rec.data()[499_999]).isEqualTo((byte) 7);
        }
        // snaplen 0 and an absurd snaplen fall back to 262144
        for (long snap : new long[] {0, 0xFFFF_FFFFL, PcapReader.SNAPLEN_SANITY_LIMIT + 1L}) {
            byte[] file = pcap(ByteOrder.BIG_ENDIAN, 0xa1b2c3d4, snap, 1, record(1, 0, 300_000, 300_000));
            try (PcapReader r = new PcapReader(new ByteArrayInputStream(file))) {
                assertThat(r.maxRecordLength()).isEqualTo(262_144);
                assertThatThrownBy(() -> r.next(new PcapRecord()))
                        .isInstanceOf(PcapFormatException.class)
                        .hasMessageContaining("record at offset 24: incl_len 300000 (at offset 32) exceeds the"
                                + " limit of 262144 bytes");
            }
        }
    }

    @Test
    void rejectsSubSecondFieldOutOfRange() throws IOException {
        byte[] file = pcap(ByteOrder.LITTLE_ENDIAN, 0xa1b2c3d4, 65535, 1, record(5, 1_000_000, 0, 0));
        try (PcapReader r = new PcapReader(new ByteArrayInputStream(file))) {
            assertThatThrownBy(() -> r.next(new PcapRecord()))
                    .hasMessage("record at offset 24: ts_usec 1000000 (at offset 28) is not below one second");
        }
    }

    // ---- helpers: build pcap bytes --------------------------------------------------------------

    /** File header + the given chunks, multi-byte fields in {@code order}. */
    static byte[] pcap(ByteOrder order, int magic, long snaplen, int linktype, Object... chunks) {
        List<byte[]> parts = new ArrayList<>();
        ByteBuffer h = ByteBuffer.allocate(24).order(order);
        h.putInt(magic).putShort((short) 2).putShort((short) 4).putInt(0).putInt(0)
                .putInt((int) snaplen).putInt(linktype);
        parts.add(h.array());
        for (Object c : chunks) {
            parts.add(c instanceof long[] rec ? recordBytes(order, rec) : (byte[]) c);
        }
        int total = parts.stream().mapToInt(p -> p.length).sum();
        ByteBuffer out = ByteBuffer.allocate(total);
        parts.forEach(out::put);
        return out.array();
    }

    static long[] record(long seconds, long fraction, long inclLen, long origLen) {
        return new long[] {seconds, fraction, inclLen, origLen};
    }

    private static byte[] recordBytes(ByteOrder order, long[] rec) {
        ByteBuffer b = ByteBuffer.allocate(16).order(order);
        for (long v : rec) {
            b.putInt((int) v);
        }
        return b.array();
    }
}
