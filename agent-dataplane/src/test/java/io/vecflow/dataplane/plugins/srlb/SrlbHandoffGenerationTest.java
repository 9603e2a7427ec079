package io.vecflow.dataplane.plugins.srlb;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.dataplane.plugins.lb.maglev.FlowHash;
import io.vecflow.dataplane.plugins.lb.maglev.FlowKey;
import io.vecflow.dataplane.plugins.srlb.state.ServerAgentState;
import io.vecflow.dataplane.plugins.srlb.state.SrlbFlowTable;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The server agent's handoff (SrlbAgent "Several workers") applies a state change only to the life of the flow it
 * was decided from: a worker that decided a packet from the owner's entry hands over the entry's generation with the
 * change, and the owner counts the change stale when the slot holds a later life of the same key (the entry expired
 * and the same 5-tuple came back before the owner drained its inbox). Before generations, such a change (here the
 * server's FIN, a teardown) was applied to the new connection.
 */
class SrlbHandoffGenerationTest {
    private static final long C_HI = 0x2001_0db8_0000_0001L, C_LO = 7, V_HI = 0x2001_0db8_0000_00ffL, V_LO = 0x80;
    private static final long SECOND = 1_000_000_000L;
    private final long[] clock = {5 * SECOND};
    private SrlbAgent agent;
    private SrlbAgent.Worker owner, other;
    private long pw, hash;

    @BeforeEach
    void build() {
        SrlbAgent.Settings s = new SrlbAgent.Settings();
        s.sid = InetAddress.ofLiteral("fc00:1::");
        s.vips = List.of(InetAddress.ofLiteral("2001:db8:0:ff::80"));
        s.flowTableSlots = 64;
        s.workers = 2;
        s.clock = () -> clock[0];
        agent = new SrlbAgent(s);
        owner = agent.worker(0, 2048);
        other = agent.worker(1, 2048);
        pw = SrlbFlowTable.portsWord(FlowKey.PROTO_TCP, 40000, 80);
        hash = FlowHash.hash(agent.seed, C_HI, C_LO, V_HI, V_LO, pw);
    }

    /** The owner's side of an accepted flow: a slot in state {@code state} for 40 s; @return the slot */
    private int live(int state) {
        int slot = owner.table.slot(C_HI, C_LO, V_HI, V_LO, pw, hash, clock[0], true);
        assertThat(slot).isNotNegative();
        owner.table.set(slot, state, clock[0] + 40 * SECOND);
        return slot;
    }

    /** The other worker hands over the server's FIN (a reply via the LB) decided from generation {@code gen}. */
    private void handOverFin(int slot, long gen) {
        agent.handOver(other, 0, slot, gen, SrlbAgent.EVENT_REPLY | SrlbAgent.EVENT_FIN_OR_RST, C_HI, C_LO, V_HI,
                V_LO, pw, hash, 0, 0, 0);
        assertThat(other.sharing(SrlbAgent.HANDED)).isEqualTo(1);
    }

    @Test
    void aChangeForTheLifeItWasDecidedFromIsApplied() {
        int slot = live(ServerAgentState.DIRECT);
        handOverFin(slot, owner.table.sharedGeneration(slot));
        assertThat(owner.drain(agent)).isEqualTo(1);
        assertThat(owner.table.state(slot)).isEqualTo(ServerAgentState.TEARDOWN);
        assertThat(owner.sharing(SrlbAgent.APPLIED)).isEqualTo(1);
        assertThat(owner.sharing(SrlbAgent.STALE)).isZero();
    }

    @Test
    void aChangeDecidedFromAnEarlierLifeOfTheSameKeyIsStale() {
        int slot = live(ServerAgentState.DIRECT);
        long gen = owner.table.sharedGeneration(slot);
        handOverFin(slot, gen);
        // before the owner drains: the entry expires and the same 5-tuple comes back (a new accepted SYN)
        clock[0] += 41 * SECOND;
        int again = live(ServerAgentState.WAIT);
        assertThat(again).as("the same slot").isEqualTo(slot);
        assertThat(owner.table.generation(slot)).isNotEqualTo(gen);
        long expires = owner.table.expires(slot);
        assertThat(owner.drain(agent)).isEqualTo(1);
        assertThat(owner.table.state(slot)).as("the new connection is not torn down").isEqualTo(ServerAgentState.WAIT);
        assertThat(owner.table.expires(slot)).isEqualTo(expires);
        assertThat(owner.sharing(SrlbAgent.STALE)).isEqualTo(1);
        assertThat(owner.sharing(SrlbAgent.APPLIED)).isZero();
    }

    /** {@link SrlbFlowTable#renew}: the hinted path of an insertion starts a new life only for an expired entry. */
    @Test
    void renewStartsANewLifeOnlyForAnExpiredEntry() {
        SrlbFlowTable t = new SrlbFlowTable(8);
        long now = SECOND;
        int a = t.slot(C_HI, C_LO, V_HI, V_LO, pw, 0, now, true);
        t.set(a, ServerAgentState.DIRECT, now + 10 * SECOND);
        assertThat(t.renew(a, now + SECOND)).isEqualTo(a);
        assertThat(t.generation(a)).as("live: the same life").isEqualTo(1);
        assertThat(t.renew(a, now + 10 * SECOND)).isEqualTo(a);
        assertThat(t.generation(a)).as("expired at its expiry: a new life").isEqualTo(2);
        assertThat(t.state(a)).as("nothing else changes").isEqualTo(ServerAgentState.DIRECT);
        assertThat(t.inserts()).isEqualTo(1);
    }

    @Test
    void aGenerationChangesOnlyWhenASlotStartsANewLife() {
        SrlbFlowTable t = new SrlbFlowTable(8);
        long now = SECOND;
        assertThat(t.generation(0)).isZero();
        int a = t.slot(C_HI, C_LO, V_HI, V_LO, pw, 0, now, true);
        long g1 = t.generation(a);
        assertThat(g1).isEqualTo(1);
        t.set(a, ServerAgentState.DIRECT, now + 10 * SECOND);
        int b = t.slot(C_HI, C_LO + 1, V_HI, V_LO, pw, 0, now, true);
        assertThat(b).isNotEqualTo(a);
        assertThat(t.generation(b)).isEqualTo(2);
        assertThat(t.slot(C_HI, C_LO, V_HI, V_LO, pw, 0, now + SECOND, true)).isEqualTo(a);
        assertThat(t.generation(a)).as("a live key found again: the same life").isEqualTo(g1);
        assertThat(t.slot(C_HI, C_LO, V_HI, V_LO, pw, 0, now + 20 * SECOND, false)).isEqualTo(a);
        assertThat(t.generation(a)).as("an expired key looked up without insert").isEqualTo(g1);
        assertThat(t.slot(C_HI, C_LO, V_HI, V_LO, pw, 0, now + 20 * SECOND, true)).isEqualTo(a);
        assertThat(t.generation(a)).as("an expired key back for insertion: a new life").isEqualTo(3);
        assertThat(t.sharedGeneration(a)).isEqualTo(3);
        assertThat(t.inserts()).as("inserts count claims of free slots only").isEqualTo(2);
    }
}
