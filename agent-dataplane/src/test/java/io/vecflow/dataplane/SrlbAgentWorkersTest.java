package io.vecflow.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.dataplane.fib.Forwarding;
import io.vecflow.dataplane.lb.SrlbAgent;
import io.vecflow.dataplane.lb.srlb.ServerAgentState;
import io.vecflow.netlink.psample.Psample;
import io.vecflow.netlink.psample.PsampleEmitter;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The {@code srlb-sa6} server agent on a server dataplane with two workers (lb.md §3; AF_PACKET fanout spreads a
 * connection's packets over workers by a hash the agent does not control): the hunting SYN, the server's SYN-ACK, the
 * LB's ACK_STICKINESS packets and the server's FIN are each fed to a chosen worker ({@link MemoryPort} queue = worker),
 * and every interleaving must behave as one worker would — the SYN-ACK signals CREATE_STICKINESS through the LB with
 * the SA SID naming the flow's owner (CORE = the worker that accepted, ENTRY = its slot), the client's ACKs are
 * delivered, the server's data then goes straight to the client from either worker, and a FIN on any worker signals
 * DELETE_STICKINESS, after which both workers send the server's packets via the LB with 0x9.
 */
class SrlbAgentWorkersTest {
    private static final long MAC = 0x0200000000C1L;
    private static final String VIP = "2001:db8:ffff::1";
    private static final long CLIENT_HI = 0xfd00000c00000000L, CLIENT_LO = 2;
    private static final long VIP_HI = 0x20010db8ffff0000L, VIP_LO = 1;
    private static final long SA_HI = 0xfc00000100000000L, OTHER_HI = 0xfc00000200000000L;
    /** The LB SID of the hunt: 2001:db8:5:0:1::/80, CORE 1, ENTRY 7 (the LB's, echoed in the signals). */
    private static final long LB_HI = 0x20010db800050000L, LB_LO = 0x0001_0001_0000_0007L;

    private PsampleEmitter em;
    private Dataplane dp;
    private MemoryPort up, local;
    private SrlbAgent agent;
    private final long[] clock = {1_000_000_000L};

    @BeforeEach
    void build() throws Exception {
        em = PsampleEmitter.openUnicast(1, Psample.Convention.VPP);
        up = new MemoryPort("vfsw-u", 1, 2);
        local = new MemoryPort("vfsw-l", 2, 2);
        Dataplane.Topology t = new Dataplane.Topology();
        t.workers = 2;
        t.interfaces = new InterfaceTable(4);
        t.interfaces.add(up, MAC, 9000, true);
        t.interfaces.add(local, MAC + 1, 1500, true);
        t.forwarding = new Forwarding.Builder().neighbour("fd00:9::1", "02:aa:00:00:00:03")
                .neighbour("fd00:5::2", "02:aa:00:00:00:04").route("::/0", "fd00:9::1", 1)
                .route(VIP + "/128", "fd00:5::2", 2).build();
        t.srlbAgent = new SrlbAgent.Settings();
        t.srlbAgent.sid = InetAddress.ofLiteral("fc00:1::");
        t.srlbAgent.vips = List.of(InetAddress.ofLiteral(VIP));
        t.srlbAgent.flowTableSlots = 1 << 12;
        t.srlbAgent.clock = () -> clock[0];
        dp = new Dataplane(t, em, null, null);
        agent = dp.srlbAgent();
    }

    @AfterEach
    void close() {
        dp.close();
        em.close();
    }

    /** Runs worker {@code w} until idle, then every worker (the others apply what was handed to them). */
    private void run(int w) {
        for (int i = 0; i < 4; i++) {
            dp.workers().get(w).runOnce();
        }
        for (int i = 0; i < 4; i++) {
            for (Worker k : dp.workers()) {
                k.runOnce();
            }
        }
    }

    /** Sends one frame into {@code in} on worker {@code w}'s queue and returns the only frame that left via {@code out}. */
    private byte[] hop(int w, MemoryPort in, byte[] f, MemoryPort out) {
        up.sent.clear();
        local.sent.clear();
        in.inject(w, List.of(f));
        run(w);
        assertThat(out.sent).as("frames out of %s (fed to worker %d); dropped SRLB_REJECTED %d", out.name(), w,
                dp.dropped(DropReason.SRLB_REJECTED)).hasSize(1);
        assertThat((out == up ? local : up).sent).isEmpty();
        return out.sent.remove(0);
    }

    private static long i64(byte[] f, int off) {
        return ByteBuffer.wrap(f).getLong(off);
    }

    /** Segment List[i] of the SRH right after the IPv6 header, as {hi, lo}. */
    private static long[] segment(byte[] f, int i) {
        return new long[] {i64(f, 14 + 48 + 16 * i), i64(f, 14 + 56 + 16 * i)};
    }

    static byte[] tcp6(long srcHi, long srcLo, long dstHi, long dstLo, int sport, int dport, int flags, int payload) {
        return SrlbGraphTest.tcp6(srcHi, srcLo, dstHi, dstLo, sport, dport, flags, payload);
    }

    /** The LB's hunting SYN (fn 0x0; {@code syn = false}: a RECOVER_STICKINESS 0x1 hunt) with this agent first. */
    static byte[] hunt(long clientLo, int port, boolean syn) {
        byte[] inner = tcp6(CLIENT_HI, clientLo, VIP_HI, VIP_LO, port, 80, syn ? 0x02 : 0x10, syn ? 0 : 20);
        byte[] out = new byte[inner.length + 72];
        System.arraycopy(inner, 0, out, 0, inner.length);
        int n = new io.vecflow.dataplane.lb.Encap(2048, 64, 0, 0, 0).srlbHunt(MemorySegment.ofArray(out), 0,
                inner.length, 14, new long[] {SA_HI, 0, OTHER_HI, 0}, 2, LB_HI, LB_LO, syn);
        assertThat(n).isEqualTo(out.length);
        return out;
    }

    /** The LB's packet for an established flow: [SA SID fn 0x2, LB SID, VIP], SA SID as the agent signalled it. */
    static byte[] steered(long clientLo, int port, int flags, long saHi, long saLo) {
        byte[] inner = tcp6(CLIENT_HI, clientLo, VIP_HI, VIP_LO, port, 80, flags, 30);
        byte[] out = new byte[inner.length + 56];
        System.arraycopy(inner, 0, out, 0, inner.length);
        int n = new io.vecflow.dataplane.lb.Encap(2048, 64, 0, 0, 0).srlbToServer(MemorySegment.ofArray(out), 0,
                inner.length, 14, saHi, saLo, LB_HI, LB_LO);
        assertThat(n).isEqualTo(out.length);
        return out;
    }

    /** Checks a reply that goes via the LB: [client, SA SID, LB SID fn {@code fn}]; @return the SA SID */
    private static long[] viaLb(byte[] f, int fn, long clientLo) {
        assertThat(f[14 + 6]).as("routing header").isEqualTo((byte) 43);
        assertThat(f[14 + 43]).as("segments left").isEqualTo((byte) 2);
        assertThat(segment(f, 0)).containsExactly(CLIENT_HI, clientLo);
        long[] lb = segment(f, 2);
        assertThat(lb[0]).isEqualTo(LB_HI);
        assertThat(lb[1]).as("LB SID fn 0x%x, CORE/ENTRY echoed", fn).isEqualTo(LB_LO | (long) fn << 44);
        long[] sa = segment(f, 1);
        assertThat(sa[0]).isEqualTo(SA_HI);
        return sa;
    }

    private static void straight(byte[] f, byte[] sent) {
        assertThat(f.length).as("no SRH").isEqualTo(sent.length);
        assertThat(f[14 + 6]).isEqualTo((byte) 6);
        assertThat(i64(f, 14 + 24)).isEqualTo(CLIENT_HI);
    }

    /**
     * One connection, its packets spread over the two workers: the SYN on {@code syn}, the SYN-ACK on {@code reply},
     * the LB's ACK_STICKINESS packets on both, the server's data on both, its FIN on {@code fin}, then its last ACK on
     * both.
     */
    @ParameterizedTest(name = "SYN on worker {0}, SYN-ACK on {1}, FIN on {2}")
    @CsvSource({"0, 1, 1", "1, 0, 0", "0, 0, 1", "1, 1, 0", "0, 1, 0", "1, 0, 1"})
    void aConnectionWhosePacketsLandOnEitherWorker(int syn, int reply, int fin) {
        int port = 40000;
        byte[] d = hop(syn, up, hunt(CLIENT_LO, port, true), local);
        assertThat(d.length).as("SRH popped").isEqualTo(14 + 40 + 20);
        assertThat(i64(d, 14 + 32)).isEqualTo(VIP_LO);
        // the SYN-ACK: CREATE_STICKINESS via the LB, the SA SID naming the owner (the worker that accepted)
        long[] sa = viaLb(hop(reply, local, tcp6(VIP_HI, VIP_LO, CLIENT_HI, CLIENT_LO, 80, port, 0x12, 0), up), 0x8,
                CLIENT_LO);
        assertThat(io.vecflow.dataplane.lb.srlb.SrlbSid.core(sa[1])).as("CORE = the owner").isEqualTo(syn);
        // the client's ACK and data, steered by the LB with fn 0x2, on both workers: delivered
        for (int w : new int[] {reply, 1 - reply}) {
            byte[] a = hop(w, up, steered(CLIENT_LO, port, 0x10, sa[0], sa[1]), local);
            assertThat(a.length).isEqualTo(14 + 40 + 20 + 30);
            assertThat(i64(a, 14 + 32)).isEqualTo(VIP_LO);
        }
        // DIRECT: the server's data goes straight to the client from either worker
        for (int w = 0; w < 2; w++) {
            byte[] data = tcp6(VIP_HI, VIP_LO, CLIENT_HI, CLIENT_LO, 80, port, 0x18, 100);
            straight(hop(w, local, data, up), data);
        }
        // the server's FIN: DELETE_STICKINESS via the LB; then both workers send its packets via the LB with 0x9
        viaLb(hop(fin, local, tcp6(VIP_HI, VIP_LO, CLIENT_HI, CLIENT_LO, 80, port, 0x11, 0), up), 0x9, CLIENT_LO);
        for (int w = 0; w < 2; w++) {
            long[] s = viaLb(hop(w, local, tcp6(VIP_HI, VIP_LO, CLIENT_HI, CLIENT_LO, 80, port, 0x10, 0), up), 0x9,
                    CLIENT_LO);
            assertThat(s).containsExactly(sa);
        }
        ServerAgentState.Counters c = agent.counters();
        assertThat(c.firstChoiceAccepts).isEqualTo(1);
        assertThat(c.stickyHits).as("the two ACK_STICKINESS packets").isEqualTo(2);
        assertThat(c.teardowns).isEqualTo(1);
        assertThat(c.noStateDrops).isZero();
        assertThat(dp.dropped(DropReason.SRLB_REJECTED)).isZero();
    }

    /**
     * A retransmitted SYN and a RECOVER_STICKINESS packet (the LB lost its state) reaching the worker that does not own
     * the flow find the owner's state: delivered as sticky hits, no second accept, no second entry.
     */
    @Test
    void aRetransmittedSynAndARecoveryOnTheOtherWorkerStickToTheOwnersEntry() {
        int port = 40100;
        hop(0, up, hunt(CLIENT_LO, port, true), local);
        hop(1, up, hunt(CLIENT_LO, port, true), local);
        byte[] r = hop(1, up, hunt(CLIENT_LO, port, false), local);
        assertThat(i64(r, 14 + 32)).as("RECOVER accepted: SRH popped, dst = VIP").isEqualTo(VIP_LO);
        ServerAgentState.Counters c = agent.counters();
        assertThat(c.firstChoiceAccepts).isEqualTo(1);
        assertThat(c.stickyHits).isEqualTo(2);
        assertThat(c.recoverMisses).isZero();
        long[] sa = viaLb(hop(1, local, tcp6(VIP_HI, VIP_LO, CLIENT_HI, CLIENT_LO, 80, port, 0x12, 0), up), 0x8,
                CLIENT_LO);
        assertThat(io.vecflow.dataplane.lb.srlb.SrlbSid.core(sa[1])).isZero();
        assertThat(agent.show()).contains("worker 0 flow table: live 1").contains("worker 1 flow table: live 0");
    }

    /** Many flows: every SYN-ACK and FIN on the other worker than the SYN, alternating owners. */
    @Test
    void manyConnectionsAcrossWorkers() {
        List<long[]> sids = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            hop(i & 1, up, hunt(100 + i, 41000, true), local);
        }
        for (int i = 0; i < 200; i++) {
            sids.add(viaLb(hop(1 - (i & 1), local, tcp6(VIP_HI, VIP_LO, CLIENT_HI, 100 + i, 80, 41000, 0x12, 0), up),
                    0x8, 100 + i));
            assertThat(io.vecflow.dataplane.lb.srlb.SrlbSid.core(sids.get(i)[1])).isEqualTo(i & 1);
        }
        for (int i = 0; i < 200; i++) {
            hop(1 - (i & 1), up, steered(100 + i, 41000, 0x10, sids.get(i)[0], sids.get(i)[1]), local);
            byte[] data = tcp6(VIP_HI, VIP_LO, CLIENT_HI, 100 + i, 80, 41000, 0x18, 10);
            straight(hop(i & 1, local, data, up), data);
            viaLb(hop(1 - (i & 1), local, tcp6(VIP_HI, VIP_LO, CLIENT_HI, 100 + i, 80, 41000, 0x11, 0), up), 0x9,
                    100 + i);
        }
        ServerAgentState.Counters c = agent.counters();
        assertThat(c.firstChoiceAccepts).isEqualTo(200);
        assertThat(c.teardowns).isEqualTo(200);
        assertThat(c.noStateDrops).isZero();
    }
}
