package io.vecflow.packet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * Paths to the shared test captures (see testdata/MANIFEST.md). Sources: tcpdump's test suite
 * (BSD licence) and tcpreplay's test capture (GPLv3 data); surefire runs in the module directory.
 */
final class Captures {
    static final Path TRAFFIC = Path.of("../testdata/traffic");
    static final Path SFLOW = Path.of("../testdata/sflow");

    private Captures() {
    }

    static Path traffic(String name) {
        return TRAFFIC.resolve(name);
    }

    static PcapFile load(String trafficName) {
        try {
            return PcapReader.readAll(traffic(trafficName));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every field of a parse result except {@link ParsedPacket#length()}, for whole-result comparisons. */
    static String fields(ParsedPacket p) {
        return String.join(" ", ParsedPacket.statusName(p.status()), "err=" + p.errorOffset() + "/" + p.errorLayer(),
                "link=" + p.linkType(), "l2=" + p.l2Offset(), Long.toHexString(p.dstMac()), Long.toHexString(p.srcMac()),
                "vlans=" + p.vlanCount() + "/" + p.outerVlan() + "/" + p.innerVlan() + "/" + p.vlanPriority(),
                "type=" + Integer.toHexString(p.etherType()), "l3=" + p.l3Offset(), "v" + p.ipVersion(),
                Long.toHexString(p.srcAddrHi()), Long.toHexString(p.srcAddrLo()),
                Long.toHexString(p.dstAddrHi()), Long.toHexString(p.dstAddrLo()),
                "iplen=" + p.ipTotalLength(), "tos=" + p.tos(), "ttl=" + p.ttl(),
                "frag=" + p.isFragment() + "/" + p.fragmentOffset(), "proto=" + p.protocol(), "l4=" + p.l4Offset(),
                "ports=" + p.srcPort() + "/" + p.dstPort(), "flags=" + p.tcpFlags(),
                "icmp=" + p.icmpType() + "/" + p.icmpCode());
    }

    /** Hex string (whitespace ignored) to bytes. */
    static byte[] hex(String s) {
        return java.util.HexFormat.of().parseHex(s.replaceAll("\\s+", ""));
    }
}
