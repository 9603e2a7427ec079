package io.vecflow.lab.kernel;

import com.fasterxml.jackson.databind.JsonNode;
import io.vecflow.sflow.DiscardReasons;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Drops (issue 9, check 3): the agent's dropmon module ({@code dropmon { }} in hsflowd.conf: CONFIG packet mode,
 * TRUNC_LEN = headerBytes, QUEUE_LEN 1000, START) on the real NET_DM, and three drops of known kinds caused on
 * purpose. Each probe is an Ethernet/IPv4/UDP frame sent out of {@value #TX} with AF_PACKET, so it enters the stack on
 * {@value #RX} (10.99.0.1/24; forwarding on, a static neighbour for 10.99.0.2 so replies need no ARP):
 * <table>
 *   <caption>probes and the sFlow discard reasons (sflow_drops.txt) dropmon maps the kernel's REASON to
 *   (host-sflow dropPoints_rn.h; DropPoints)</caption>
 *   <tr><th>probe</th><th>kernel REASON</th><th>sFlow reason</th></tr>
 *   <tr><td>UDP to 10.99.0.1:9, no socket</td><td>NO_SOCKET</td><td>3 port_unreachable</td></tr>
 *   <tr><td>UDP to 10.99.0.1:40002, nft {@code udp dport 40002 drop} on input</td><td>NETFILTER_DROP</td>
 *       <td>258 acl</td></tr>
 *   <tr><td>UDP to 198.51.100.7 (no route), forwarded</td><td>IP_INNOROUTES</td><td>0 net_unreachable</td></tr>
 * </table>
 * Each probe must give exactly one discarded_packet sample (0:5) whose header is the probe frame, with the reason
 * code, record 0:1042 = the kernel's REASON, input = source_id index = ifindex(RX), frame_length = frame + 4; and one
 * collector row with the same. Other drops the guest makes meanwhile are listed, not judged.
 */
public final class DropsCheck implements GuestCheck {
    static final String TX = "vflab3a";
    static final String RX = "vflab3b";
    static final String RX_IP = "10.99.0.1";
    static final String PEER_IP = "10.99.0.2";

    record Probe(String what, String dstIp, int srcPort, int dstPort, String kernelReason, int sflowReason) {}

    static final List<Probe> PROBES = List.of(
            new Probe("UDP to a closed port", RX_IP, 41001, 9, "NO_SOCKET", 3),
            new Probe("UDP dropped by an nftables rule", RX_IP, 41002, 40002, "NETFILTER_DROP", 258),
            new Probe("UDP to an unroutable destination", "198.51.100.7", 41003, 40003, "IP_INNOROUTES", 0));

    @Override
    public String name() {
        return "drops";
    }

    @Override
    public void run() throws Exception {
        Sh.run(false, "ip", "link", "del", TX);
        Sh.run(false, "nft", "delete table inet vflab");
        try {
            Net.vethPair(TX, RX);
            int rx = Sh.ifindex(RX);
            Sh.run("ip", "addr", "add", RX_IP + "/24", "dev", RX);
            Sh.run("ip", "neigh", "replace", PEER_IP, "lladdr", KernelToAgentCheck.mac(Sh.mac(TX), 0), "dev", RX,
                    "nud", "permanent");
            Sh.run("sysctl", "-qw", "net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0",
                    "net.ipv4.conf." + RX + ".rp_filter=0");
            Sh.run("nft", "add table inet vflab");
            Sh.run("nft", "add chain inet vflab input { type filter hook input priority 0 ; }");
            Sh.run("nft", "add rule inet vflab input udp dport 40002 drop");
            Check.log("veth %s → %s (ifindex %d, %s/24), forwarding on, nft inet vflab drops udp dport 40002", TX, RX,
                    rx, RX_IP);
            List<byte[]> frames = new ArrayList<>();
            for (Probe p : PROBES) {
                frames.add(ProbeFrames.udp4(Sh.mac(RX), Sh.mac(TX), ProbeFrames.ip4(PEER_IP),
                        ProbeFrames.ip4(p.dstIp()),
                        p.srcPort(), p.dstPort(), "vflab drop probe: " + p.what()));
            }
            try (AgentUnderTest a = new AgentUnderTest(name(),
                    "sampling = 1\n  headerBytes = 128\n  psample { group = 9 }"
                    + "\n  dropmon { limit = 10000 }");
                 PacketSender tx = new PacketSender(TX)) {
                Check.equal("dropmon: feed CONFIG/START refused by the kernel", 0L, a.dropmon().feedControlErrors());
                Check.log("agent started; dropmon configured and started NET_DM (packet mode)");
                for (byte[] f : frames) {
                    tx.send(f, 0, f.length);
                }
                Check.log("%d probes sent", frames.size());
                List<SeenSample> seen = a.awaitSamples(s -> s.discard() && probeOf(s, frames) >= 0, frames.size());
                int other = 0;
                for (SeenSample s : seen) {
                    if (s.discard() && probeOf(s, frames) < 0) {
                        other++;
                        Check.log("other drop (not judged): reason %d %s, %s, input %d, symbol %s", s.reason(),
                                DiscardReasons.name(s.reason()), s.linuxDropReason(), s.input(), s.function());
                    }
                }
                for (int i = 0; i < PROBES.size(); i++) {
                    Probe p = PROBES.get(i);
                    final int idx = i;
                    List<SeenSample> mine = seen.stream().filter(s -> s.discard() && probeOf(s, frames) == idx)
                            .toList();
                    String w = "probe '" + p.what() + "'";
                    Check.equal(w + ": discard samples", 1, mine.size());
                    SeenSample s = mine.getFirst();
                    Check.log("%s: reason %d (%s), linux reason %s, symbol %s, input %d", p.what(), s.reason(),
                            DiscardReasons.name(s.reason()), s.linuxDropReason(), s.function(), s.input());
                    Check.equal(w + ": linux drop reason (0:1042)", p.kernelReason(), s.linuxDropReason());
                    Check.equal(w + ": sFlow reason code", (long) p.sflowReason(), s.reason());
                    Check.equal(w + ": input", rx, s.input());
                    Check.equal(w + ": source_id", "0:" + rx, s.sourceIdType() + ":" + s.sourceIdIndex());
                    Check.equal(w + ": output", 0L, s.output());
                    Check.equal(w + ": header_protocol", 1, s.headerProtocol());
                    Check.equal(w + ": frame_length (frame + 4)", frames.get(i).length + 4L, s.frameLength());
                    Check.equal(w + ": header", Check.hex(frames.get(i), 0, frames.get(i).length),
                            Check.hex(s.header(), 0, s.header().length));
                    Check.that(w + ": symbol (0:1038) present", s.function() != null && !s.function().isEmpty());
                }
                List<JsonNode> rows = a.stopAndReadRows();
                for (Probe p : PROBES) {
                    List<JsonNode> mine = rows.stream().filter(r -> r.get("sample_type").asText().equals("discard")
                            && r.get("protocol").asInt() == 17 && r.get("src_port").asInt() == p.srcPort()).toList();
                    String w = "collector rows for probe '" + p.what() + "'";
                    Check.equal(w, 1, mine.size());
                    JsonNode r = mine.getFirst();
                    Check.equal(w + " discard_reason", (long) p.sflowReason(), r.get("discard_reason").asLong());
                    Check.equal(w + " discard_reason_name", DiscardReasons.name(p.sflowReason()),
                            r.get("discard_reason_name").asText());
                    Check.equal(w + " input", rx, r.get("input").asLong());
                    Check.equal(w + " src_addr", PEER_IP, r.get("src_addr").asText());
                    Check.equal(w + " dst_addr", p.dstIp(), r.get("dst_addr").asText());
                    Check.equal(w + " dst_port", p.dstPort(), r.get("dst_port").asInt());
                }
                Check.log("collector: one discard row per probe with its reason and input (%d rows in all, %d other "
                        + "drops)", rows.size(), other);
            }
        } finally {
            Sh.run(false, "nft", "delete table inet vflab");
            Sh.run(false, "sysctl", "-qw", "net.ipv4.ip_forward=0");
            Sh.run(false, "ip", "link", "del", TX);
        }
    }

    /** Index of the probe whose frame is the sample's header, or -1. */
    static int probeOf(SeenSample s, List<byte[]> frames) {
        for (int i = 0; i < frames.size(); i++) {
            byte[] f = frames.get(i);
            int n = Math.min(f.length, s.header().length);
            // src port (bytes 34..35) identifies the probe even when the kernel's payload were cut shorter
            if (n >= 36 && Arrays.equals(s.header(), 0, 36, f, 0, 36)) {
                return i;
            }
        }
        return -1;
    }
}
