package io.vecflow.collector;

import io.vecflow.packet.PacketParser;
import io.vecflow.packet.ParsedPacket;
import io.vecflow.packet.PcapFile;
import io.vecflow.packet.PcapPacket;
import io.vecflow.packet.PcapReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * Reads the UDP payloads (sFlow datagrams) out of the bundled captures in {@code testdata/sflow} (sources and expected
 * values: {@code testdata/MANIFEST.md}; tcpdump tests, Akvorado test data, goflow2 tests).
 */
public final class Captures {
    private Captures() {}

    static Path sflowDir() {
        return Path.of("..", "testdata", "sflow");
    }

    /** @return every {@code .pcap} in testdata/sflow, sorted by name. */
    public static List<String> all() throws IOException {
        try (Stream<Path> s = Files.list(sflowDir())) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".pcap")).sorted().toList();
        }
    }

    /** @return the UDP payload of every UDP packet in the capture, in order (length from the UDP header). */
    public static List<byte[]> udpPayloads(String name) throws IOException {
        PcapFile file = PcapReader.readAll(sflowDir().resolve(name));
        List<byte[]> out = new ArrayList<>();
        ParsedPacket pp = new ParsedPacket();
        for (PcapPacket p : file.packets()) {
            byte[] d = p.data();
            PacketParser.parse(d, 0, d.length, file.linkType(), pp);
            if (pp.protocol() != 17) {
                continue;
            }
            int udpLen = ((d[pp.l4Offset() + 4] & 0xFF) << 8) | (d[pp.l4Offset() + 5] & 0xFF);
            int from = pp.l4Offset() + 8;
            int to = Math.min(d.length, pp.l4Offset() + udpLen);
            out.add(Arrays.copyOfRange(d, from, to));
        }
        if (out.isEmpty()) {
            throw new IllegalStateException("no UDP packet in " + name);
        }
        return out;
    }
}
