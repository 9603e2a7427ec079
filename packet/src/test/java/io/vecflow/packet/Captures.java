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
        return String.join(" ", ParsedPacket.statusName(p.status()),
                "err=" + p.errorOffset() + "/" + p.errorLayer() + "/" + p.errorDepth(), outerFields(p), tunnelFields(p),
                innerFields(p));
    }

    /** The outer view: link layer, MPLS, first IP header and its transport header, SRH. */
    static String outerFields(ParsedPacket p) {
        StringBuilder mpls = new StringBuilder("mpls=").append(p.mplsPseudowire() ? "pw" : "");
        for (int i = 0; i < p.mplsLabelCount(); i++) {
            mpls.append('/').append(p.mplsLabel(i)).append(',').append(p.mplsTrafficClass(i)).append(',')
                    .append(p.mplsTtl(i));
        }
        StringBuilder srh = new StringBuilder("rt=" + p.routingHeaderType());
        if (p.srhPresent()) {
            srh.append(" srh=").append(p.srhSegmentsLeft()).append('/').append(p.srhLastEntry()).append('/')
                    .append(p.srhSegmentCount());
            for (int i = 0; i < Math.min(16, p.srhSegmentCount()); i++) {
                srh.append(',').append(p.srhSegmentString(i));
            }
        }
        return String.join(" ",
                "link=" + p.linkType(), "l2=" + p.l2Offset(), Long.toHexString(p.dstMac()),
                        Long.toHexString(p.srcMac()),
                "vlans=" + p.vlanCount() + "/" + p.outerVlan() + "/" + p.innerVlan() + "/" + p.vlanPriority(),
                "type=" + Integer.toHexString(p.etherType()), "l3=" + p.l3Offset(), "v" + p.ipVersion(),
                Long.toHexString(p.srcAddrHi()), Long.toHexString(p.srcAddrLo()),
                Long.toHexString(p.dstAddrHi()), Long.toHexString(p.dstAddrLo()),
                "iplen=" + p.ipTotalLength(), "tos=" + p.tos(), "ttl=" + p.ttl(),
                "frag=" + p.isFragment() + "/" + p.fragmentOffset() + "/" + p.moreFragments(), "proto=" + p.protocol(),
                "l4=" + p.l4Offset(), "ports=" + p.srcPort() + "/" + p.dstPort(), "flags=" + p.tcpFlags(),
                "icmp=" + p.icmpType() + "/" + p.icmpCode(),
                "present=" + (p.portsPresent() ? "p" : "") + (p.tcpFlagsPresent() ? "f" : "") + (p.icmpPresent() ? "i"
                        : ""),
                "snap=" + p.llcSnap(), mpls.toString(), srh.toString());
    }

    /** Tunnel headers: kinds per level, depth, GRE, VXLAN and Geneve fields. */
    static String tunnelFields(ParsedPacket p) {
        StringBuilder kinds = new StringBuilder("encap=").append(p.encapsulation());
        for (int i = 0; i < p.tunnelDepth(); i++) {
            kinds.append('/').append(p.encapsulationAt(i));
        }
        return String.join(" ", kinds.toString(), "depth=" + p.tunnelDepth() + (p.tunnelLimitReached() ? "+" : ""),
                "gre=" + p.grePresent() + "/" + Integer.toHexString(p.greProtocol()) + "/" + p.greChecksumPresent()
                        + "/" + p.greKeyPresent() + "/" + p.greKey() + "/" + p.greSequencePresent() + "/"
                                + p.greSequence(),
                "vxlan=" + p.vxlanVni(), "geneve=" + p.geneveVni() + "/" + p.geneveOptionsLength());
    }

    /** The inner view (innermost tunnelled packet). */
    static String innerFields(ParsedPacket p) {
        return String.join(" ", "in.l2=" + p.innerL2Offset(), Long.toHexString(p.innerDstMac()),
                Long.toHexString(p.innerSrcMac()), "in.vlans=" + p.innerVlanCount() + "/" + p.innerVlanId(),
                "in.type=" + Integer.toHexString(p.innerEtherType()), "in.l3=" + p.innerL3Offset(),
                "in.v" + p.innerIpVersion(), Long.toHexString(p.innerSrcAddrHi()), Long.toHexString(p.innerSrcAddrLo()),
                Long.toHexString(p.innerDstAddrHi()), Long.toHexString(p.innerDstAddrLo()),
                "in.iplen=" + p.innerIpTotalLength(), "in.tos=" + p.innerTos(), "in.ttl=" + p.innerTtl(),
                "in.frag=" + p.innerIsFragment() + "/" + p.innerFragmentOffset() + "/" + p.innerMoreFragments(),
                "in.proto=" + p.innerProtocol(), "in.l4=" + p.innerL4Offset(),
                "in.ports=" + p.innerSrcPort() + "/" + p.innerDstPort(), "in.flags=" + p.innerTcpFlags(),
                "in.icmp=" + p.innerIcmpType() + "/" + p.innerIcmpCode(),
                "in.present=" + (p.innerPortsPresent() ? "p" : "") + (p.innerTcpFlagsPresent() ? "f" : "")
                        + (p.innerIcmpPresent() ? "i" : ""));
    }

    /** Hex string (whitespace ignored) to bytes. */
    static byte[] hex(String s) {
        return java.util.HexFormat.of().parseHex(s.replaceAll("\\s+", ""));
    }
}
