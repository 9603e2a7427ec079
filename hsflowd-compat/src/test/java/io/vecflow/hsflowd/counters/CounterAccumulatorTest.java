package io.vecflow.hsflowd.counters;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** hsflowd's accumulateNioCounters rules: latch first, add deltas, wrap per width, skip a discontinuity. */
class CounterAccumulatorTest {
    private static final int OCTETS = 0, PACKETS = 1, ERRORS = 2;

    private static CounterAccumulator acc() {
        return new CounterAccumulator(3, new int[] {OCTETS}, new int[] {PACKETS});
    }

    @Test
    void theFirstReadingLatchesAndLaterOnesAddTheirChange() {
        CounterAccumulator a = acc();
        assertThat(a.accumulate(new long[] {5_000_000_000L, 70_000, 3})).containsExactly(0, 0, 0);
        assertThat(a.accumulate(new long[] {5_000_001_500L, 70_010, 3})).containsExactly(1500, 10, 0);
        assertThat(a.accumulate(new long[] {5_000_002_000L, 70_011, 5})).containsExactly(2000, 11, 2);
        assertThat(a.discontinuities()).isZero();
    }

    @Test
    void thirtyTwoBitCountersWrapAndOctetsAreSixtyFourBit() {
        CounterAccumulator a = acc();
        a.accumulate(new long[] {0xFFFF_FFF0L, 0xFFFF_FFF0L, 0xFFFF_FFFEL});
        // a 32-bit source wrapped: +0x20 packets, +3 errors; 64-bit octets go past 2^32 without a wrap
        long[] t = a.accumulate(new long[] {0x1_0000_0010L, 0x10, 0x1});
        assertThat(t).containsExactly(0x20, 0x20, 3);
        // a raw 64-bit packet counter is cut to its low 32 bits first: the delta is still right
        t = a.accumulate(new long[] {0x1_0000_0020L, 0x7_0000_0015L, 0x1});
        assertThat(t).containsExactly(0x30, 0x25, 3);
    }

    @Test
    void aResetUnderTheAgentAddsNothingAndBecomesTheNewLatch() {
        CounterAccumulator a = acc();
        a.accumulate(new long[] {1_000_000, 1000, 0});
        a.accumulate(new long[] {2_000_000, 2000, 0});
        // the device was reset: octets went back (a huge unsigned delta), packets too
        long[] t = a.accumulate(new long[] {100, 1, 0});
        assertThat(t).containsExactly(1_000_000, 1000, 0);
        assertThat(a.discontinuities()).isEqualTo(1);
        t = a.accumulate(new long[] {600, 6, 1});
        assertThat(t).containsExactly(1_000_500, 1005, 1);
        // just at the limits: an octet delta of 10^13 and a packet delta of 2^31-1 are real
        a.accumulate(new long[] {600 + CounterAccumulator.MAX_OCTET_DELTA, 6 + CounterAccumulator.MAX_PACKET_DELTA, 1});
        assertThat(a.discontinuities()).isEqualTo(1);
        // one above: not
        CounterAccumulator b = acc();
        b.accumulate(new long[] {0, 0, 0});
        assertThat(b.accumulate(new long[] {0, CounterAccumulator.MAX_PACKET_DELTA + 1, 9})).containsExactly(0, 0, 0);
        assertThat(b.discontinuities()).isEqualTo(1);
    }
}
