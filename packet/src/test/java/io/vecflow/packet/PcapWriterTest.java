package io.vecflow.packet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PcapWriterTest {

    @Test
    void rewritesTcpreplayCaptureByteForByte(@TempDir Path dir) throws IOException {
        // tcpreplay-test.pcap is a little-endian microsecond file, snaplen 262144, thiszone/sigfigs 0:
        // exactly what PcapWriter produces, so a read/write round trip must reproduce it exactly.
        Path original = Captures.traffic("tcpreplay-test.pcap");
        Path copy = dir.resolve("copy.pcap");
        try (PcapReader r = PcapReader.open(original);
             PcapWriter w = PcapWriter.create(copy, r.linkType(), r.snapLength())) {
            PcapRecord rec = new PcapRecord();
            while (r.next(rec)) {
                w.write(rec.timestampNanos(), rec.data(), 0, rec.capturedLength(), rec.originalLength());
            }
        }
        assertThat(Files.readAllBytes(copy)).isEqualTo(Files.readAllBytes(original));
    }

    @Test
    void writesLittleEndianMicrosecondHeader() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PcapWriter w = new PcapWriter(out, LinkType.LINUX_SLL, 65535)) {
            assertThat(w.linkType()).isEqualTo(LinkType.LINUX_SLL);
            assertThat(w.snapLength()).isEqualTo(65535);
        }
        assertThat(out.toByteArray()).isEqualTo(Captures.hex(
                "d4c3b2a1 0200 0400 00000000 00000000 ffff0000 71000000"));
    }

    @Test
    void roundTripsTimestampsLengthsAndSnaplenCut() throws IOException {
        byte[] ipv6 = Captures.load("icmpv6.pcap").packets().getFirst().data(); // 230 bytes
        byte[] payload = Arrays.copyOfRange(ipv6, 14, ipv6.length); // raw IPv6, 216 bytes
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (PcapWriter w = new PcapWriter(out, LinkType.IPV6, 100)) {
            w.write(1_334_319_972_631_155_789L, payload, 0, payload.length, payload.length);
            w.write(1_334_319_972_000_000_999L, payload, 10, 50, 1500);
            w.write(7L, new byte[0]);
        }
        try (PcapReader r = new PcapReader(new ByteArrayInputStream(out.toByteArray()))) {
            assertThat(r.linkType()).isEqualTo(LinkType.IPV6);
            assertThat(r.snapLength()).isEqualTo(100);
            assertThat(r.nanosecondResolution()).isFalse();
            assertThat(r.bigEndian()).isFalse();
            PcapRecord rec = new PcapRecord();

            assertThat(r.next(rec)).isTrue();
            assertThat(rec.timestampNanos()).as("floored to µs").isEqualTo(1_334_319_972_631_155_000L);
            assertThat(rec.capturedLength()).as("cut to snaplen").isEqualTo(100);
            assertThat(rec.originalLength()).isEqualTo(216);
            assertThat(Arrays.copyOf(rec.data(), 100)).isEqualTo(Arrays.copyOf(payload, 100));

            ParsedPacket p = new ParsedPacket();
            assertThat(PacketParser.parse(rec.data(), 0, rec.capturedLength(), r.linkType(), p))
                    .isEqualTo(ParsedPacket.OK);
            assertThat(p.srcAddressString()).isEqualTo("fe80::b299:28ff:fec8:d66c");
            assertThat(p.icmpType()).isEqualTo(134); // router advertisement

            assertThat(r.next(rec)).isTrue();
            assertThat(rec.timestampNanos()).isEqualTo(1_334_319_972_000_000_000L);
            assertThat(rec.capturedLength()).isEqualTo(50);
            assertThat(rec.originalLength()).isEqualTo(1500);
            assertThat(Arrays.copyOf(rec.data(), 50)).isEqualTo(Arrays.copyOfRange(payload, 10, 60));

            assertThat(r.next(rec)).isTrue();
            assertThat(rec.timestampNanos()).isZero();
            assertThat(rec.capturedLength()).isZero();
            assertThat(r.next(rec)).isFalse();
        }
    }

    @Test
    void rejectsInvalidArguments() throws IOException {
        assertThatThrownBy(() -> new PcapWriter(new ByteArrayOutputStream(), LinkType.ETHERNET, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("snapLength 0");
        try (PcapWriter w = new PcapWriter(new ByteArrayOutputStream(), LinkType.ETHERNET, 1514)) {
            byte[] data = new byte[60];
            assertThatThrownBy(() -> w.write(-1, data, 0, 60, 60))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timestampNanos -1");
            assertThatThrownBy(() -> w.write((1L << 32) * 1_000_000_000L, data, 0, 60, 60))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> w.write(0, data, 0, 60, 59))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("originalLength 59");
            assertThatThrownBy(() -> w.write(0, data, 10, 60, 60))
                    .isInstanceOf(IndexOutOfBoundsException.class);
        }
    }
}
