package io.vecflow.collector.inlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The inlet's on-disk spool and the spooler in front of a downstream that goes away. */
class DatagramSpoolTest {
    private static final int SEG = 1 << 20;

    @TempDir
    Path dir;

    private static byte[] datagram(int i) {
        byte[] d = new byte[100 + i % 900];
        ByteBuffer.wrap(d).putInt(i);
        for (int k = 4; k < d.length; k++) {
            d[k] = (byte) (i * 31 + k);
        }
        return d;
    }

    private static byte[] peer(int i) {
        byte[] p = new byte[16];
        p[10] = p[11] = (byte) 0xFF;
        p[15] = (byte) i;
        return p;
    }

    private static void expect(DatagramSpool.Entry e, int i) {
        byte[] want = datagram(i);
        assertThat(e.length).isEqualTo(want.length);
        assertThat(java.util.Arrays.copyOf(e.data, e.length)).isEqualTo(want);
        assertThat(e.receivedNanos).isEqualTo(1_000_000L * i);
        assertThat(e.peer16).isEqualTo(peer(i));
        assertThat(e.peerPort).isEqualTo(40000 + i % 1000);
    }

    private static void append(DatagramSpool s, int i) {
        byte[] d = datagram(i);
        assertThat(s.append(d, 0, d.length, 1_000_000L * i, peer(i), 40000 + i % 1000)).isTrue();
    }

    @Test
    void datagramsComeBackInOrderAcrossSegmentsAndSegmentsAreDeletedWhenRead() throws Exception {
        DatagramSpool.Entry e = new DatagramSpool.Entry();
        try (DatagramSpool s = new DatagramSpool(dir, 64L << 20, SEG)) {
            for (int i = 0; i < 5000; i++) { // ~2.7 MB: three segments
                append(s, i);
            }
            assertThat(s.records()).isEqualTo(5000);
            assertThat(segments()).hasSizeGreaterThanOrEqualTo(3);
            for (int i = 0; i < 5000; i++) {
                assertThat(s.poll(e)).isTrue();
                expect(e, i);
            }
            assertThat(s.poll(e)).isFalse();
            assertThat(s.isEmpty()).isTrue();
            assertThat(s.bytes()).isZero();
            assertThat(segments()).as("read segments are deleted; the writer's stays").hasSize(1);
        }
    }

    @Test
    void whatIsHeldSurvivesARestartAndWhatWasReadIsNotReplayed() throws Exception {
        DatagramSpool.Entry e = new DatagramSpool.Entry();
        try (DatagramSpool s = new DatagramSpool(dir, 64L << 20, SEG)) {
            for (int i = 0; i < 3000; i++) {
                append(s, i);
            }
            for (int i = 0; i < 1234; i++) {
                assertThat(s.poll(e)).isTrue();
            }
        }
        try (DatagramSpool s = new DatagramSpool(dir, 64L << 20, SEG)) {
            assertThat(s.records()).isEqualTo(3000 - 1234);
            append(s, 3000); // new appends go behind what was left
            for (int i = 1234; i <= 3000; i++) {
                assertThat(s.poll(e)).isTrue();
                expect(e, i);
            }
            assertThat(s.poll(e)).isFalse();
        }
    }

    @Test
    void aKilledProcessLeavesEveryCompleteRecordAndATornOneEndsItsSegment() throws Exception {
        // Writes that a kill -9 interrupts: the mapping is the page cache, so what was written is there; the length
        // is written last, so a record cut short reads as the end. Here: the process "dies" without close().
        DatagramSpool s = new DatagramSpool(dir, 64L << 20, SEG);
        for (int i = 0; i < 100; i++) {
            append(s, i);
        }
        Path seg = segments().getFirst();
        // A torn record after the 100: a length written with a CRC that does not match (power loss, not kill -9).
        long end = 0;
        try (FileChannel ch = FileChannel.open(seg, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            for (long p = 0; ; ) {
                b.clear();
                ch.read(b, p);
                int len = b.flip().getInt();
                if (len == 0) {
                    end = p;
                    break;
                }
                p = (p + DatagramSpool.HEADER + len + 7) & ~7L;
            }
            ch.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(200).putInt(0xBAD).flip(), end);
        }
        DatagramSpool.Entry e = new DatagramSpool.Entry();
        try (DatagramSpool again = new DatagramSpool(dir, 64L << 20, SEG)) {
            assertThat(again.records()).isEqualTo(100);
            assertThat(again.corruptSegments()).isEqualTo(1);
            for (int i = 0; i < 100; i++) {
                assertThat(again.poll(e)).isTrue();
                expect(e, i);
            }
            assertThat(again.poll(e)).isFalse();
            append(again, 7);
            assertThat(again.poll(e)).isTrue();
            expect(e, 7);
        }
        s.close();
    }

    @Test
    void aFullSpoolRefusesAndCountsInsteadOfGrowing() throws Exception {
        try (DatagramSpool s = new DatagramSpool(dir, 2L * SEG, SEG)) {
            int n = 0;
            while (n < 100_000) {
                byte[] d = datagram(n);
                if (!s.append(d, 0, d.length, 0, peer(0), 0)) {
                    break;
                }
                n++;
            }
            assertThat(n).isBetween(3000, 5000);
            assertThat(s.bytes()).isLessThanOrEqualTo(2L * SEG);
            assertThat(s.refused()).isEqualTo(1);
            assertThatThrownBy(() -> s.append(new byte[70_000], 0, 70_000, 0, peer(0), 0))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aSecondCollectorCannotOpenTheSameSpoolDirectory() throws Exception {
        Spooler.Settings ss = new Spooler.Settings();
        ss.directory = dir;
        ss.maxBytes = 4L * SEG;
        ss.segmentBytes = SEG;
        Spooler.Downstream always = new Spooler.Downstream() {
            @Override
            public boolean ready() {
                return true;
            }

            @Override
            public String name() {
                return "test";
            }
        };
        try (Spooler a = new Spooler("a", always, (d, o, l, t, p, port) -> true, ss)) {
            assertThatThrownBy(() -> new Spooler("b", always, (d, o, l, t, p, port) -> true, ss))
                    .isInstanceOf(IOException.class).hasMessageContaining("in use by another collector");
        }
    }

    /**
     * A downstream that goes away for a while: while it is away every datagram goes to the spool, none reaches it
     * directly; when it is back the spool drains in order, and only then do datagrams go directly again. What the
     * downstream had taken but not delivered at close goes to a first queue and comes back first after a restart.
     */
    @Test
    void theSpoolerKeepsArrivalOrderThroughAnOutageAndARestart() throws Exception {
        Spooler.Settings ss = new Spooler.Settings();
        ss.directory = dir;
        ss.maxBytes = 64L << 20;
        ss.segmentBytes = SEG;
        AtomicBoolean up = new AtomicBoolean(true);
        List<Integer> got = java.util.Collections.synchronizedList(new ArrayList<>());
        Spooler.Downstream ds = new Spooler.Downstream() {
            @Override
            public boolean ready() {
                return up.get();
            }

            @Override
            public String name() {
                return "test downstream";
            }
        };
        Spooler.Target target = (d, o, l, t, p, port) -> {
            got.add(ByteBuffer.wrap(d, o, l).getInt());
            return true;
        };
        try (Spooler sp = new Spooler("t", ds, target, ss)) {
            for (int i = 0; i < 10_000; i++) {
                if (i == 2000) {
                    up.set(false);
                }
                if (i == 6000) {
                    up.set(true); // back: the drain thread empties the spool while datagrams keep coming
                }
                byte[] d = datagram(i);
                assertThat(sp.offer(d, 0, d.length, 0, peer(0), 0, target)).isTrue();
            }
            assertThat(sp.awaitDrained(10_000)).isTrue();
            assertThat(sp.spooled()).isGreaterThanOrEqualTo(4000);
            assertThat(sp.replayed()).isEqualTo(sp.spooled());
            assertThat(sp.lost()).isZero();
            List<Integer> want = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) {
                want.add(i);
            }
            assertThat(got).isEqualTo(want);

            // Away again, and stopped: what is spooled stays; what the downstream held undelivered goes first.
            up.set(false);
            for (int i = 10_000; i < 10_100; i++) {
                byte[] d = datagram(i);
                sp.offer(d, 0, d.length, 0, peer(0), 0, target);
            }
            sp.stopDrain();
            Spooler.Target back = sp.returnUndelivered();
            for (int i = 9_990; i < 10_000; i++) { // the downstream's last ten, never acknowledged
                byte[] d = datagram(i);
                back.deliver(d, 0, d.length, 0, peer(0), 0);
            }
        }
        got.clear();
        up.set(true);
        try (Spooler sp = new Spooler("t", ds, target, ss)) {
            assertThat(sp.awaitDrained(10_000)).isTrue();
            List<Integer> want = new ArrayList<>();
            for (int i = 9_990; i < 10_100; i++) {
                want.add(i);
            }
            assertThat(got).isEqualTo(want);
        }
    }

    private List<Path> segments() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".spool")).sorted().toList();
        }
    }
}
