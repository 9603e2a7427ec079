package io.vecflow.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.dataplane.graph.BufferPool;
import io.vecflow.dataplane.graph.PacketVector;
import io.vecflow.dataplane.graph.Worker;
import io.vecflow.dataplane.plugins.lb.encap.Encap;
import io.vecflow.dataplane.plugins.srlb.SrlbAgent;
import io.vecflow.dataplane.plugins.srlb.state.ServerAgentState;
import io.vecflow.dataplane.plugins.srlb.state.SrlbSid;
import io.vecflow.dataplane.vnet.error.DropReason;
import io.vecflow.dataplane.vnet.fib.Forwarding;
import io.vecflow.dataplane.vnet.interfaces.InterfaceTable;
import io.vecflow.dataplane.vnet.interfaces.Port;
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
 * The {@code srlb-sa6} server agent on a server dataplane with two workers (docs/load-balancing.md §3; AF_PACKET fanout
 * spreads a connection's packets over workers by a hash the agent does not control): the hunting SYN, the server's
 * SYN-ACK, the LB's ACK_STICKINESS packets and the server's FIN are each fed to a chosen worker ({@link MemoryPort}
 * queue = worker), and every interleaving must behave as one worker would — the SYN-ACK signals CREATE_STICKINESS
 * through the LB with the SA SID naming the flow's owner (CORE = the worker that accepted, ENTRY = its slot), the
 * client's ACKs are delivered, the server's data then goes straight to the client from either worker, and a FIN on any
 * worker signals DELETE_STICKINESS, after which both workers send the server's packets via the LB with 0x9.
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
    /**
     * Run once by the agent's clock the next time a worker reads it (then cleared): lets a test put another worker's
     * work between a worker's handoff poll and its packets, as two threads can interleave.
     */
    private Runnable atNextClockRead;

    /**
     * A server dataplane with 2 workers running the SRLB agent (SID fc00:1::, VIP {@code VIP}, 4096 slots, the test
     * clock): port {@code upPort} (ifIndex 1, toward the LB, MTU 9000) and {@code localPort} (ifIndex 2, the local
     * server). Sets {@link #dp} and {@link #agent}.
     */
    private void agentDataplane(Port upPort, Port localPort)
            throws Exception {
        DataplaneSpec t = new DataplaneSpec();
        t.workers = 2;
        t.interfaces = new InterfaceTable(4);
        t.interfaces.add(upPort, MAC, 9000, true);
        t.interfaces.add(localPort, MAC + 1, 1500, true);
        t.forwarding = new Forwarding.Builder().neighbour("fd00:9::1", "02:aa:00:00:00:03")
                .neighbour("fd00:5::2", "02:aa:00:00:00:04").route("::/0", "fd00:9::1", 1)
                .route(VIP + "/128", "fd00:5::2", 2).build();
        t.srlbAgent = new SrlbAgent.Settings();
        t.srlbAgent.sid = InetAddress.ofLiteral("fc00:1::");
        t.srlbAgent.vips = List.of(InetAddress.ofLiteral(VIP));
        t.srlbAgent.flowTableSlots = 1 << 12;
        t.srlbAgent.clock = () -> {
            Runnable r = atNextClockRead;
            if (r != null) {
                atNextClockRead = null;
                r.run();
            }
            return clock[0];
        };
        dp = new Dataplane(t, em, null, null);
        agent = dp.plugin(SrlbAgent.class);
    }

    @BeforeEach
    void build() throws Exception {
        em = PsampleEmitter.openUnicast(1, Psample.Convention.VPP);
        up = new MemoryPort("vfsw-u", 1, 2);
        local = new MemoryPort("vfsw-l", 2, 2);
        agentDataplane(up, local);
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

    /**
     * Sends one frame into {@code in} on worker {@code w}'s queue and returns the only frame that left via {@code out}.
     */
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
        return hunt(clientLo, port, syn, LB_LO);
    }

    /** {@link #hunt(long, int, boolean)} with the LB SID's low 64 bits {@code lbLo}. */
    static byte[] hunt(long clientLo, int port, boolean syn, long lbLo) {
        byte[] inner = tcp6(CLIENT_HI, clientLo, VIP_HI, VIP_LO, port, 80, syn ? 0x02 : 0x10, syn ? 0 : 20);
        byte[] out = new byte[inner.length + 72];
        System.arraycopy(inner, 0, out, 0, inner.length);
        int n = new Encap(2048, 64, 0, 0, 0).srlbHunt(MemorySegment.ofArray(out), 0, 0,
                inner.length, 14, new long[] {SA_HI, 0, OTHER_HI, 0}, 2, LB_HI, lbLo, syn);
        assertThat(n).isEqualTo(out.length);
        return out;
    }

    /** The LB's packet for an established flow: [SA SID fn 0x2, LB SID, VIP], SA SID as the agent signalled it. */
    static byte[] steered(long clientLo, int port, int flags, long saHi, long saLo) {
        byte[] inner = tcp6(CLIENT_HI, clientLo, VIP_HI, VIP_LO, port, 80, flags, 30);
        byte[] out = new byte[inner.length + 56];
        System.arraycopy(inner, 0, out, 0, inner.length);
        int n = new Encap(2048, 64, 0, 0, 0).srlbToServer(MemorySegment.ofArray(out), 0, 0,
                inner.length, 14, saHi, saLo, LB_HI, LB_LO);
        assertThat(n).isEqualTo(out.length);
        return out;
    }

    /** Checks a reply that goes via the LB: [client, SA SID, LB SID fn {@code fn}]; @return the SA SID */
    private static long[] viaLb(byte[] f, int fn, long clientLo) {
        return viaLb(f, fn, clientLo, LB_LO);
    }

    /** {@link #viaLb(byte[], int, long)} for the LB SID {@code lbLo}. */
    private static long[] viaLb(byte[] f, int fn, long clientLo, long lbLo) {
        assertThat(f[14 + 6]).as("routing header").isEqualTo((byte) 43);
        assertThat(f[14 + 43]).as("segments left").isEqualTo((byte) 2);
        assertThat(segment(f, 0)).containsExactly(CLIENT_HI, clientLo);
        long[] lb = segment(f, 2);
        assertThat(lb[0]).isEqualTo(LB_HI);
        assertThat(lb[1]).as("LB SID fn 0x%x, CORE/ENTRY echoed", fn).isEqualTo(lbLo | (long) fn << 44);
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
        assertThat(SrlbSid.core(sa[1])).as("CORE = the owner").isEqualTo(syn);
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
        // the non-owner decided its packets from the owner's entry: the SYN-ACK (if there), one ACK, one data
        // segment, the FIN (if there), one last ACK; it handed over WAIT → DIRECT (if its ACK came first) and TEARDOWN
        SrlbAgent.Sharing sh = agent.sharing();
        int cross = (reply != syn ? 1 : 0) + (fin != syn ? 1 : 0);
        assertThat(sh.remote()).isEqualTo(3 + cross);
        assertThat(sh.handedOver()).isEqualTo(cross);
        assertThat(sh.applied()).isEqualTo(cross);
        assertThat(sh.searched() + sh.inboxFull() + sh.stale()).isZero();
        assertThat(agent.show()).contains("worker " + syn + " flow table: live 1 of 4096, inserts 1, full 0; "
                + "decided from other workers' entries 0 (found by search 0), state changes handed over 0 (inbox full "
                        + "0),"
                + " applied from others " + cross + " (stale 0)")
                .contains("worker " + (1 - syn) + " flow table: live 0 of 4096, inserts 0, full 0; decided from other "
                        + "workers' entries " + (3 + cross) + " (found by search 0), state changes handed over " + cross
                        + " (inbox full 0), applied from others 0 (stale 0)");
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
        // the LB lost its state and hunts again with RECOVER_STICKINESS from another of its workers: a new LB SID
        long lbLo2 = 0x0001_0000_0000_0123L;
        byte[] r = hop(1, up, hunt(CLIENT_LO, port, false, lbLo2), local);
        assertThat(i64(r, 14 + 32)).as("RECOVER accepted: SRH popped, dst = VIP").isEqualTo(VIP_LO);
        ServerAgentState.Counters c = agent.counters();
        assertThat(c.firstChoiceAccepts).isEqualTo(1);
        assertThat(c.stickyHits).isEqualTo(2);
        assertThat(c.recoverMisses).isZero();
        // the owner learnt the new LB SID from the handed-over change: both workers signal to it
        for (int w = 1; w >= 0; w--) {
            long[] sa = viaLb(hop(w, local, tcp6(VIP_HI, VIP_LO, CLIENT_HI, CLIENT_LO, 80, port, 0x12, 0), up), 0x8,
                    CLIENT_LO, lbLo2);
            assertThat(SrlbSid.core(sa[1])).isZero();
        }
        assertThat(agent.show()).contains("worker 0 flow table: live 1").contains("worker 1 flow table: live 0");
        assertThat(agent.sharing()).isEqualTo(new SrlbAgent.Sharing(3, 0, 1, 0, 1, 0));
    }

    /**
     * A state change decided from one life of a flow is not applied to a later life of the same 5-tuple on the
     * owner, when the new life starts on the owner itself (found through its owner index entry, not a table search):
     * worker 1 decides the server's FIN from the owner's entry 1 ms before it expires and hands over the teardown;
     * before worker 0 drains its inbox (after its handoff poll, before its packets, as the threads can interleave) the
     * entry expires and the same 5-tuple comes back to worker 0 in the same slot — a new hunting SYN, or an
     * ACK_STICKINESS packet (which starts an entry without state). The FIN must count as stale: the new connection is
     * not torn down (its SYN-ACK signals CREATE_STICKINESS 0x8; the server's data after the ACK goes straight).
     */
    @ParameterizedTest(name = "comes back with a SYN: {0}")
    @CsvSource({"true", "false"})
    void aFinFromAnEarlierLifeDoesNotTearDownTheConnectionTheOwnerStartsAgain(boolean syn) {
        int port = 40300;
        long accepted = clock[0];
        hop(0, up, hunt(CLIENT_LO, port, true), local);
        clock[0] = accepted + 40_000_000_000L - 1_000_000L; // the entry (WAIT, 40 s) has 1 ms left
        up.sent.clear();
        local.sent.clear();
        local.inject(1, List.of(tcp6(VIP_HI, VIP_LO, CLIENT_HI, CLIENT_LO, 80, port, 0x11, 0)));
        up.inject(0, List.of(syn ? hunt(CLIENT_LO, port, true) : steered(CLIENT_LO, port, 0x10, SA_HI, 0)));
        Worker w0 = dp.workers().get(0), w1 = dp.workers().get(1);
        atNextClockRead = () -> { // worker 0 has polled its (empty) inbox and its port, and is about to decide
            for (int i = 0; i < 4; i++) {
                w1.runOnce(); // the FIN, decided from the owner's live entry: TEARDOWN handed over
            }
            clock[0] = accepted + 41_000_000_000L; // the entry has expired when worker 0 decides the new packet
        };
        w0.runOnce();
        assertThat(atNextClockRead).as("worker 0 read the clock").isNull();
        assertThat(agent.sharing().handedOver()).as("worker 1 handed the FIN over").isEqualTo(1);
        viaLb(up.sent.remove(0), 0x9, CLIENT_LO);
        assertThat(local.sent).as("the new packet delivered").hasSize(1);
        run(0); // worker 0 drains its inbox
        SrlbAgent.Sharing sh = agent.sharing();
        assertThat(sh.stale()).as("the FIN of the earlier life").isEqualTo(1);
        assertThat(sh.applied()).isZero();
        assertThat(agent.show()).contains("worker 0 flow table: live 1 of 4096, inserts 1,");
        if (syn) {
            viaLb(hop(0, local, tcp6(VIP_HI, VIP_LO, CLIENT_HI, CLIENT_LO, 80, port, 0x12, 0), up), 0x8, CLIENT_LO);
            assertThat(agent.counters().firstChoiceAccepts).isEqualTo(2);
        } else {
            byte[] data = tcp6(VIP_HI, VIP_LO, CLIENT_HI, CLIENT_LO, 80, port, 0x18, 100);
            straight(hop(0, local, data, up), data);
        }
    }

    /**
     * The owner's entry stays alive on the other worker's traffic alone: the ACK_STICKINESS packets there hand over an
     * expiry refresh (at most every 10 s, a quarter of the 40 s active timeout), so 60 s after the accept —
     * beyond the 40 s active timeout — the entry is still the owner's one (without the refreshes it would expire at
     * 40 s and the next ACK_STICKINESS would start a new one on worker 1) and the server's data goes straight.
     */
    @Test
    void theNonOwnersTrafficKeepsTheOwnersEntryAlive() {
        int port = 40200;
        hop(0, up, hunt(CLIENT_LO, port, true), local);
        long[] sa = viaLb(hop(1, local, tcp6(VIP_HI, VIP_LO, CLIENT_HI, CLIENT_LO, 80, port, 0x12, 0), up), 0x8,
                CLIENT_LO);
        for (int s = 0; s < 60; s += 3) { // 20 ACKs 3 s apart on worker 1: DIRECT once, then refreshes every 12 s
            hop(1, up, steered(CLIENT_LO, port, 0x10, sa[0], sa[1]), local);
            clock[0] += 3_000_000_000L;
        }
        byte[] data = tcp6(VIP_HI, VIP_LO, CLIENT_HI, CLIENT_LO, 80, port, 0x18, 100);
        straight(hop(1, local, data, up), data);
        straight(hop(0, local, data, up), data);
        // the owner's entry lived on: no worker had to start a new one (as an ACK_STICKINESS without state would)
        assertThat(agent.show()).contains("worker 0 flow table: live 1 of 4096, inserts 1,")
                .contains("worker 1 flow table: live 0 of 4096, inserts 0,");
        SrlbAgent.Sharing sh = agent.sharing();
        assertThat(sh.handedOver()).as("DIRECT at 0 s, refreshes at 12, 24, 36, 48 s").isEqualTo(5);
        assertThat(sh.applied()).isEqualTo(5);
        assertThat(agent.counters().noStateDrops).isZero();
    }

    /**
     * The owner's inbox holds {@code SrlbHandoff.CAPACITY} (1024) changes: 1100 flows owned by worker 0 whose first
     * ACK_STICKINESS packets reach worker 1 while worker 0 does not run overflow it; the 76 refused changes are counted
     * and shown, every packet is still delivered, and the next packets of those flows hand their changes over again.
     */
    @Test
    void changesAFullInboxRefusesAreCountedAndHandedOverByTheNextPacket() {
        int flows = 1100;
        for (int i = 0; i < flows; i++) {
            hop(0, up, hunt(1000 + i, 42000, true), local);
        }
        List<byte[]> acks = new ArrayList<>();
        for (int i = 0; i < flows; i++) {
            acks.add(steered(1000 + i, 42000, 0x10, SA_HI, 0)); // CORE 0, ENTRY 0: found through the owner index
        }
        local.sent.clear();
        up.inject(1, acks);
        for (int i = 0; i < 20; i++) {
            dp.workers().get(1).runOnce();
        }
        assertThat(local.sent).as("every ACK delivered").hasSize(flows);
        SrlbAgent.Sharing sh = agent.sharing();
        assertThat(sh.handedOver()).isEqualTo(1024);
        assertThat(sh.inboxFull()).isEqualTo(flows - 1024);
        assertThat(agent.show()).contains("state changes handed over 1024 (inbox full 76)");
        dp.workers().get(0).runOnce();
        assertThat(agent.sharing().applied()).isEqualTo(1024);
        local.sent.clear();
        up.inject(1, acks);
        for (int i = 0; i < 20; i++) {
            dp.workers().get(1).runOnce();
        }
        dp.workers().get(0).runOnce();
        assertThat(local.sent).hasSize(flows);
        sh = agent.sharing();
        assertThat(sh.handedOver()).as("the 76 refused changes, again").isEqualTo(1024 + 76);
        assertThat(sh.applied()).isEqualTo(1024 + 76);
        assertThat(sh.stale()).isZero();
        // now all are DIRECT on the owner: the server's data goes straight from worker 1
        byte[] data = tcp6(VIP_HI, VIP_LO, CLIENT_HI, 1000 + flows - 1, 80, 42000, 0x18, 10);
        straight(hop(1, local, data, up), data);
    }

    /**
     * A port for the allocation test: each receive queue replays the frames the test arms it with (ids into one
     * off-heap copy of every frame), without allocating; transmit counts and frees.
     */
    static final class ArmedPort extends Port {
        private final MemorySegment data;
        private final int[] offset, length;
        private final int[][] armed = new int[2][];
        private final int[] cursor = new int[2];
        long sent;

        ArmedPort(String name, int ifIndex, List<byte[]> frames) {
            super(name, ifIndex, 2);
            offset = new int[frames.size()];
            length = new int[frames.size()];
            int total = 0;
            for (int i = 0; i < frames.size(); i++) {
                offset[i] = total;
                length[i] = frames.get(i).length;
                total += length[i];
            }
            data = java.lang.foreign.Arena.ofAuto().allocate(Math.max(1, total));
            for (int i = 0; i < frames.size(); i++) {
                MemorySegment.copy(frames.get(i), 0, data, java.lang.foreign.ValueLayout.JAVA_BYTE, offset[i],
                        length[i]);
            }
            armed[0] = new int[0];
            armed[1] = new int[0];
        }

        /** Queue {@code q} receives frames {@code ids} next. */
        void arm(int q, int[] ids) {
            armed[q] = ids;
            cursor[q] = 0;
        }

        @Override
        public int rx(int queue, BufferPool pool, PacketVector out, int max) {
            int n = 0;
            int[] ids = armed[queue];
            while (n < max && cursor[queue] < ids.length) {
                int b = pool.alloc();
                if (b < 0) {
                    break;
                }
                int f = ids[cursor[queue]++];
                MemorySegment.copy(data, offset[f], pool.data(), pool.offset(b), length[f]);
                pool.length[b] = length[f];
                pool.rxIfIndex[b] = ifIndex();
                pool.txIfIndex[b] = 0;
                out.add(b);
                n++;
            }
            return n;
        }

        @Override
        public void tx(int queue, BufferPool pool, PacketVector v) {
            sent += v.count;
            pool.free(v);
        }
    }

    /**
     * Both workers allocate nothing per packet on the shared paths: 128 connections per round, each with its SYN on
     * its owner (alternating), and its SYN-ACK, ACK_STICKINESS, FIN and half its data on the other worker — owner look-
     * ups, decisions from the other worker's entry, handed-over changes and the owners applying them. Every flow
     * expires between rounds.
     */
    @Test
    void theSharedPathsAllocateNothingPerPacket() throws Exception {
        int n = 128;
        List<byte[]> upFrames = new ArrayList<>(), localFrames = new ArrayList<>();
        int[][][] upIds = new int[2][2][], localIds = new int[3][2][]; // [phase][queue]
        List<List<Integer>> ids = new ArrayList<>();
        for (int i = 0; i < 2 * 2 + 3 * 2; i++) {
            ids.add(new ArrayList<>());
        }
        for (int i = 0; i < n; i++) {
            int owner = i & 1, other = 1 - owner;
            long lo = 5000 + i;
            ids.get(owner).add(upFrames.size()); // up phase 0: the SYN on the owner
            upFrames.add(hunt(lo, 43000, true));
            ids.get(2 + other).add(upFrames.size()); // up phase 1: ACK_STICKINESS on the other (ENTRY 0: via index)
            upFrames.add(steered(lo, 43000, 0x10, SA_HI, (long) owner << 32));
            ids.get(4 + other).add(localFrames.size()); // local phase 0: the SYN-ACK on the other
            localFrames.add(tcp6(VIP_HI, VIP_LO, CLIENT_HI, lo, 80, 43000, 0x12, 0));
            for (int q = 0; q < 2; q++) { // local phase 1: data on both
                ids.get(6 + q).add(localFrames.size());
                localFrames.add(tcp6(VIP_HI, VIP_LO, CLIENT_HI, lo, 80, 43000, 0x18, 200));
            }
            ids.get(8 + other).add(localFrames.size()); // local phase 2: the FIN on the other
            localFrames.add(tcp6(VIP_HI, VIP_LO, CLIENT_HI, lo, 80, 43000, 0x11, 0));
        }
        for (int q = 0; q < 2; q++) {
            for (int ph = 0; ph < 2; ph++) {
                upIds[ph][q] = ids.get(2 * ph + q).stream().mapToInt(Integer::intValue).toArray();
            }
            for (int ph = 0; ph < 3; ph++) {
                localIds[ph][q] = ids.get(4 + 2 * ph + q).stream().mapToInt(Integer::intValue).toArray();
            }
        }
        dp.close();
        ArmedPort u = new ArmedPort("vfsw-au", 1, upFrames), l = new ArmedPort("vfsw-al", 2, localFrames);
        agentDataplane(u, l);
        Worker w0 = dp.workers().get(0), w1 = dp.workers().get(1);
        Runnable settle = () -> {
            for (int i = 0; i < 3; i++) {
                w0.runOnce();
                w1.runOnce();
            }
        };
        int[] rounds = {0};
        Runnable round = () -> {
            for (int ph = 0; ph < 5; ph++) { // SYN, SYN-ACK, ACK_STICKINESS, data, FIN
                for (int q = 0; q < 2; q++) {
                    switch (ph) {
                        case 0 -> u.arm(q, upIds[0][q]);
                        case 1 -> l.arm(q, localIds[0][q]);
                        case 2 -> u.arm(q, upIds[1][q]);
                        case 3 -> l.arm(q, localIds[1][q]);
                        default -> l.arm(q, localIds[2][q]);
                    }
                }
                settle.run();
            }
            clock[0] += 41_000_000_000L; // every flow expires: the next round accepts afresh
            rounds[0]++;
        };
        long least = ThreadAllocation.leastPerRound(round, 20, 5);
        long x0 = ThreadAllocation.bytes();
        long overhead = ThreadAllocation.bytes() - x0; // what reading the counter twice costs (the MXBean allocates)
        System.out.printf("srlb agent, 2 workers: %d B allocated for a round of %d packets (reading the counter: %d "
                + "B)%n",
                least, 6 * n, overhead);
        assertThat(least).as("bytes allocated for one round of %d packets on 2 workers", 6 * n).isLessThan(1024);
        // every packet went where it should: to the server (SYN, ACK) or out toward the LB / client
        assertThat(l.sent).isEqualTo((long) rounds[0] * 2 * n);
        assertThat(u.sent).isEqualTo((long) rounds[0] * 4 * n);
        ServerAgentState.Counters c = agent.counters();
        assertThat(c.firstChoiceAccepts).isEqualTo((long) rounds[0] * n);
        assertThat(c.teardowns).isEqualTo((long) rounds[0] * n);
        assertThat(c.noStateDrops).isZero();
        SrlbAgent.Sharing sh = agent.sharing();
        assertThat(sh.remote()).as("SYN-ACK, ACK, data, FIN on the other worker").isEqualTo((long) rounds[0] * 4 * n);
        assertThat(sh.handedOver()).as("DIRECT and TEARDOWN").isEqualTo((long) rounds[0] * 2 * n);
        assertThat(sh.applied()).isEqualTo(sh.handedOver());
        assertThat(sh.inboxFull() + sh.stale()).isZero();
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
            assertThat(SrlbSid.core(sids.get(i)[1])).isEqualTo(i & 1);
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
