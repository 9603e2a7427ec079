package io.vecflow.hsflowd.dropmon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.netlink.netdm.NetDmAlert;
import io.vecflow.netlink.netdm.NetDmCodec;
import io.vecflow.sflow.DatagramBuilder;
import io.vecflow.sflow.DatagramHeader;
import io.vecflow.sflow.DecodeStats;
import io.vecflow.sflow.FlowSample;
import io.vecflow.sflow.SflowDecoder;
import io.vecflow.sflow.SflowFormats;
import io.vecflow.sflow.SflowVisitor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Golden NET_DM vectors (kernel and VPP conventions) through the codec and the dropmon module into discarded_packet
 * samples, re-encoded and decoded by the sFlow decoder; rate limit and circuit breaker on a synthetic clock.
 */
class DropmonModuleTest {

    /** One discard sample as the sFlow decoder read it back. */
    record Discard(long seq, int sourceType, long sourceIndex, long drops, long input, long output, long reason,
            int[] records, int headerProtocol, long frameLength, long stripped, byte[] header, String hwGroup,
            String hwTrap, String function, String linuxReason, Long timestamp) {}

    /** Encodes every sample the sink gets into a datagram and decodes it back (the decoder is the judge). */
    static final class Sink implements DropmonModule.DiscardSink {
        final List<Discard> got = new ArrayList<>();

        @Override
        public boolean accept(FlowSample s) {
            DatagramBuilder b = new DatagramBuilder(1400, new byte[] {127, 0, 0, 1}, 100000);
            assertThat(b.addFlowSample(s)).isTrue();
            int len = b.finish(1, 0);
            new SflowDecoder(new DecodeStats()).decode(b.buffer(), 0, len, new SflowVisitor() {
                @Override
                public void onDatagram(DatagramHeader h) {}

                @Override
                public void onFlowSample(DatagramHeader h, FlowSample f) {
                    throw new AssertionError("expected a 0:5 sample");
                }

                @Override
                public void onDiscardSample(DatagramHeader h, FlowSample f) {
                    got.add(new Discard(f.sequenceNumber, f.sourceIdType, f.sourceIdIndex, f.drops, f.input, f.output,
                            f.reason, Arrays.copyOf(f.recordFormats, f.recordsListed), f.sampledHeader.headerProtocol,
                            f.sampledHeader.frameLength, f.sampledHeader.stripped, f.sampledHeader.header.toArray(),
                            f.hasHwTrap ? f.hwTrap.group.asString() : null,
                            f.hasHwTrap ? f.hwTrap.trap.asString() : null,
                            f.hasFunction ? f.function.asString() : null,
                            f.hasLinuxDropReason ? f.linuxDropReason.asString() : null,
                            f.hasTimestamp ? f.timestampNanos : null));
                }
            });
            return true;
        }
    }

    private final long[] now = {5_000_000_000L};
    private final Sink sink = new Sink();
    private final NetDmCodec codec = new NetDmCodec();
    private final NetDmAlert alert = new NetDmAlert();

    private DropmonModule module(DropmonSettings s, int headerBytes) {
        return new DropmonModule(s, headerBytes, sink, () -> now[0], null);
    }

    private void feed(DropmonModule m, byte[] msg) throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(msg.length);
            MemorySegment.copy(msg, 0, seg, ValueLayout.JAVA_BYTE, 0, msg.length);
            assertThat(codec.decode(seg, 0, msg.length, alert)).isTrue();
        }
        m.onAlert(alert);
    }

    @Test
    void kernelSoftwareDropBecomesPortUnreachableWithItsRecords() throws Exception {
        DropmonModule m = module(new DropmonSettings(), 128);
        feed(m, Vectors.kernelNoSocket());
        assertThat(sink.got).hasSize(1);
        Discard d = sink.got.getFirst();
        assertThat(d.seq()).isEqualTo(1);
        assertThat(d.sourceType()).isZero();
        assertThat(d.sourceIndex()).isEqualTo(3);
        assertThat(d.input()).isEqualTo(3);
        assertThat(d.output()).isZero();
        assertThat(d.drops()).isZero();
        assertThat(d.reason()).as("NO_SOCKET → port_unreachable").isEqualTo(3);
        assertThat(d.records()).containsExactly(SflowFormats.SAMPLED_HEADER, SflowFormats.EXTENDED_FUNCTION,
                SflowFormats.EXTENDED_LINUX_DROP_REASON, SflowFormats.EXTENDED_TIMESTAMP);
        assertThat(d.headerProtocol()).isEqualTo(1);
        assertThat(d.frameLength()).as("max(ORIG_LEN 160, payload 160) + 4 FCS").isEqualTo(164);
        assertThat(d.stripped()).isEqualTo(4);
        assertThat(d.header()).as("payload cut to headerBytes").containsExactly(Arrays.copyOf(Vectors.frame(160), 128));
        assertThat(d.function()).isEqualTo("kfree_skb_reason");
        assertThat(d.linuxReason()).isEqualTo("NO_SOCKET");
        assertThat(d.timestamp()).isEqualTo(Vectors.TS);
        assertThat(d.hwTrap()).isNull();
    }

    @Test
    void hardwareTrapAndVppFlatInPort() throws Exception {
        DropmonModule m = module(new DropmonSettings(), 256);
        feed(m, Vectors.kernelBlackhole());
        feed(m, Vectors.vppTtl());
        assertThat(sink.got).hasSize(2);
        Discard hw = sink.got.get(0);
        assertThat(hw.reason()).as("blackhole_route").isEqualTo(269);
        assertThat(hw.input()).isEqualTo(5);
        assertThat(hw.records()).containsExactly(SflowFormats.SAMPLED_HEADER, SflowFormats.EXTENDED_HW_TRAP,
                SflowFormats.EXTENDED_TIMESTAMP);
        assertThat(hw.hwGroup()).isEqualTo("l3_drops");
        assertThat(hw.hwTrap()).isEqualTo("blackhole_route");
        assertThat(hw.frameLength()).isEqualTo(1504);
        assertThat(hw.header()).hasSize(64);

        Discard vpp = sink.got.get(1);
        assertThat(vpp.reason()).as("vpp_* traps → 256 unknown").isEqualTo(256);
        assertThat(vpp.input()).as("VPP's flat IN_PORT (hsflowd would report 0)").isEqualTo(7);
        assertThat(vpp.sourceIndex()).isEqualTo(7);
        assertThat(vpp.seq()).as("own sequence per source").isEqualTo(1);
        assertThat(vpp.header()).as("cut to TRUNC_LEN 128 before headerBytes 256")
                .containsExactly(Arrays.copyOf(Vectors.frame(160), 128));
        assertThat(vpp.frameLength()).isEqualTo(1518);
        assertThat(vpp.records()).containsExactly(SflowFormats.SAMPLED_HEADER, SflowFormats.EXTENDED_HW_TRAP);
        assertThat(vpp.hwGroup()).isEqualTo("vpp_ip4-input");
        assertThat(vpp.hwTrap()).isEqualTo("vpp_ip4_ttl_expired");
        assertThat(vpp.timestamp()).isNull();
    }

    @Test
    void reasonFallsBackToSymbolAndNonDropsAreCounted() throws Exception {
        DropmonModule m = module(new DropmonSettings(), 128);
        feed(m, Vectors.notSpecifiedTcp());
        feed(m, Vectors.lldpTrap());
        feed(m, Vectors.purgeNoProto());
        feed(m, Vectors.noProto());
        assertThat(sink.got).extracting(Discard::reason).containsExactly(289L); // unknown_l4 from tcp_v4_rcv
        assertThat(sink.got.getFirst().linuxReason()).isEqualTo("NOT_SPECIFIED");
        assertThat(m.alerts()).isEqualTo(4);
        assertThat(m.notDrops()).as("lldp control trap, skb_queue_purge").isEqualTo(2);
        assertThat(m.noProto()).isEqualTo(1);
        assertThat(m.sent()).isEqualTo(1);
    }

    @Test
    void switchesAndHide() throws Exception {
        DropmonSettings off = new DropmonSettings();
        off.hw = false;
        DropmonModule m = module(off, 128);
        feed(m, Vectors.kernelBlackhole());
        assertThat(m.notDrops()).as("hw=off: hardware traps are not looked up").isEqualTo(1);
        off.hwPassive = true;
        m = module(off, 128);
        feed(m, Vectors.kernelBlackhole());
        assertThat(m.sent()).as("hw_passive: reported without starting").isEqualTo(1);

        DropmonSettings hide = new DropmonSettings();
        hide.hide = "^vpp_|SOCKET";
        m = module(hide, 128);
        feed(m, Vectors.vppTtl());
        feed(m, Vectors.kernelNoSocket());
        feed(m, Vectors.kernelBlackhole());
        assertThat(m.hidden()).isEqualTo(2);
        assertThat(m.sent()).isEqualTo(1);
    }

    @Test
    void rateLimitRefillsATenthEvery100msAndCountsTheRestInDrops() throws Exception {
        DropmonSettings s = new DropmonSettings();
        s.limit = 50; // quota 5 per 100 ms
        DropmonModule m = module(s, 128);
        for (int i = 0; i < 8; i++) {
            feed(m, Vectors.kernelNoSocket());
        }
        assertThat(m.sent()).isEqualTo(5);
        assertThat(m.rateLimited()).isEqualTo(3);
        now[0] += 99_000_000L;
        feed(m, Vectors.kernelNoSocket());
        assertThat(m.rateLimited()).as("no refill before 100 ms").isEqualTo(4);
        now[0] += 1_000_000L;
        for (int i = 0; i < 6; i++) {
            feed(m, Vectors.kernelNoSocket());
        }
        assertThat(m.sent()).isEqualTo(10);
        assertThat(m.rateLimited()).isEqualTo(5);
        assertThat(sink.got).extracting(Discard::drops).containsExactly(0L, 0L, 0L, 0L, 0L, 4L, 4L, 4L, 4L, 4L);
        assertThat(sink.got).extracting(Discard::seq).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);

        DropmonSettings slow = new DropmonSettings();
        slow.limit = 2; // below 10: quota 2 per second
        DropmonModule m2 = module(slow, 128);
        for (int i = 0; i < 3; i++) {
            feed(m2, Vectors.kernelNoSocket());
        }
        now[0] += 500_000_000L;
        feed(m2, Vectors.kernelNoSocket());
        now[0] += 500_000_000L;
        feed(m2, Vectors.kernelNoSocket());
        assertThat(m2.sent()).isEqualTo(3);
        assertThat(m2.rateLimited()).isEqualTo(2);
    }

    @Test
    void circuitBreakerTripsAfterMaxTripSecondsAboveMax() throws Exception {
        DropmonSettings s = new DropmonSettings();
        s.max = 10;
        s.maxTrip = 2;
        long[] trippedAt = {-1};
        DropmonModule m = new DropmonModule(s, 128, sink, () -> now[0], e -> trippedAt[0] = e);
        // second 1: 11 events (> max), second 2: 10 (not above) resets, seconds 3 and 4: 12 each → trips
        int[] perSecond = {11, 10, 12, 12};
        for (int sec = 0; sec < perSecond.length; sec++) {
            for (int i = 0; i < perSecond[sec]; i++) {
                feed(m, Vectors.lldpTrap()); // events count whether or not they are drops
            }
            now[0] += 1_000_000_000L;
            m.tick();
            assertThat(m.tripped()).as("after second %d", sec + 1).isEqualTo(sec == 3);
        }
        assertThat(trippedAt[0]).isEqualTo(12);
        feed(m, Vectors.kernelNoSocket());
        assertThat(m.afterTrip()).isEqualTo(1);
        assertThat(sink.got).isEmpty();

        DropmonSettings off = new DropmonSettings();
        off.max = 0;
        DropmonModule never = module(off, 128);
        for (int i = 0; i < 500; i++) {
            feed(never, Vectors.lldpTrap());
        }
        now[0] += 5_000_000_000L;
        never.tick();
        assertThat(never.tripped()).isFalse();
    }

    @Test
    void clockJumpsAreBounded() throws Exception {
        DropmonModule m = module(new DropmonSettings(), 128);
        feed(m, Vectors.kernelNoSocket());
        now[0] += 3_600_000_000_000L; // an hour without ticks
        m.tick();
        assertThat(m.quota()).isEqualTo(10);
        assertThat(m.tripped()).isFalse();
    }

    @Test
    void badSettingsNameTheKey() {
        DropmonSettings s = new DropmonSettings();
        s.maxTrip = 0;
        assertThatThrownBy(() -> module(s, 128)).hasMessageContaining("max_trip=0");
        DropmonSettings t = new DropmonSettings();
        t.transport = "udp";
        assertThatThrownBy(t::validate).hasMessageContaining("genl or usersock");
    }
}
