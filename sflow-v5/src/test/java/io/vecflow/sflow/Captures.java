package io.vecflow.sflow;

import io.vecflow.packet.PacketParser;
import io.vecflow.packet.ParsedPacket;
import io.vecflow.packet.PcapFile;
import io.vecflow.packet.PcapPacket;
import io.vecflow.packet.PcapReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Reads the UDP payloads (sFlow datagrams) out of the bundled captures in {@code testdata/sflow}. */
final class Captures {
    private Captures() {}

    static Path sflow(String name) {
        return Path.of("..", "testdata", "sflow", name);
    }

    /** @return the UDP payload of every UDP packet in the capture, in order. */
    static List<byte[]> udpPayloads(String name) throws IOException {
        PcapFile file = PcapReader.readAll(sflow(name));
        List<byte[]> out = new ArrayList<>();
        ParsedPacket pp = new ParsedPacket();
        for (PcapPacket p : file.packets()) {
            PacketParser.parse(p.data(), 0, p.data().length, file.linkType(), pp);
            if (pp.protocol() != 17) {
                continue;
            }
            int udpLen = ((p.data()[pp.l4Offset() + 4] & 0xFF) << 8) | (p.data()[pp.l4Offset() + 5] & 0xFF);
            int from = pp.l4Offset() + 8;
            int to = Math.min(p.data().length, pp.l4Offset() + udpLen);
            out.add(Arrays.copyOfRange(p.data(), from, to));
        }
        return out;
    }
}
