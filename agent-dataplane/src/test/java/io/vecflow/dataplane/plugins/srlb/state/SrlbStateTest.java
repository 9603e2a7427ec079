package io.vecflow.dataplane.plugins.srlb.state;

import static io.vecflow.dataplane.plugins.srlb.state.LbFlowState.HUNTING;
import static io.vecflow.dataplane.plugins.srlb.state.LbFlowState.LISTEN;
import static io.vecflow.dataplane.plugins.srlb.state.LbFlowState.STEER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.dataplane.plugins.srlb.load.AcceptPolicy;
import io.vecflow.dataplane.plugins.srlb.load.DynamicThreshold;
import io.vecflow.dataplane.plugins.srlb.load.StaticThreshold;
import org.junit.jupiter.api.Test;

/**
 * The SRLB LB and server-agent state machines (docs/load-balancing.md §3 "Packet exchange", "States", "Timeouts"),
 * driven through whole exchanges with explicit time.
 */
class SrlbStateTest {
    static final long S = 1_000_000_000L;

    /** A flow entry as a caller's table would hold it. */
    static final class Entry {
        int state;
        long expires;
    }

    static int lb(LbFlowState m, Entry e, int outcome, long now) {
        e.state = LbFlowState.state(outcome);
        e.expires = m.expiry(e.state, now);
        return outcome;
    }

    static int sa(ServerAgentState m, Entry e, int outcome, long now, boolean refresh) {
        e.state = ServerAgentState.state(outcome);
        if (refresh) {
            e.expires = m.expiry(e.state, now);
        }
        return outcome;
    }

    @Test
    void sidFields() {
        long lo = SrlbSid.lo(0xABCD_0000_0000_0000L, SrlbSid.FN_CREATE_STICKINESS, 3, 7, 0xDEADBEEF);
        assertThat(lo).isEqualTo(0xABCD_8307_DEAD_BEEFL);
        assertThat(SrlbSid.function(lo)).isEqualTo(8);
        assertThat(SrlbSid.offset(lo)).isEqualTo(3);
        assertThat(SrlbSid.core(lo)).isEqualTo(7);
        assertThat(Integer.toUnsignedLong(SrlbSid.entry(lo))).isEqualTo(0xDEADBEEFL);
        assertThatThrownBy(() -> SrlbSid.lo(0, 16, 0, 0, 0)).hasMessageContaining("function");
        assertThatThrownBy(() -> SrlbSid.lo(0, 0, 0, 256, 0)).hasMessageContaining("core");
    }

    /** SYN → first candidate busy, passes → second accepts → SYN-ACK creates stickiness → data → FIN. */
    @Test
    void secondChoiceExchange() {
        LbFlowState lbm = new LbFlowState();
        ServerAgentState s1 = new ServerAgentState(), s2 = new ServerAgentState();
        AcceptPolicy policy = new StaticThreshold(4);
        Entry lbE = new Entry(), e1 = new Entry(), e2 = new Entry();
        long now = 10 * S;

        int o = lb(lbm, lbE, lbm.onClientPacket(lbE.state, lbE.expires, now, true, false), now);
        assertThat(LbFlowState.action(o)).isEqualTo(LbFlowState.HUNT);
        assertThat(LbFlowState.function(o)).isEqualTo(SrlbSid.FN_CONNECT_IF_AVAILABLE);
        assertThat(lbE.state).isEqualTo(HUNTING);
        assertThat(lbE.expires).isEqualTo(now + 40 * S);

        // candidate 1 (choice 0, 1 remaining) has 4 busy workers: passes
        o = sa(s1, e1, s1.onSegment(e1.state, e1.expires, now, SrlbSid.FN_CONNECT_IF_AVAILABLE, 1, 0, policy, 4, false),
                now, false);
        assertThat(ServerAgentState.action(o)).isEqualTo(ServerAgentState.PASS);
        assertThat(e1.state).isEqualTo(ServerAgentState.NONE);
        // candidate 2 (choice 1, last) is just as busy but must accept
        o = sa(s2, e2, s2.onSegment(e2.state, e2.expires, now, SrlbSid.FN_CONNECT_IF_AVAILABLE, 0, 1, policy, 9, false),
                now, true);
        assertThat(ServerAgentState.action(o)).isEqualTo(ServerAgentState.DELIVER);
        assertThat(e2.state).isEqualTo(ServerAgentState.WAIT);

        // SYN-ACK from server 2 goes via the LB with 0x8
        o = s2.onServerPacket(e2.state, e2.expires, now + 1000, false);
        assertThat(ServerAgentState.action(o)).isEqualTo(ServerAgentState.VIA_LB);
        assertThat(ServerAgentState.function(o)).isEqualTo(SrlbSid.FN_CREATE_STICKINESS);
        o = lb(lbm, lbE, lbm.onServerSignal(lbE.state, lbE.expires, now + 2000, ServerAgentState.function(o), 1,
                false), now + 2000);
        assertThat(LbFlowState.action(o)).isEqualTo(LbFlowState.TO_CLIENT);
        assertThat(lbE.state).isEqualTo(STEER);

        // the client's ACK is steered with 0x2; the SA goes DIRECT, replies go straight to the client
        o = lb(lbm, lbE, lbm.onClientPacket(lbE.state, lbE.expires, now + 3000, false, false), now + 3000);
        assertThat(LbFlowState.action(o)).isEqualTo(LbFlowState.TO_SERVER);
        assertThat(LbFlowState.function(o)).isEqualTo(SrlbSid.FN_ACK_STICKINESS);
        o = sa(s2, e2, s2.onSegment(e2.state, e2.expires, now + 3000, SrlbSid.FN_ACK_STICKINESS, 0, 0, policy, 99,
                false), now + 3000, true);
        assertThat(e2.state).isEqualTo(ServerAgentState.DIRECT);
        assertThat(ServerAgentState.action(s2.onServerPacket(e2.state, e2.expires, now + 4000, false)))
                .isEqualTo(ServerAgentState.DIRECT_TO_CLIENT);

        // the server's FIN: TEARDOWN, signalled with 0x9 via the LB, which tears down too (2 s)
        o = sa(s2, e2, s2.onServerPacket(e2.state, e2.expires, now + 5000, true), now + 5000, true);
        assertThat(e2.state).isEqualTo(ServerAgentState.TEARDOWN);
        assertThat(ServerAgentState.function(o)).isEqualTo(SrlbSid.FN_DELETE_STICKINESS);
        assertThat(e2.expires).isEqualTo(now + 5000 + 2 * S);
        o = lb(lbm, lbE, lbm.onServerSignal(lbE.state, lbE.expires, now + 6000, SrlbSid.FN_DELETE_STICKINESS, 1, false),
                now + 6000);
        assertThat(lbE.state).isEqualTo(LbFlowState.TEARDOWN);
        assertThat(lbE.expires).isEqualTo(now + 6000 + 2 * S);
        // a last ACK still reaches the server; 2 s later the LB entry reads LISTEN again
        assertThat(LbFlowState.action(lbm.onClientPacket(lbE.state, lbE.expires, now + S, false, false)))
                .isEqualTo(LbFlowState.TO_SERVER);
        assertThat(LbFlowState.effective(lbE.state, lbE.expires, now + 6000 + 2 * S)).isEqualTo(LISTEN);

        LbFlowState.Counters lc = lbm.counters();
        assertThat(lc.newFlows).isEqualTo(1);
        assertThat(lc.firstChoiceAccepts).isZero();
        assertThat(lc.secondChoiceAccepts).isEqualTo(1);
        assertThat(lc.stickyHits).isEqualTo(2);
        assertThat(lc.teardowns).isEqualTo(1);
        assertThat(s1.counters().rejects).isEqualTo(1);
        assertThat(s2.counters().secondChoiceAccepts).isEqualTo(1);
        assertThat(s2.counters().teardowns).isEqualTo(1);
        assertThat(s2.counters().stickyHits).isEqualTo(1);
    }

    @Test
    void firstChoiceAcceptAndRetransmittedSynSticks() {
        ServerAgentState m = new ServerAgentState();
        Entry e = new Entry();
        AcceptPolicy p = new StaticThreshold(4);
        int o = sa(m, e, m.onSegment(e.state, e.expires, 0, SrlbSid.FN_CONNECT_IF_AVAILABLE, 1, 0, p, 3, false), 0,
                true);
        assertThat(ServerAgentState.action(o)).isEqualTo(ServerAgentState.DELIVER);
        // retransmitted SYN while now loaded: stays here (the SRLB code would re-ask the policy and pass it on)
        o = m.onSegment(e.state, e.expires, S, SrlbSid.FN_CONNECT_IF_AVAILABLE, 1, 0, p, 50, false);
        assertThat(ServerAgentState.action(o)).isEqualTo(ServerAgentState.DELIVER);
        assertThat(m.counters().firstChoiceAccepts).isEqualTo(1);
        assertThat(m.counters().stickyHits).isEqualTo(1);
    }

    @Test
    void lastCandidateRefusalDropsAndFullTableNeverAccepts() {
        ServerAgentState m = new ServerAgentState();
        int o = m.onSegment(0, 0, 1, SrlbSid.FN_CONNECT_IF_AVAILABLE, 0, 1, AcceptPolicy.ALWAYS_REJECT, 0, false);
        assertThat(ServerAgentState.action(o)).isEqualTo(ServerAgentState.DROP);
        o = m.onSegment(0, 0, 1, SrlbSid.FN_CONNECT_IF_AVAILABLE, 1, 0, AcceptPolicy.ALWAYS_ACCEPT, 0, true);
        assertThat(ServerAgentState.action(o)).isEqualTo(ServerAgentState.PASS);
        o = m.onSegment(0, 0, 1, SrlbSid.FN_CONNECT_IF_AVAILABLE, 0, 1, AcceptPolicy.ALWAYS_ACCEPT, 0, true);
        assertThat(ServerAgentState.action(o)).as("full table, even as last").isEqualTo(ServerAgentState.DROP);
        assertThat(m.counters().rejects).isEqualTo(3);
        assertThat(m.counters().lastCandidateDrops).isEqualTo(2);
        assertThat(m.counters().tableFull).isEqualTo(2);
        assertThat(ServerAgentState.action(m.onServerPacket(0, 0, 1, false))).isEqualTo(ServerAgentState.DROP);
        assertThat(m.counters().noStateDrops).isEqualTo(1);
    }

    @Test
    void recoverAcceptsOnlyWithStateAndReturnsToWait() {
        ServerAgentState m = new ServerAgentState();
        int o = m.onSegment(ServerAgentState.NONE, 0, 1, SrlbSid.FN_RECOVER_STICKINESS, 1, 0,
                AcceptPolicy.ALWAYS_ACCEPT, 0, false);
        assertThat(ServerAgentState.action(o)).isEqualTo(ServerAgentState.PASS);
        o = m.onSegment(ServerAgentState.DIRECT, 40 * S, 1, SrlbSid.FN_RECOVER_STICKINESS, 1, 0,
                AcceptPolicy.ALWAYS_REJECT, 0, false);
        assertThat(ServerAgentState.action(o)).isEqualTo(ServerAgentState.DELIVER);
        assertThat(ServerAgentState.state(o)).as("back to WAIT so replies re-create LB state")
                .isEqualTo(ServerAgentState.WAIT);
        assertThat(m.counters().recoverMisses).isEqualTo(1);
    }

    @Test
    void timeoutsAreLazyAndConfigurable() {
        LbFlowState m = new LbFlowState(5 * S, 1 * S, new LbFlowState.Counters());
        Entry e = new Entry();
        lb(m, e, m.onClientPacket(e.state, e.expires, 0, true, false), 0);
        assertThat(e.expires).isEqualTo(5 * S);
        lb(m, e, m.onServerSignal(e.state, e.expires, S, SrlbSid.FN_CREATE_STICKINESS, 0, false), S);
        assertThat(LbFlowState.effective(e.state, e.expires, 6 * S - 1)).isEqualTo(STEER);
        assertThat(LbFlowState.effective(e.state, e.expires, 6 * S)).isEqualTo(LISTEN);
        // a packet after expiry is a new flow
        int o = lb(m, e, m.onClientPacket(e.state, e.expires, 7 * S, false, false), 7 * S);
        assertThat(LbFlowState.function(o)).as("non-SYN new flow recovers").isEqualTo(SrlbSid.FN_RECOVER_STICKINESS);
        assertThat(m.counters().newFlows).isEqualTo(2);
        assertThat(m.counters().firstChoiceAccepts).isEqualTo(1);
        // full table: hunts without state
        o = m.onClientPacket(LISTEN, 0, 100 * S, true, true);
        assertThat(LbFlowState.state(o)).isEqualTo(LISTEN);
        assertThat(LbFlowState.action(o)).isEqualTo(LbFlowState.HUNT);
        assertThat(m.counters().tableFull).isEqualTo(1);
        assertThatThrownBy(() -> new LbFlowState(0, S, new LbFlowState.Counters())).hasMessageContaining("> 0");
    }

    @Test
    void createAfterTeardownStaysTeardownAndBadFunctionDrops() {
        LbFlowState m = new LbFlowState();
        int o = m.onServerSignal(LbFlowState.TEARDOWN, 2 * S, S, SrlbSid.FN_CREATE_STICKINESS, 0, false);
        assertThat(LbFlowState.state(o)).isEqualTo(LbFlowState.TEARDOWN);
        o = m.onServerSignal(STEER, 2 * S, S, 0x3, 0, false);
        assertThat(LbFlowState.action(o)).isEqualTo(LbFlowState.DROP);
        assertThat(m.counters().badFunction).isEqualTo(1);
        assertThat(m.counters().firstChoiceAccepts).isZero();
    }

    @Test
    void transitionsAllocateNothing() {
        LbFlowState lbm = new LbFlowState();
        ServerAgentState sam = new ServerAgentState();
        AcceptPolicy p = new DynamicThreshold();
        com.sun.management.ThreadMXBean mx =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (int round = 0; round < 2; round++) {
            long before = mx.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 500_000; i++) {
                sum += lbm.onClientPacket(i & 3, i, i + 1, (i & 1) == 0, false);
                sum += lbm.onServerSignal(i & 3, i, i - 1, SrlbSid.FN_CREATE_STICKINESS, i & 1, false);
                sum += sam.onSegment(i & 3, i, i + 1, i % 3, i & 1, i & 1, p, i % 7, false);
                sum += sam.onServerPacket(i & 3, i, i - 1, (i & 7) == 0);
            }
            long allocated = mx.getCurrentThreadAllocatedBytes() - before;
            if (round == 1) {
                assertThat(allocated).as("bytes for 2M transitions").isLessThan(1024);
            }
        }
        assertThat(sum).isNotZero();
    }
}
