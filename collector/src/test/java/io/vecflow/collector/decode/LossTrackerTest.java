package io.vecflow.collector.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.collector.inlet.DatagramProcessor;
import io.vecflow.sflow.DatagramBuilder;
import io.vecflow.sflow.DatagramHeader;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Loss accounting from sequence numbers, restarts and agent-reported drops. */
class LossTrackerTest {
    private final LossTracker t = new LossTracker();
    private final DatagramHeader h = new DatagramHeader();

    private LossTracker.AgentStats datagram(int lastOctet, long sub, long seq, long uptime) {
        h.agentAddressType = 1;
        Arrays.fill(h.agentAddress, (byte) 0);
        h.agentAddress[0] = 10;
        h.agentAddress[3] = (byte) lastOctet;
        h.subAgentId = sub;
        h.sequenceNumber = seq;
        h.uptimeMs = uptime;
        return t.onDatagram(h);
    }

    @Test
    void datagramGapsReorderingWrapAndRestarts() {
        datagram(1, 0, 1, 1000);
        datagram(1, 0, 2, 1100);
        datagram(1, 0, 5, 1200); // 3 and 4 lost
        datagram(1, 0, 4, 1150); // 4 arrives late: reordered, not un-lost
        assertThat(datagram(1, 0, 5, 1200)).as("a copy of 5").isSameAs(LossTracker.DUPLICATE);
        datagram(2, 0, 0xFFFFFFFFL, 10); // another agent: its own sequence
        datagram(2, 0, 0, 20); // u32 wrap: no gap
        datagram(2, 0, 1, 30);
        datagram(1, 1, 100, 5); // sub-agent 1 of agent 1: separate
        datagram(1, 0, 6, 1300);
        datagram(1, 0, 1, 10); // sequence 1 again with another uptime (1000 before): the agent restarted
        var byAgent = t.agents();
        assertThat(byAgent).hasSize(3);
        LossTracker.AgentStats a = byAgent.stream().filter(x -> x.agent[15] == 1 && x.subAgentId == 0).findFirst()
                .orElseThrow();
        assertThat(a.datagrams).as("the copy of 5 is not counted").isEqualTo(6);
        assertThat(a.datagramsLost).isEqualTo(2);
        assertThat(a.datagramsReordered).as("late 4").isEqualTo(1);
        assertThat(a.datagramsDuplicated).as("the copy of 5").isEqualTo(1);
        assertThat(a.resets).isEqualTo(1);
        LossTracker.AgentStats b = byAgent.stream().filter(x -> x.agent[15] == 2).findFirst().orElseThrow();
        assertThat(b.datagrams).isEqualTo(3);
        assertThat(b.datagramsLost).isZero();

        datagram(3, 0, 50, 10_000_000);
        datagram(3, 0, 51, 10_001_000);
        datagram(3, 0, 1, 2_000); // uptime went back 10,000 s: the agent restarted
        datagram(3, 0, 3, 3_000); // 2 lost after the restart
        LossTracker.AgentStats c = t.agents().stream().filter(x -> x.agent[15] == 3).findFirst().orElseThrow();
        assertThat(c.resets).isEqualTo(1);
        assertThat(c.datagramsLost).isEqualTo(1);
        assertThat(t.totals()[0]).isEqualTo(14);
    }

    private LossTracker.AgentStats agent(int lastOctet) {
        return t.agents().stream().filter(x -> x.agent[15] == lastOctet && x.subAgentId == 0).findFirst()
                .orElseThrow();
    }

    @Test
    void aRestartIsDetectedWhenTheUptimeGoesBackByLessThanAMinute() {
        for (int q = 1; q <= 10; q++) {
            datagram(1, 0, q, q * 1000L);
        }
        for (int q = 1; q <= 3; q++) {
            datagram(1, 0, q, q * 100L); // restarted: sequence and uptime begin again
        }
        datagram(1, 0, 5, 500); // re-baselined on the new sequence: 4 is missing
        LossTracker.AgentStats a = agent(1);
        assertThat(a.resets).isEqualTo(1);
        assertThat(a.datagramsReordered).isZero();
        assertThat(a.datagramsLost).isEqualTo(1);
        assertThat(a.datagrams).isEqualTo(14);
    }

    @Test
    void aContinuingSequenceIsNeverARestartWhateverTheUptimeDoes() {
        datagram(1, 0, 100, 0xFFFFE000L);
        datagram(1, 0, 101, 0xFFFFF000L);
        datagram(1, 0, 102, 0x100); // u32 uptime wrap (49.7 days)
        datagram(1, 0, 103, 0x1100);
        datagram(1, 0, 104, 0x100); // the agent's clock stepped back 4 s (hsflowd derives uptime from it)
        datagram(1, 0, 106, 5); // a gap of one, the uptime back by ~4 s again
        LossTracker.AgentStats a = agent(1);
        assertThat(a.resets).isZero();
        assertThat(a.datagramsReordered).isZero();
        assertThat(a.datagramsLost).isEqualTo(1);
    }

    @Test
    void lateAndDuplicatedDatagramsWithConsistentUptimeAreReorderingNotRestarts() {
        datagram(1, 0, 1, 1000);
        datagram(1, 0, 2, 1010);
        datagram(1, 0, 4, 1030);
        datagram(1, 0, 3, 1020); // late: sent between 2 and 4
        assertThat(datagram(1, 0, 4, 1030)).as("duplicate").isSameAs(LossTracker.DUPLICATE);
        assertThat(datagram(1, 0, 3, 1020)).as("duplicate of the late one").isSameAs(LossTracker.DUPLICATE);
        datagram(1, 0, 5, 1040);
        LossTracker.AgentStats a = agent(1);
        assertThat(a.resets).isZero();
        assertThat(a.datagramsReordered).isEqualTo(1);
        assertThat(a.datagramsDuplicated).isEqualTo(2);
        assertThat(a.datagramsLost).as("3 was counted lost when 4 came; late, it stays counted").isEqualTo(1);

        // After a long in-order run the remembered window has moved on: a step back beyond it with an uptime just
        // before the oldest remembered datagram is still late.
        for (int q = 6; q <= 100; q++) {
            datagram(2, 0, q, q * 10L);
        }
        datagram(2, 0, 50, 500);
        assertThat(agent(2).resets).isZero();
        assertThat(agent(2).datagramsReordered).isEqualTo(1);
    }

    @Test
    void theSameHeaderOverOtherSamplesIsNotACopy() {
        DatagramHeader h = new DatagramHeader();
        h.agentAddressType = io.vecflow.sflow.SflowFormats.ADDRESS_IPV4;
        h.agentAddress[3] = 9;
        h.sequenceNumber = 7;
        h.uptimeMs = 700;
        assertThat(t.onDatagram(h, 0, 1, 111)).isNotSameAs(LossTracker.DUPLICATE);
        assertThat(t.onDatagram(h, 0, 2, 222)).as("other content").isNotSameAs(LossTracker.DUPLICATE);
        assertThat(t.onDatagram(h, 0, 3, 222)).as("the second one again").isSameAs(LossTracker.DUPLICATE);
        LossTracker.AgentStats a = agent(9);
        assertThat(a.datagrams).isEqualTo(2);
        assertThat(a.datagramsReordered).isEqualTo(1);
        assertThat(a.datagramsDuplicated).isEqualTo(1);
        assertThat(a.lastStream).isZero();
        assertThat(a.lastOffset).as("the stream position of the last datagram that changed its counts").isEqualTo(3);
    }

    @Test
    void aStepBackWithAnInconsistentUptimeIsARestart() {
        datagram(1, 0, 1, 1000);
        datagram(1, 0, 2, 1010);
        datagram(1, 0, 5, 1040);
        datagram(1, 0, 3, 1045); // "late" but stamped after 5: the sequence restarted under a running clock
        assertThat(agent(1).resets).isEqualTo(1);

        datagram(2, 0, 1, 1000);
        datagram(2, 0, 2, 1010);
        datagram(2, 0, 5, 1040);
        datagram(2, 0, 3, 1005); // stamped before 2: not a late 3
        assertThat(agent(2).resets).isEqualTo(1);

        datagram(3, 0, 1, 0);
        datagram(3, 0, 2, 10_000);
        datagram(3, 0, 4, 20_000);
        datagram(3, 0, 3, 12_000); // sent 8 s before 4 yet arriving after it: beyond MAX_LATENESS_MS
        assertThat(agent(3).resets).isEqualTo(1);

        // An agent that ran 1.5 s restarts and sends sequence 1 again: its uptime differs from the first 1's.
        datagram(4, 0, 1, 500);
        datagram(4, 0, 2, 1000);
        datagram(4, 0, 3, 1500);
        datagram(4, 0, 1, 400);
        datagram(4, 0, 2, 900);
        assertThat(agent(4).resets).isEqualTo(1);
        assertThat(agent(4).datagramsReordered).isZero();

        // Beyond the remembered datagrams: 1000 in order, then sequence 1 with a 50 ms uptime.
        for (int q = 1; q <= 1000; q++) {
            datagram(5, 0, q, 1000L * q);
        }
        datagram(5, 0, 1, 50);
        assertThat(agent(5).resets).isEqualTo(1);
        assertThat(agent(5).datagramsReordered).isZero();
    }

    @Test
    void oneOddDatagramThatLooksLikeARestartDoesNotTurnTheAgentsNextDatagramsIntoLoss() {
        // An agent at sequence 1000, then one datagram with its address but sequence 0 and uptime 0 (a malformed
        // sample length after a valid header, or a forged one), then the agent goes on: 1001, 1002, 1004.
        long sample = 1;
        for (int q = 1; q <= 1000; q++) {
            t.onSample(datagram(1, 0, q, 1000L * q), LossTracker.FLOW, 0, 3, sample++, 0);
        }
        t.onSample(datagram(1, 0, 0, 0), LossTracker.FLOW, 0, 3, 0, 0); // looks like a restart
        t.onSample(datagram(1, 0, 1001, 1_001_000), LossTracker.FLOW, 0, 3, sample++, 0);
        t.onSample(datagram(1, 0, 1002, 1_002_000), LossTracker.FLOW, 0, 3, sample++, 0);
        sample++; // 1003 lost with its sample
        t.onSample(datagram(1, 0, 1004, 1_004_000), LossTracker.FLOW, 0, 3, sample, 0);
        LossTracker.AgentStats a = agent(1);
        assertThat(a.datagrams).isEqualTo(1004);
        assertThat(a.datagramsLost).as("only 1003, not the 1000 between the odd 0 and 1001").isEqualTo(1);
        assertThat(a.resets).as("counted when it came").isEqualTo(1);
        assertThat(a.datagramsReordered).isZero();
        LossTracker.SourceStats s = t.sources().getFirst();
        assertThat(s.samples).isEqualTo(1004);
        assertThat(s.samplesLost).as("the sample of 1003").isEqualTo(1);

        // A real restart stays one: the datagram after it continues the new sequence.
        for (int q = 1; q <= 100; q++) {
            datagram(2, 0, q, 1000L * q);
        }
        datagram(2, 0, 1, 50);
        datagram(2, 0, 2, 1050);
        datagram(2, 0, 4, 3050);
        assertThat(agent(2).resets).isEqualTo(1);
        assertThat(agent(2).datagramsLost).as("3, after the restart").isEqualTo(1);
    }

    @Test
    void sampleGapsPerSourceAndFamilyAndReportedDrops() {
        LossTracker.AgentStats a = datagram(1, 0, 1, 1000);
        t.onSample(a, LossTracker.FLOW, 0, 7, 10, 0);
        t.onSample(a, LossTracker.FLOW, 0, 7, 11, 0);
        t.onSample(a, LossTracker.FLOW, 0, 7, 15, 3); // 3 lost (12..14); the agent says it dropped 3 itself
        t.onSample(a, LossTracker.FLOW, 0, 8, 1, 0); // another source
        t.onSample(a, LossTracker.COUNTERS, 0, 7, 1, -1); // counters of source 7: a separate sequence
        t.onSample(a, LossTracker.COUNTERS, 0, 7, 2, -1);
        t.onSample(a, LossTracker.DISCARDS, 0, 0, 5, 10);
        t.onSample(a, LossTracker.DISCARDS, 0, 0, 6, 12); // discards: +2 reported drops
        var sources = t.sources();
        assertThat(sources).hasSize(4);
        LossTracker.SourceStats s7 = sources.stream().filter(s -> s.sourceIdIndex == 7 && s.family == LossTracker.FLOW)
                .findFirst().orElseThrow();
        assertThat(s7.samples).isEqualTo(3);
        assertThat(s7.samplesLost).isEqualTo(3);
        assertThat(s7.reportedDrops).isEqualTo(3);
        LossTracker.SourceStats d = sources.stream().filter(s -> s.family == LossTracker.DISCARDS).findFirst()
                .orElseThrow();
        assertThat(d.reportedDrops).isEqualTo(2);
        assertThat(t.totals()[5]).isEqualTo(3);
        assertThat(t.totals()[6]).isEqualTo(5);
    }

    @Test
    void fedByTheDecoderFromRealDatagrams() {
        // Datagrams built by the agent's own encoder, one sample each, datagram 3 never sent.
        CollectorStats stats = new CollectorStats();
        DatagramProcessor proc = new DatagramProcessor(stats.decode, stats, java.util.List.of(), java.util.List.of());
        DatagramBuilder b = new DatagramBuilder(1400, new byte[] {10, 0, 0, 9}, 100000);
        MemorySegment hdr = MemorySegment.ofArray(new byte[64]);
        byte[] peer = new byte[16];
        for (int seq = 1; seq <= 6; seq++) {
            b.reset();
            b.addFlowSampleExpanded(seq * 2L, 0, 4, 100, seq * 200L, seq == 6 ? 9 : 0, 0, 4, 0, 0, 1, 64, 4, hdr, 0,
                    60);
            int len = b.finish(seq, seq * 1000L);
            if (seq != 3) {
                proc.process(b.buffer(), 0, len, 0, peer, 1);
            }
        }
        long[] totals = stats.loss.totals();
        assertThat(totals[0]).isEqualTo(5); // datagrams
        assertThat(totals[1]).isEqualTo(1); // datagram 3 lost
        assertThat(totals[4]).isEqualTo(5); // samples
        assertThat(totals[5]).as("sample sequence 2,4,(6),8,10,12 in steps of 2: 1+3+1+1 missing").isEqualTo(6);
        assertThat(totals[6]).isEqualTo(9); // drops went 0 -> 9
    }
}
