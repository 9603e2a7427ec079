package io.vecflow.bench;

import io.vecflow.packet.LinkType;
import io.vecflow.packet.PacketParser;
import io.vecflow.packet.ParsedPacket;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * (c) {@link PacketParser#parse(byte[], int, int, LinkType, ParsedPacket)} cycling over every packet of every capture
 * in testdata/traffic (testdata/MANIFEST.md: Ethernet, Linux cooked, VLAN/QinQ, MPLS, IPv6 extension headers, tunnels).
 * One operation = one packet: the score is packets/s.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
public class PacketParseBenchmark extends QuietGate {
    private byte[][] packets;
    private LinkType[] linkTypes;
    private int next;
    private final ParsedPacket out = new ParsedPacket();

    /** Loads the captures. */
    @Setup
    public void load() {
        List<BenchData.Packet> l = BenchData.trafficPackets();
        packets = new byte[l.size()][];
        linkTypes = new LinkType[l.size()];
        for (int i = 0; i < l.size(); i++) {
            packets[i] = l.get(i).data();
            linkTypes[i] = l.get(i).linkType();
        }
    }

    /** Parses the next packet. @return status and a few fields (defeats dead-code elimination) */
    @Benchmark
    public long parse() {
        int i = next;
        next = i + 1 == packets.length ? 0 : i + 1;
        byte[] p = packets[i];
        int st = PacketParser.parse(p, 0, p.length, linkTypes[i], out);
        return st + out.srcPort() + out.dstPort() + out.protocol() + out.srcAddrLo();
    }
}
