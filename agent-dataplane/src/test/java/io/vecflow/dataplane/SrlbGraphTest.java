package io.vecflow.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.dataplane.control.DataplaneControl;
import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.plugins.lb.EncapType;
import io.vecflow.dataplane.plugins.lb.LoadBalancer;
import io.vecflow.dataplane.plugins.lb.Protocol;
import io.vecflow.dataplane.plugins.lb.VipKey;
import io.vecflow.dataplane.plugins.lb.encap.Decap;
import io.vecflow.dataplane.plugins.lb.encap.Encap;
import io.vecflow.dataplane.plugins.lb.maglev.FlowKey;
import io.vecflow.dataplane.plugins.srlb.SrlbAgent;
import io.vecflow.dataplane.plugins.srlb.load.SettableLoadSource;
import io.vecflow.dataplane.plugins.srlb.load.StaticThreshold;
import io.vecflow.dataplane.plugins.srlb.state.ServerAgentState;
import io.vecflow.dataplane.port.PcapReplayPort;
import io.vecflow.dataplane.port.SinkPort;
import io.vecflow.dataplane.sflow.SampleFifo;
import io.vecflow.dataplane.sflow.SampleRecord;
import io.vecflow.dataplane.sflow.SflowNode;
import io.vecflow.dataplane.vnet.error.DropReason;
import io.vecflow.dataplane.vnet.fib.Forwarding;
import io.vecflow.dataplane.vnet.interfaces.InterfaceTable;
import io.vecflow.dataplane.vnet.interfaces.Port;
import io.vecflow.netlink.psample.LbDecisionCookie;
import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleEmitter;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * SRLB through real graphs, in memory: one LB dataplane ({@code lb6} with an {@code encap srlb} VIP) and two server
 * dataplanes with the {@code srlb-sa6} agent (static threshold c = 2 on a settable test load), frames carried between
 * their {@link MemoryPort}s by the test. The whole docs/load-balancing.md §3 exchange of one TCP connection is checked
 * byte by byte: hunting SRH [c1, c2, LB SID, VIP] on the SYN; the loaded first candidate passes (segments left 3 → 2);
 * the second accepts and delivers the SYN with the SRH popped; its SYN-ACK goes [client, SA SID, LB SID fn 0x8] to the
 * LB, which strips it and learns the server; the client's ACK then goes [server SID fn 0x2, LB SID, VIP]; later replies
 * go straight; the server's FIN signals 0x9 and both sides tear down. Counters on both sides. Every decision read back
 * from the egress samples' cookies; both paths allocate nothing per packet.
 */
class SrlbGraphTest {
    private static final long MAC = 0x0200000000C1L;
    private static final String VIP = "2001:db8:ffff::1";
    private static final VipKey KEY = new VipKey(InetAddress.ofLiteral(VIP), 128, Protocol.TCP, 80);
    private static final long CLIENT_HI = 0xfd00000c00000000L, CLIENT_LO = 2;
    private static final long VIP_HI = 0x20010db8ffff0000L, VIP_LO = 1;

    private final List<Dataplane> dps = new ArrayList<>();
    private PsampleEmitter em;
    private MemoryPort lbC, lbS;
    private final MemoryPort[] up = new MemoryPort[3], local = new MemoryPort[3];
    private final SrlbAgent[] agents = new SrlbAgent[3];
    private Dataplane lbDp;
    private LoadBalancer lb;

    @BeforeEach
    void build() throws Exception {
        em = PsampleEmitter.openUnicast(1, Psample.Convention.VPP);
        lbC = new MemoryPort("vfsr-c", 1, 1);
        lbS = new MemoryPort("vfsr-s", 2, 1);
        DataplaneSpec t = new DataplaneSpec();
        t.workers = 1;
        t.interfaces = new InterfaceTable(4);
        t.interfaces.add(lbC, MAC, 1500, true);
        t.interfaces.add(lbS, MAC + 1, 9000, true);
        t.forwarding = new Forwarding.Builder().neighbour("fd00:c::1", "02:aa:00:00:00:01")
                .neighbour("fd00:9::2", "02:aa:00:00:00:02").route("fd00:c::/64", "fd00:c::1", 1)
                .route("fc00::/16", "fd00:9::2", 2).build();
        sampleEverythingOut(t);
        t.lb = new LoadBalancer.Settings();
        t.lb.ip6Source = InetAddress.ofLiteral("2001:db8:5::1");
        t.lb.hashSeed = 7L;
        t.lb.flowTableSlots = 1 << 10;
        lbDp = new Dataplane(t, em, null, null);
        dps.add(lbDp);
        lb = lbDp.plugin(LoadBalancer.class);
        lb.addVip(KEY, EncapType.SRLB, 7);
        lb.addBackends(KEY, List.of(InetAddress.ofLiteral("fc00:1::"), InetAddress.ofLiteral("fc00:2::")));
        for (int k = 1; k <= 2; k++) {
            up[k] = new MemoryPort("vfsr-u" + k, 1, 1);
            local[k] = new MemoryPort("vfsr-l" + k, 2, 1);
            DataplaneSpec a = new DataplaneSpec();
            a.workers = 1;
            a.interfaces = new InterfaceTable(4);
            a.interfaces.add(up[k], MAC + 16 * k, 9000, true);
            a.interfaces.add(local[k], MAC + 16 * k + 1, 1500, true);
            a.forwarding = new Forwarding.Builder().neighbour("fd00:9::1", "02:aa:00:00:00:03")
                    .neighbour("fd00:5::2", "02:aa:00:00:00:04").route("::/0", "fd00:9::1", 1)
                    .route(VIP + "/128", "fd00:5::2", 2).build();
            sampleEverythingOut(a);
            a.srlbAgent = new SrlbAgent.Settings();
            a.srlbAgent.sid = InetAddress.ofLiteral("fc00:" + k + "::");
            a.srlbAgent.vips = List.of(InetAddress.ofLiteral(VIP));
            a.srlbAgent.policy = new StaticThreshold(2);
            a.srlbAgent.flowTableSlots = 1 << 10;
            Dataplane d = new Dataplane(a, em, null, null);
            dps.add(d);
            agents[k] = d.plugin(SrlbAgent.class);
        }
    }

    /** 1-in-1 egress sampling on every port: each frame sent leaves a sample (with its decision cookie, if any). */
    private static void sampleEverythingOut(DataplaneSpec t) {
        t.samplingRate = 1;
        t.direction = DataplaneControl.Direction.TX;
        for (Port p : t.interfaces.ports()) {
            t.sflowInterfaces.add(p.name());
        }
    }


    private static byte[] addr(long hi, long lo) {
        return ByteBuffer.allocate(16).putLong(hi).putLong(lo).array();
    }

    @Test
    void everyDecisionTravelsAsTheCookieOfItsPacketsSample() throws Exception {
        FlowKey flow = new FlowKey().setIpv6(CLIENT_HI, CLIENT_LO, VIP_HI, VIP_LO, 6, 40001, 80);
        List<InetAddress> cands = lb.srlbCandidatesFor(KEY, flow);
        int first = cands.get(0).getAddress()[3], second = cands.get(1).getAddress()[3];
        agents[first].setLoad(2.5); // = busy for c = 2; the metric travels as 2500
        agents[second].setLoad(0);
        for (Dataplane d : dps) {
            EgressSamples.decisions(d);
        }
        byte[] h = hop(lbDp, lbC, tcp6(CLIENT_HI, CLIENT_LO, VIP_HI, VIP_LO, 40001, 80, 0x02, 0), lbS);
        List<LbDecisionCookie> lbHunt = EgressSamples.decisions(lbDp);
        assertThat(lbHunt).hasSize(1);
        LbDecisionCookie hunt = lbHunt.get(0);
        assertThat(hunt.kind()).isEqualTo(LbDecisionCookie.Kind.SRLB_HUNT);
        assertThat(Arrays.copyOf(hunt.vip(), 16)).isEqualTo(addr(VIP_HI, VIP_LO));
        assertThat(hunt.hasBackend()).isFalse();
        assertThat(hunt.candidateCount()).isEqualTo(2);
        assertThat(Arrays.copyOfRange(hunt.candidates(), 0, 16)).isEqualTo(cands.get(0).getAddress());
        assertThat(Arrays.copyOfRange(hunt.candidates(), 16, 32)).isEqualTo(cands.get(1).getAddress());
        assertThat(hunt.protocol()).isEqualTo(6);
        assertThat(hunt.vipPort()).isEqualTo(80);

        byte[] p = hop(dps.get(first), up[first], h, up[first]);
        List<LbDecisionCookie> pass = EgressSamples.decisions(dps.get(first));
        assertThat(pass).hasSize(1);
        assertThat(pass.get(0).kind()).isEqualTo(LbDecisionCookie.Kind.SRLB_REJECT);
        assertThat(pass.get(0).choiceIndex()).isEqualTo(1);
        assertThat(pass.get(0).policyMetric()).isEqualTo(2500);
        assertThat(pass.get(0).hasBackend()).isFalse();

        hop(dps.get(second), up[second], p, local[second]);
        List<LbDecisionCookie> accept = EgressSamples.decisions(dps.get(second));
        assertThat(accept).hasSize(1);
        assertThat(accept.get(0).kind()).isEqualTo(LbDecisionCookie.Kind.SRLB_ACCEPT_SECOND);
        assertThat(accept.get(0).choiceIndex()).isEqualTo(2);
        assertThat(accept.get(0).policyMetric()).isZero();
        assertThat(Arrays.copyOf(accept.get(0).backend(), 16)).isEqualTo(cands.get(1).getAddress());

        byte[] sa = hop(dps.get(second), local[second],
                tcp6(VIP_HI, VIP_LO, CLIENT_HI, CLIENT_LO, 80, 40001, 0x12, 0), up[second]);
        assertThat(EgressSamples.decisions(dps.get(second))).as("the SYN-ACK carries no decision").isEmpty();
        hop(lbDp, lbS, sa, lbC);
        List<LbDecisionCookie> learnt = EgressSamples.decisions(lbDp);
        assertThat(learnt).hasSize(1);
        assertThat(learnt.get(0).kind()).isEqualTo(LbDecisionCookie.Kind.SRLB_ACCEPT_SECOND);
        assertThat(Arrays.copyOf(learnt.get(0).backend(), 16)).isEqualTo(cands.get(1).getAddress());
        // an established packet: no decision, no cookie
        hop(lbDp, lbC, tcp6(CLIENT_HI, CLIENT_LO, VIP_HI, VIP_LO, 40001, 80, 0x10, 0), lbS);
        assertThat(EgressSamples.decisions(lbDp)).isEmpty();
    }

    @AfterEach
    void close() {
        for (Dataplane d : dps) {
            d.close();
        }
        em.close();
    }

    private static void run(Dataplane d) {
        Worker w = d.workers().get(0);
        for (int i = 0; i < 10; i++) {
            w.runOnce();
        }
    }

    /**
     * Sends one frame into a port of a dataplane, runs it, and returns the only frame that left through {@code out}.
     */
    private static byte[] hop(Dataplane d, MemoryPort in, byte[] f, MemoryPort out) {
        out.sent.clear();
        in.inject(List.of(f));
        run(d);
        assertThat(out.sent).as("frames out of %s", out.name()).hasSize(1);
        return out.sent.remove(0);
    }

    static byte[] tcp6(long srcHi, long srcLo, long dstHi, long dstLo, int sport, int dport, int flags, int payload) {
        ByteBuffer b = ByteBuffer.allocate(14 + 40 + 20 + payload);
        b.putShort((short) (MAC >>> 32)).putInt((int) MAC).putShort((short) 0x0200).putInt(0x99)
                .putShort((short) 0x86DD);
        b.putInt(0x60000000).putShort((short) (20 + payload)).put((byte) 6).put((byte) 64)
                .putLong(srcHi).putLong(srcLo).putLong(dstHi).putLong(dstLo);
        b.putShort((short) sport).putShort((short) dport).putInt(1000).putInt(2000).put((byte) 0x50)
                .put((byte) flags).putShort((short) 65535).putInt(0x12345678);
        for (int i = 0; i < payload; i++) {
            b.put((byte) i);
        }
        return b.array();
    }

    private static long i64(byte[] f, int off) {
        return ByteBuffer.wrap(f).getLong(off);
    }

    /** Segment List[i] of the SRH right after the IPv6 header, as {hi, lo}. */
    private static long[] segment(byte[] f, int i) {
        return new long[] {i64(f, 14 + 48 + 16 * i), i64(f, 14 + 56 + 16 * i)};
    }

    private static byte[] transport(byte[] f) {
        int nh = f[14 + 6];
        int off = 14 + 40;
        if (nh == 43) {
            off += ((f[off + 1] & 0xFF) + 1) * 8;
        }
        return Arrays.copyOfRange(f, off, f.length);
    }

    /**
     * {@code f} with {@code tags} 802.1Q tags after its MAC addresses and {@code pad} bytes (0xEE) after its IP packet.
     */
    private static byte[] tagged(byte[] f, int tags, int pad) {
        byte[] o = new byte[f.length + 4 * tags + pad];
        System.arraycopy(f, 0, o, 0, 12);
        for (int i = 0; i < tags; i++) {
            o[12 + 4 * i] = (byte) 0x81;
            o[14 + 4 * i + 1] = (byte) (100 + i);
        }
        System.arraycopy(f, 12, o, 12 + 4 * tags, f.length - 12);
        Arrays.fill(o, f.length + 4 * tags, o.length, (byte) 0xEE);
        return o;
    }

    /**
     * The LB's hunting SRH on long client frames that were VLAN-tagged (1, 2, 4 tags: l3 18, 22, 30) and carried
     * trailing bytes beyond the IPv6 payload length, so that the headers, tags included, move back into the headroom:
     * each leaves untagged with the 72-byte SRH, the padding not carried, the transport header and payload intact;
     * interleaved with routed frames that re-use the buffers right after (their frames start at the data area again).
     * The egress samples copy each hunt from its moved start.
     */
    @Test
    void taggedAndPaddedLongClientFramesGetTheHuntingSrhWithTheirPayloadIntact() {
        int[] tagCounts = {0, 1, 2, 4};
        int[] pads = {0, 7, 8, 46};
        SampleFifo fifo = ((SflowNode) lbDp.workers().get(0).node(SflowNode.EGRESS)).fifo();
        for (SampleRecord r = fifo.poll(); r != null; r = fifo.poll()) {
            fifo.release(r);
        }
        for (int round = 0; round < 2; round++) {
            List<byte[]> in = new ArrayList<>(), plain = new ArrayList<>();
            for (int i = 0; i < tagCounts.length; i++) {
                byte[] syn = tcp6(CLIENT_HI, CLIENT_LO, VIP_HI, VIP_LO, 41000 + 8 * round + i, 80, 0x02, 1300);
                plain.add(syn);
                in.add(tagged(syn, tagCounts[i], pads[i]));
                // a routed frame (to another client) in the buffer the hunt just used
                in.add(tagged(tcp6(VIP_HI, VIP_LO, 0xfd00000c00000000L, 3, 80, 5000 + i, 0x10, 40), tagCounts[i],
                        pads[i]));
            }
            lbS.sent.clear();
            lbC.sent.clear();
            lbC.inject(in);
            run(lbDp);
            assertThat(lbS.sent).as("round %d: the hunts", round).hasSize(tagCounts.length);
            assertThat(lbC.sent).as("round %d: the routed frames", round).hasSize(tagCounts.length);
            for (int i = 0; i < tagCounts.length; i++) {
                String what = "round " + round + " tags " + tagCounts[i] + " padding " + pads[i];
                byte[] syn = plain.get(i), h = lbS.sent.get(i);
                assertThat(h.length).as(what).isEqualTo(syn.length + 72);
                assertThat(i64(h, 0) >>> 16).as(what + ": next-hop MAC").isEqualTo(0x02aa00000002L);
                assertThat(ByteBuffer.wrap(h).getShort(12) & 0xFFFF).as(what).isEqualTo(0x86DD);
                assertThat(ByteBuffer.wrap(h).getShort(18) & 0xFFFF).as(what + ": payload length")
                        .isEqualTo(72 + 20 + 1300);
                assertThat(h[14 + 6]).as(what + ": routing header").isEqualTo((byte) 43);
                assertThat(h[14 + 7]).as(what + ": hop limit").isEqualTo((byte) 63);
                assertThat(h[14 + 40]).as(what + ": SRH next header").isEqualTo((byte) 6);
                assertThat(segment(h, 0)).as(what + ": Segment List[0] = the VIP").containsExactly(VIP_HI, VIP_LO);
                assertThat(i64(h, 14 + 24)).as(what + ": destination = candidate 1").isEqualTo(segment(h, 3)[0]);
                assertThat(Arrays.copyOfRange(h, 14 + 40 + 72, h.length)).as(what + ": transport and payload")
                        .isEqualTo(Arrays.copyOfRange(syn, 14 + 40, syn.length));
                byte[] r = lbC.sent.get(i);
                assertThat(r.length).as(what + ": routed").isEqualTo(14 + 40 + 20 + 40);
                assertThat(Arrays.copyOfRange(r, 14 + 8, r.length)).as(what + ": routed")
                        .isEqualTo(Arrays.copyOfRange(tcp6(VIP_HI, VIP_LO, 0xfd00000c00000000L, 3, 80, 5000 + i, 0x10,
                                40), 14 + 8, 14 + 40 + 20 + 40));
            }
            // the egress samples (1 in 1) copy each frame from where it starts now, moved or not
            List<String> sampled = new ArrayList<>(), sent = new ArrayList<>();
            for (SampleRecord r = fifo.poll(); r != null; r = fifo.poll()) {
                assertThat(r.frameLength).as("round %d: sampled frame length", round).isPositive();
                sampled.add(java.util.HexFormat.of().formatHex(r.header, 0, r.headerLength) + "/" + r.frameLength);
                fifo.release(r);
            }
            for (byte[] f : lbS.sent.subList(0, tagCounts.length)) { // 128: the topology's default header bytes
                sent.add(java.util.HexFormat.of().formatHex(f, 0, Math.min(f.length, 128)) + "/" + f.length);
            }
            assertThat(sampled).as("round %d: samples of the hunts", round).containsAll(sent);
        }
    }

    @Test
    void aLoadedFirstCandidatePassesTheSynAndTheConnectionSticksToTheSecond() {
        FlowKey flow = new FlowKey().setIpv6(CLIENT_HI, CLIENT_LO, VIP_HI, VIP_LO, 6, 40000, 80);
        List<InetAddress> cands = lb.srlbCandidatesFor(KEY, flow);
        assertThat(cands).hasSize(2).doesNotHaveDuplicates();
        int first = cands.get(0).getAddress()[3], second = cands.get(1).getAddress()[3];
        agents[first].setLoad(5); // ≥ c = 2: busy
        agents[second].setLoad(1);
        long lbSidHi = 0x20010db800050000L, lbSidPrefixLo = 0x0001_0000_0000_0000L;

        // 1. SYN: hunting SRH [c1, c2, LB SID, VIP], to c1
        byte[] syn = tcp6(CLIENT_HI, CLIENT_LO, VIP_HI, VIP_LO, 40000, 80, 0x02, 0);
        byte[] h = hop(lbDp, lbC, syn, lbS);
        assertThat(h.length).isEqualTo(syn.length + 8 + 64);
        assertThat(h[14 + 6]).as("next header: routing").isEqualTo((byte) 43);
        assertThat(h[14 + 40]).as("SRH next header: TCP").isEqualTo((byte) 6);
        assertThat(h[14 + 42]).as("routing type 4").isEqualTo((byte) 4);
        assertThat(h[14 + 43]).as("segments left").isEqualTo((byte) 3);
        assertThat(h[14 + 44]).as("last entry").isEqualTo((byte) 3);
        assertThat(segment(h, 0)).containsExactly(VIP_HI, VIP_LO);
        long[] lbSid = segment(h, 1);
        assertThat(lbSid[0]).isEqualTo(lbSidHi);
        assertThat(lbSid[1] & 0xFFFF_FF00_0000_0000L).as("VIP slot 0 → bytes 8-9 = 1, fn 0, offset 0")
                .isEqualTo(lbSidPrefixLo);
        assertThat(segment(h, 3)).as("c1 fn 0x0 offset 3")
                .containsExactly(0xfc00000000000000L | (long) first << 32, 0x0000_0300_0000_0000L);
        assertThat(segment(h, 2)).as("c2 fn 0x0 offset 2")
                .containsExactly(0xfc00000000000000L | (long) second << 32, 0x0000_0200_0000_0000L);
        assertThat(i64(h, 14 + 24)).as("dst = c1").isEqualTo(segment(h, 3)[0]);
        assertThat(h[14 + 7] & 0xFF).as("hop limit").isEqualTo(63);
        assertThat(transport(h)).isEqualTo(transport(syn));

        // 2. c1 is loaded: it passes the SYN on (segments left 2, dst = c2) toward the LB
        byte[] p = hop(dps.get(first), up[first], h, up[first]);
        assertThat(p[14 + 43]).isEqualTo((byte) 2);
        assertThat(i64(p, 14 + 24)).isEqualTo(segment(h, 2)[0]);
        assertThat(i64(p, 14 + 32)).isEqualTo(segment(h, 2)[1]);
        assertThat(agents[first].counters().rejects).isEqualTo(1);
        // the LB routes it to c2 untouched
        byte[] p2 = hop(lbDp, lbS, p, lbS);
        assertThat(Arrays.copyOfRange(p2, 14 + 8, p2.length)).isEqualTo(Arrays.copyOfRange(p, 14 + 8, p.length));

        // 3. c2 accepts: the SYN reaches the server with the SRH popped and dst = VIP
        byte[] d = hop(dps.get(second), up[second], p2, local[second]);
        assertThat(d.length).isEqualTo(syn.length);
        assertThat(i64(d, 14 + 24)).isEqualTo(VIP_HI);
        assertThat(i64(d, 14 + 32)).isEqualTo(VIP_LO);
        assertThat(d[14 + 6]).isEqualTo((byte) 6);
        assertThat(transport(d)).isEqualTo(transport(syn));
        assertThat(agents[second].counters().secondChoiceAccepts).isEqualTo(1);

        // 4. SYN-ACK from the server: [client, SA SID, LB SID fn 0x8] to the LB
        byte[] synAck = tcp6(VIP_HI, VIP_LO, CLIENT_HI, CLIENT_LO, 80, 40000, 0x12, 0);
        byte[] sa = hop(dps.get(second), local[second], synAck, up[second]);
        assertThat(sa[14 + 43]).isEqualTo((byte) 2);
        assertThat(segment(sa, 0)).containsExactly(CLIENT_HI, CLIENT_LO);
        long[] saSid = segment(sa, 1);
        assertThat(saSid[0]).isEqualTo(0xfc00000000000000L | (long) second << 32);
        long[] lbSigned = segment(sa, 2);
        assertThat(lbSigned[0]).isEqualTo(lbSidHi);
        assertThat(lbSigned[1]).as("LB SID with fn 0x8, core/entry echoed").isEqualTo(lbSid[1] | 0x8000_0000_0000L);
        assertThat(i64(sa, 14 + 32)).isEqualTo(lbSigned[1]);

        // 5. the LB strips it, learns the server and forwards to the client
        byte[] toClient = hop(lbDp, lbS, sa, lbC);
        assertThat(toClient.length).isEqualTo(synAck.length);
        assertThat(i64(toClient, 14 + 24)).isEqualTo(CLIENT_HI);
        assertThat(i64(toClient, 14 + 32)).isEqualTo(CLIENT_LO);
        assertThat(transport(toClient)).isEqualTo(transport(synAck));
        LoadBalancer.SrlbCounters c = lb.srlbCounters(KEY);
        assertThat(c.newFlows()).isEqualTo(1);
        assertThat(c.secondChoiceAccepts()).isEqualTo(1);
        assertThat(c.firstChoiceAccepts()).isZero();

        // 6. the client's ACK goes [server SID fn 0x2 offset 2, LB SID, VIP] straight to the accepting server
        byte[] ack = tcp6(CLIENT_HI, CLIENT_LO, VIP_HI, VIP_LO, 40000, 80, 0x10, 30);
        byte[] a = hop(lbDp, lbC, ack, lbS);
        assertThat(a[14 + 43]).isEqualTo((byte) 2);
        assertThat(segment(a, 2)).containsExactly(saSid[0],
                (saSid[1] & 0xFFFF_00FF_FFFF_FFFFL) | 0x0000_2200_0000_0000L);
        assertThat(segment(a, 1)).containsExactly(lbSid[0], lbSid[1]);
        assertThat(segment(a, 0)).containsExactly(VIP_HI, VIP_LO);
        assertThat(lb.srlbCounters(KEY).stickyHits()).isEqualTo(1);
        byte[] ad = hop(dps.get(second), up[second], a, local[second]);
        assertThat(transport(ad)).isEqualTo(transport(ack));
        // 6b. a large data segment takes the same SRH, its headers moved back into the buffer's headroom instead of
        // its 1300 bytes of payload moving forward: the same segments, the payload intact at the server
        byte[] upload = tcp6(CLIENT_HI, CLIENT_LO, VIP_HI, VIP_LO, 40000, 80, 0x18, 1300);
        byte[] u = hop(lbDp, lbC, upload, lbS);
        assertThat(u.length).isEqualTo(upload.length + 56);
        for (int i = 0; i < 3; i++) {
            assertThat(segment(u, i)).as("segment %d", i).containsExactly(segment(a, i));
        }
        assertThat(i64(u, 14 + 24)).isEqualTo(i64(a, 14 + 24));
        byte[] ud = hop(dps.get(second), up[second], u, local[second]);
        assertThat(ud.length).isEqualTo(upload.length);
        assertThat(transport(ud)).isEqualTo(transport(upload));
        assertThat(lb.srlbCounters(KEY).stickyHits()).isEqualTo(2);

        // 7. the server's data now goes straight to the client (no SRH)
        byte[] data = tcp6(VIP_HI, VIP_LO, CLIENT_HI, CLIENT_LO, 80, 40000, 0x18, 100);
        byte[] direct = hop(dps.get(second), local[second], data, up[second]);
        assertThat(direct.length).isEqualTo(data.length);
        assertThat(i64(direct, 14 + 24)).isEqualTo(CLIENT_HI);

        // 8. the server's FIN signals 0x9 via the LB: both sides tear down
        byte[] fin = tcp6(VIP_HI, VIP_LO, CLIENT_HI, CLIENT_LO, 80, 40000, 0x11, 0);
        byte[] fs = hop(dps.get(second), local[second], fin, up[second]);
        assertThat(segment(fs, 2)[1] >>> 44 & 0xF).isEqualTo(0x9);
        byte[] fc = hop(lbDp, lbS, fs, lbC);
        assertThat(transport(fc)).isEqualTo(transport(fin));
        assertThat(lb.srlbCounters(KEY).teardowns()).isEqualTo(1);
        ServerAgentState.Counters sc = agents[second].counters();
        assertThat(sc.teardowns).isEqualTo(1);
        assertThat(sc.rejects).isZero();
        // the client's last ACK still reaches the same server (TEARDOWN keeps the server for 2 s)
        byte[] last = hop(lbDp, lbC, tcp6(CLIENT_HI, CLIENT_LO, VIP_HI, VIP_LO, 40000, 80, 0x10, 0), lbS);
        assertThat(segment(last, 2)[0]).isEqualTo(saSid[0]);
    }

    /** Runs one SRLB connection's opening: SYN hunt, candidate decisions, SYN-ACK learnt, then {@code acks} ACKs. */
    private int[] open(int port, double load1, double load2, int acks) {
        FlowKey flow = new FlowKey().setIpv6(CLIENT_HI, CLIENT_LO, VIP_HI, VIP_LO, 6, port, 80);
        List<InetAddress> cands = lb.srlbCandidatesFor(KEY, flow);
        int first = cands.get(0).getAddress()[3], second = cands.get(1).getAddress()[3];
        agents[first].setLoad(load1);
        agents[second].setLoad(load2);
        byte[] h = hop(lbDp, lbC, tcp6(CLIENT_HI, CLIENT_LO, VIP_HI, VIP_LO, port, 80, 0x02, 0), lbS);
        int server = first;
        if (load1 >= 2) { // busy first candidate: it passes, the LB routes on, the second accepts
            byte[] p = hop(dps.get(first), up[first], h, up[first]);
            h = hop(lbDp, lbS, p, lbS);
            server = second;
        }
        hop(dps.get(server), up[server], h, local[server]);
        byte[] sa = hop(dps.get(server), local[server],
                tcp6(VIP_HI, VIP_LO, CLIENT_HI, CLIENT_LO, 80, port, 0x12, 0), up[server]);
        hop(lbDp, lbS, sa, lbC);
        for (int i = 0; i < acks; i++) {
            byte[] a = hop(lbDp, lbC, tcp6(CLIENT_HI, CLIENT_LO, VIP_HI, VIP_LO, port, 80, 0x10, 0), lbS);
            hop(dps.get(server), up[server], a, local[server]);
        }
        return new int[] {first, second, server};
    }

    @Test
    void decisionCountersPerVipAndBackendOnBothSides() {
        int[] a = open(42000, 5, 0, 2); // first candidate busy: passes; second accepts; 2 steered ACKs
        int[] b = open(42001, 0, 0, 1); // first candidate idle: accepts; 1 steered ACK
        // the LB: VIP totals
        LoadBalancer.DecisionCounters v = lb.decisionCounters(KEY);
        assertThat(v).isEqualTo(new LoadBalancer.DecisionCounters(2, 1, 1, 1, 3, 0));
        // per backend: accepts by choice, the refusal inferred from A's second-choice accept, sticky hits
        long[][] want = new long[3][6];
        want[a[1]][0]++; // A accepted by its second candidate: a new flow there
        want[a[1]][2]++;
        want[a[0]][3]++; // ... refused by its first
        want[a[1]][4] += 2;
        want[b[0]][0]++;
        want[b[0]][1]++;
        want[b[0]][4] += 1;
        for (int k = 1; k <= 2; k++) {
            LoadBalancer.DecisionCounters d = lb.decisionCounters(KEY, InetAddress.ofLiteral("fc00:" + k + "::"));
            assertThat(new long[] {d.newFlows(), d.firstChoiceAccepts(), d.secondChoiceAccepts(), d.rejects(),
                d.stickyHits(), d.tableFull()}).as("backend fc00:%d::", k).containsExactly(want[k]);
        }
        // the agents: per agent VIP (index 0) — hunting SYNs without state, accepts by choice, refusals, deliveries
        long[][] agentWant = new long[3][6];
        agentWant[a[0]][0]++;
        agentWant[a[0]][3]++; // A's first candidate refused (busy)
        agentWant[a[1]][0]++;
        agentWant[a[1]][2]++;
        agentWant[a[1]][4] += 2;
        agentWant[b[0]][0]++;
        agentWant[b[0]][1]++;
        agentWant[b[0]][4] += 1;
        for (int k = 1; k <= 2; k++) {
            assertThat(agents[k].decisionCounters(0)).as("agent %d", k).containsExactly(agentWant[k]);
        }
        // the reports the sFlow main thread sends: VIP totals, then one per backend (slot + 1), all six counters
        List<String> reports = new ArrayList<>();
        io.vecflow.netlink.vpp.LbCounters scratch = new io.vecflow.netlink.vpp.LbCounters();
        assertThat(lb.reportCounters(scratch, c -> reports.add(c.role + " vip#" + c.vipIndex + " " + c.protocol + "/"
                + c.port + " be#" + c.backendIndex + "/" + c.backendLength + " " + Arrays.toString(c.counters))))
                .isEqualTo(3);
        assertThat(reports).containsExactly("2 vip#0 6/80 be#0/0 [2, 1, 1, 1, 3, 0]",
                "2 vip#0 6/80 be#1/16 " + Arrays.toString(want[1]), "2 vip#0 6/80 be#2/16 " + Arrays.toString(want[2]));
        reports.clear();
        assertThat(agents[a[1]].reportCounters(scratch, c -> reports.add(c.role + " vip#" + c.vipIndex + " "
                + c.vipLength + " " + Arrays.toString(c.counters)))).isEqualTo(1);
        assertThat(reports).containsExactly("3 vip#0 16 " + Arrays.toString(agentWant[a[1]]));
        assertThat(lb.show()).contains("  decisions new-flows 2 first-choice 1 second-choice 1 rejects 1 "
                + "sticky-hits 3 table-full 0");
        assertThat(agents[a[1]].show()).contains("vip 2001:db8:ffff::1 new-flows " + agentWant[a[1]][0]);
    }

    @Test
    void theLastCandidateAlwaysAcceptsAndUnknownTrafficPasses() {
        agents[1].setLoad(100);
        agents[2].setLoad(100);
        int accepted = 0;
        for (int port = 41000; port < 41020; port++) {
            byte[] h = hop(lbDp, lbC, tcp6(CLIENT_HI, CLIENT_LO, VIP_HI, VIP_LO, port, 80, 0x02, 0), lbS);
            int c1 = (int) (i64(h, 14 + 24) >>> 32) & 0xFFFF;
            byte[] p = hop(dps.get(c1), up[c1], h, up[c1]);
            int c2 = (int) (i64(p, 14 + 24) >>> 32) & 0xFFFF;
            assertThat(c2).isNotEqualTo(c1);
            hop(dps.get(c2), up[c2], p, local[c2]);
            accepted++;
        }
        assertThat(accepted).isEqualTo(20);
        assertThat(agents[1].counters().secondChoiceAccepts + agents[2].counters().secondChoiceAccepts).isEqualTo(20);
        assertThat(agents[1].counters().rejects + agents[2].counters().rejects).isEqualTo(20);
        // a packet from the server for a connection it has no state for is dropped; other traffic routes untouched
        local[1].inject(List.of(tcp6(VIP_HI, VIP_LO, CLIENT_HI, CLIENT_LO, 80, 1, 0x10, 0)));
        run(dps.get(1));
        assertThat(up[1].sent).isEmpty();
        assertThat(dps.get(1).dropped(DropReason.SRLB_REJECTED, 2)).isEqualTo(1);
        byte[] other = tcp6(0xfd00000500000000L, 2, CLIENT_HI, CLIENT_LO, 80, 1, 0x10, 0);
        assertThat(hop(dps.get(1), local[1], other, up[1]).length).isEqualTo(other.length);
        assertThat(agents[1].show()).contains("srlb agent sid fc00:1::/80 policy static-threshold c=2");
        assertThat(lb.show()).contains("lb vip " + KEY + " encap srlb new_len 7")
                .contains("srlb sid 2001:db8:5:0:1::/80 candidates 2 of 256 buckets hunts 20 first-choice 0 "
                        + "second-choice 0")
                .contains("worker 0 srlb flow table: live 20 of 1024, inserts 20, full 0");
    }

    @Test
    void aSignalOnAnotherWorkerIsHandedToTheFlowsOwner() throws Exception {
        MemoryPort c = new MemoryPort("vfsr-c2", 1, 2), sv = new MemoryPort("vfsr-s2", 2, 2);
        DataplaneSpec t = new DataplaneSpec();
        t.workers = 2;
        t.interfaces = new InterfaceTable(4);
        t.interfaces.add(c, MAC, 1500, true);
        t.interfaces.add(sv, MAC + 1, 9000, true);
        t.forwarding = new Forwarding.Builder().neighbour("fd00:c::1", "02:aa:00:00:00:01")
                .neighbour("fd00:9::2", "02:aa:00:00:00:02").route("fd00:c::/64", "fd00:c::1", 1)
                .route("fc00::/16", "fd00:9::2", 2).build();
        t.lb = new LoadBalancer.Settings();
        t.lb.ip6Source = InetAddress.ofLiteral("2001:db8:5::1");
        t.lb.hashSeed = 7L;
        t.lb.flowTableSlots = 1 << 10;
        Dataplane d = new Dataplane(t, em, null, null);
        dps.add(d);
        d.plugin(LoadBalancer.class).addVip(KEY, EncapType.SRLB, 7);
        d.plugin(LoadBalancer.class).addBackends(KEY, List.of(InetAddress.ofLiteral("fc00:1::"),
                InetAddress.ofLiteral("fc00:2::")));
        Worker w0 = d.workers().get(0), w1 = d.workers().get(1);
        // the SYN arrives on worker 0: it owns the flow (CORE 0 in the LB SID)
        c.inject(0, List.of(tcp6(CLIENT_HI, CLIENT_LO, VIP_HI, VIP_LO, 40000, 80, 0x02, 0)));
        w0.runOnce();
        byte[] hunt = sv.sent.remove(0);
        long[] lbSid = segment(hunt, 1);
        long c1 = segment(hunt, 3)[0];
        // the first candidate accepts; its SYN-ACK signal arrives on worker 1
        sv.inject(1, List.of(signal(CLIENT_LO, 40000, c1, lbSid[0], lbSid[1])));
        w1.runOnce();
        assertThat(c.sent).as("worker 1 forwards the SYN-ACK to the client").hasSize(1);
        assertThat(d.plugin(LoadBalancer.class).show()).contains("worker 1 srlb flow table: live 0")
                .contains("signals handed off 1 (inbox full 0)");
        // the client's ACK on worker 0: the owner applied the handed-off STEER before it, so it goes straight to c1
        c.inject(0, List.of(tcp6(CLIENT_HI, CLIENT_LO, VIP_HI, VIP_LO, 40000, 80, 0x10, 0)));
        w0.runOnce();
        byte[] ack = sv.sent.remove(0);
        assertThat(ack[14 + 43]).as("steered: [server SID fn 0x2, LB SID, VIP], segments left 2").isEqualTo((byte) 2);
        assertThat(segment(ack, 2)[0]).isEqualTo(c1);
        assertThat(d.plugin(LoadBalancer.class).show()).contains("applied from others 1 (stale 0)");
        LoadBalancer.SrlbCounters k = d.plugin(LoadBalancer.class).srlbCounters(KEY);
        assertThat(k.firstChoiceAccepts()).as("counted once, by the owner").isEqualTo(1);
        assertThat(k.stickyHits()).isEqualTo(1);
    }

    @Test
    void aPacketTooBigForTheSteeringSrhGetsPacketTooBigFromTheVip() throws Exception {
        MemoryPort c = new MemoryPort("vfsr-c3", 1, 1), sv = new MemoryPort("vfsr-s3", 2, 1);
        DataplaneSpec t = new DataplaneSpec();
        t.workers = 1;
        t.interfaces = new InterfaceTable(4);
        t.interfaces.add(c, MAC, 1500, true);
        t.interfaces.add(sv, MAC + 1, 1500, true); // no room for the SRH at full size
        t.forwarding = new Forwarding.Builder().neighbour("fd00:c::1", "02:aa:00:00:00:01")
                .neighbour("fd00:9::2", "02:aa:00:00:00:02").route("fd00:c::/64", "fd00:c::1", 1)
                .route("fc00::/16", "fd00:9::2", 2).build();
        t.lb = new LoadBalancer.Settings();
        t.lb.ip6Source = InetAddress.ofLiteral("2001:db8:5::1");
        t.lb.flowTableSlots = 1 << 10;
        Dataplane d = new Dataplane(t, em, null, null);
        dps.add(d);
        d.plugin(LoadBalancer.class).addVip(KEY, EncapType.SRLB, 7);
        d.plugin(LoadBalancer.class).addBackends(KEY, List.of(InetAddress.ofLiteral("fc00:1::"),
                InetAddress.ofLiteral("fc00:2::")));
        byte[] big = tcp6(CLIENT_HI, CLIENT_LO, VIP_HI, VIP_LO, 40000, 80, 0x10, 1500 - 60);
        byte[] fits = tcp6(CLIENT_HI, CLIENT_LO, VIP_HI, VIP_LO, 40000, 80, 0x02, 1500 - 60 - 72);
        byte[] ptb = hop(d, c, big, c);
        assertThat(ptb[14 + 6]).as("ICMPv6").isEqualTo((byte) 58);
        assertThat(ptb[14 + 40]).as("Packet Too Big").isEqualTo((byte) 2);
        assertThat(ByteBuffer.wrap(ptb).getInt(14 + 44)).as("MTU = 1500 - 56").isEqualTo(1444);
        assertThat(i64(ptb, 14 + 8)).as("from the VIP").isEqualTo(VIP_HI);
        assertThat(i64(ptb, 14 + 16)).isEqualTo(VIP_LO);
        assertThat(i64(ptb, 14 + 32)).as("to the client").isEqualTo(CLIENT_LO);
        byte[] hunt = hop(d, c, fits, sv);
        assertThat(hunt.length).as("a SYN that fits hunts at 1500 bytes").isEqualTo(14 + 1500);
        assertThat(d.plugin(LoadBalancer.class).show()).contains("too-big 1");
    }


    /** The SRLB signal a server agent sends the LB: SRH [client, SA SID, LB SID fn 0x8] (as srlbReply builds it). */
    private static byte[] signal(long clientLo, int clientPort, long saHi, long lbSidHi, long lbSidLo) {
        byte[] inner = tcp6(VIP_HI, VIP_LO, CLIENT_HI, clientLo, 80, clientPort, 0x12, 0);
        byte[] out = new byte[inner.length + 56];
        System.arraycopy(inner, 0, out, 0, inner.length);
        Encap e = new Encap(2048, 64, 0, 0, 0);
        int n = e.srlbReply(java.lang.foreign.MemorySegment.ofArray(out), 0, inner.length, 14, saHi, 0, lbSidHi,
                lbSidLo | 0x8000_0000_0000L);
        assertThat(n).isEqualTo(out.length);
        return out;
    }

    /** A hunting SYN as the LB sends it: [c1, c2, LB SID, VIP]. */
    private static byte[] hunt(long clientLo, int clientPort, long c1Hi, long c2Hi) {
        byte[] inner = tcp6(CLIENT_HI, clientLo, VIP_HI, VIP_LO, clientPort, 80, 0x02, 0);
        byte[] out = new byte[inner.length + 72];
        System.arraycopy(inner, 0, out, 0, inner.length);
        Encap e = new Encap(2048, 64, 0, 0, 0);
        int n = e.srlbHunt(java.lang.foreign.MemorySegment.ofArray(out), 0, 0, inner.length, 14,
                new long[] {c1Hi, 0, c2Hi, 0}, 2, 0x20010db800050000L, 0x0001_0000_0000_0000L, true);
        assertThat(n).isEqualTo(out.length);
        return out;
    }

    private static io.vecflow.packet.PcapFile capture(List<byte[]> frames) {
        List<io.vecflow.packet.PcapPacket> l = new ArrayList<>();
        for (byte[] f : frames) {
            l.add(new io.vecflow.packet.PcapPacket(0, f.length, f));
        }
        return new io.vecflow.packet.PcapFile(io.vecflow.packet.LinkType.ETHERNET, 65535, l);
    }

    /** Runs rounds of a replaying dataplane, draining its egress samples; @return the least bytes one round took. */
    private static long leastAllocated(Dataplane d, long[] clock) {
        Worker wk = d.workers().get(0);
        SampleFifo f = ((SflowNode) wk.node(SflowNode.EGRESS)).fifo();
        long[] cookies = {0};
        Runnable round = () -> {
            for (int i = 0; i < 100; i++) {
                wk.runOnce();
                for (SampleRecord r = f.poll(); r != null; r = f.poll()) {
                    cookies[0] += r.cookieLength > 0 ? 1 : 0;
                    f.release(r);
                }
            }
            clock[0] += 41_000_000_000L; // every flow expires: the next round decides afresh
        };
        for (int i = 0; i < 20; i++) {
            round.run();
        }
        assertThat(cookies[0]).as("decision cookies sampled").isPositive();
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 5 && best > 0; i++) {
            long before = ThreadAllocation.bytes();
            round.run();
            best = Math.min(best, ThreadAllocation.bytes() - before);
        }
        return best;
    }

    @Test
    void theSrlbLbAndAgentPathsAllocateNothingPerPacket() throws Exception {
        long[] clock = {1_000_000_000L};
        long lbSidHi = 0x20010db800050000L, lbSidLo = 0x0001_0000_0000_0000L;
        // the LB: per flow a SYN (hunt + cookie), the server's CREATE_STICKINESS (learnt + cookie), an ACK (steer)
        List<byte[]> lbFrames = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            lbFrames.add(tcp6(CLIENT_HI, 100 + i, VIP_HI, VIP_LO, 40000, 80, 0x02, 0));
            lbFrames.add(signal(100 + i, 40000, 0xfc00000100000000L, lbSidHi, lbSidLo));
            lbFrames.add(tcp6(CLIENT_HI, 100 + i, VIP_HI, VIP_LO, 40000, 80, 0x10, 20));
        }
        DataplaneSpec t = new DataplaneSpec();
        t.workers = 1;
        t.interfaces = new InterfaceTable(4);
        t.interfaces.add(new PcapReplayPort("in", capture(lbFrames), 1, 1, Long.MAX_VALUE, 0), MAC, 1500, true);
        t.interfaces.add(new SinkPort("out", 2, 1), MAC + 1, 9000, true);
        t.forwarding = new Forwarding.Builder().neighbour("fd00:9::2", "02:aa:00:00:00:02")
                .route("fd00:c::/64", "fd00:9::2", 2).route("fc00::/16", "fd00:9::2", 2).build();
        sampleEverythingOut(t);
        t.lb = new LoadBalancer.Settings();
        t.lb.ip6Source = InetAddress.ofLiteral("2001:db8:5::1");
        t.lb.flowTableSlots = 1 << 12;
        t.lb.clock = () -> clock[0];
        try (Dataplane d = new Dataplane(t, em, null, null)) {
            d.plugin(LoadBalancer.class).addVip(KEY, EncapType.SRLB, 7);
            d.plugin(LoadBalancer.class).addBackends(KEY, List.of(InetAddress.ofLiteral("fc00:1::"),
                    InetAddress.ofLiteral("fc00:2::")));
            assertThat(leastAllocated(d, clock)).as("bytes allocated for 25,600 SRLB LB packets").isLessThan(1024);
            LoadBalancer.SrlbCounters c = d.plugin(LoadBalancer.class).srlbCounters(KEY);
            // ≥ 21 rounds, each of which forgets every flow once: 300 hunts and 300 accepts learnt per round
            assertThat(c.hunts()).isGreaterThanOrEqualTo(21 * 300);
            assertThat(c.firstChoiceAccepts() + c.secondChoiceAccepts() + c.otherAccepts())
                    .isGreaterThanOrEqualTo(21 * 300);
            assertThat(c.stickyHits()).isGreaterThan(100_000);
        }
        // an agent: SYNs where it is the first candidate (accept, or pass under load) and the last (accept),
        // its server's SYN-ACK (via the LB), the LB's 0x2 ACK (DIRECT), its server's data (straight)
        clock[0] = 1_000_000_000L;
        List<byte[]> saFrames = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            boolean last = i % 2 == 1;
            byte[] h = hunt(100 + i, 40000, last ? 0xfc00000200000000L : 0xfc00000100000000L,
                    last ? 0xfc00000100000000L : 0xfc00000200000000L);
            if (last) { // as passed on by the first candidate: segments left 2, dst = this agent
                assertThat(new Decap().srhAdvance(java.lang.foreign.MemorySegment.ofArray(h),
                        0, h.length, 14)).isEqualTo(h.length);
            }
            saFrames.add(h);
            saFrames.add(tcp6(VIP_HI, VIP_LO, CLIENT_HI, 100 + i, 80, 40000, 0x12, 0));
            byte[] ack = tcp6(CLIENT_HI, 100 + i, VIP_HI, VIP_LO, 40000, 80, 0x10, 0);
            byte[] acked = new byte[ack.length + 56];
            System.arraycopy(ack, 0, acked, 0, ack.length);
            new Encap(2048, 64, 0, 0, 0).srlbToServer(
                    java.lang.foreign.MemorySegment.ofArray(acked), 0, 0, ack.length, 14, 0xfc00000100000000L, 0,
                    lbSidHi, lbSidLo);
            saFrames.add(acked);
            saFrames.add(tcp6(VIP_HI, VIP_LO, CLIENT_HI, 100 + i, 80, 40000, 0x18, 40));
        }
        DataplaneSpec a = new DataplaneSpec();
        a.workers = 1;
        a.interfaces = new InterfaceTable(4);
        a.interfaces.add(new PcapReplayPort("in", capture(saFrames), 1, 1, Long.MAX_VALUE, 0), MAC, 9000, true);
        a.interfaces.add(new SinkPort("out", 2, 1), MAC + 1, 9000, true);
        a.forwarding = new Forwarding.Builder().neighbour("fd00:9::1", "02:aa:00:00:00:03")
                .route("::/0", "fd00:9::1", 2).route(VIP + "/128", "fd00:9::1", 2).build();
        sampleEverythingOut(a);
        a.srlbAgent = new SrlbAgent.Settings();
        a.srlbAgent.sid = InetAddress.ofLiteral("fc00:1::");
        a.srlbAgent.vips = List.of(InetAddress.ofLiteral(VIP));
        a.srlbAgent.policy = new StaticThreshold(2);
        a.srlbAgent.load = new SettableLoadSource("test", 5); // busy: first SYNs pass
        a.srlbAgent.flowTableSlots = 1 << 12;
        a.srlbAgent.clock = () -> clock[0];
        try (Dataplane d = new Dataplane(a, em, null, null)) {
            assertThat(leastAllocated(d, clock)).as("bytes allocated for 25,600 SRLB agent packets").isLessThan(1024);
            ServerAgentState.Counters c = d.plugin(SrlbAgent.class).counters();
            assertThat(c.rejects).as("first-candidate SYNs passed under load").isGreaterThanOrEqualTo(21 * 100);
            assertThat(c.secondChoiceAccepts).as("last-candidate SYNs accepted").isGreaterThanOrEqualTo(21 * 100);
            assertThat(c.firstChoiceAccepts).isZero();
            assertThat(c.stickyHits).isGreaterThan(10_000);
        }
    }
}
