package io.vecflow.cli;

import io.vecflow.packet.PcapFile;
import io.vecflow.packet.PcapPacket;
import io.vecflow.packet.PcapReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Reads the UDP payloads (sFlow datagrams) back out of the demo's datagrams.pcap (Ethernet/IPv4/UDP, 42 bytes). */
final class Datagrams {
    private Datagrams() {}

    static List<byte[]> payloads(Path pcap) throws IOException {
        PcapFile f = PcapReader.readAll(pcap);
        List<byte[]> out = new ArrayList<>();
        for (PcapPacket p : f.packets()) {
            byte[] d = p.data();
            out.add(Arrays.copyOfRange(d, 42, d.length));
        }
        return out;
    }
}
