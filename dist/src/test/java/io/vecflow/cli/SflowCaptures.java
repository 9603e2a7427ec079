package io.vecflow.cli;

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

/** UDP payloads of a capture (the sFlow datagrams in testdata/sflow). */
final class SflowCaptures {
    private SflowCaptures() {}

    static List<byte[]> udpPayloads(Path capture) throws IOException {
        PcapFile f = PcapReader.readAll(capture);
        List<byte[]> out = new ArrayList<>();
        ParsedPacket p = new ParsedPacket();
        for (PcapPacket pkt : f.packets()) {
            byte[] d = pkt.data();
            PacketParser.parse(d, 0, d.length, f.linkType(), p);
            if (p.protocol() != 17 || p.l4Offset() < 0) {
                continue;
            }
            int udpLen = (d[p.l4Offset() + 4] & 0xFF) << 8 | (d[p.l4Offset() + 5] & 0xFF);
            out.add(Arrays.copyOfRange(d, p.l4Offset() + 8, Math.min(d.length, p.l4Offset() + udpLen)));
        }
        return out;
    }
}
