package io.vecflow.dataplane.plugins.lb.maglev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.dataplane.ThreadAllocation;
import io.vecflow.dataplane.plugins.lb.maglev.MaglevTable.Endpoint;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link ConnectionTable}: Maglev §3.3 rules, timeouts, "table full", backend removal, allocation. */
class ConnectionTableTest {
    private static final long S = 1_000_000_000L;
    private static final long T0 = 5_000 * S; // arbitrary clock origin
    private static final long SEED = 0x5EED;

    private static MaglevTable ring(int backends) {
        MaglevTable t = new MaglevTable();
        List<Endpoint> l = new ArrayList<>();
        for (int i = 0; i < backends; i++) {
            l.add(new Endpoint(i, 1, 1000 + i));
        }
        t.rebuild(l);
        return t;
    }

    private static List<Endpoint> endpoints(int... ids) {
        List<Endpoint> l = new ArrayList<>();
        for (int i : ids) {
            l.add(new Endpoint(i, 1, 1000 + i));
        }
        return l;
    }

    private static FlowKey tcp(int i) {
        return new FlowKey().setIpv4(0x0A000000 + i, 0xCB00710A, FlowKey.PROTO_TCP, 1024 + (i & 0x7FFF), 443);
    }

    private static int select(ConnectionTable t, FlowKey k, long now, MaglevTable ring, int[] gen) {
        return t.select(k, FlowHash.hash(SEED, k), now, ring, gen);
    }

    @Test
    void newFlowIsInsertedThenHitAndStaysWhenTheMaglevTableChanges() {
        ConnectionTable t = new ConnectionTable(1 << 16);
        MaglevTable ring = ring(10);
        int[] gen = new int[11]; // ids 0..10, generation 0
        int n = 10_000;
        int[] first = new int[n];
        for (int i = 0; i < n; i++) {
            FlowKey k = tcp(i);
            first[i] = select(t, k, T0, ring, gen);
            assertThat(first[i]).isEqualTo(ring.lookup(FlowHash.hash(SEED, k)));
        }
        assertThat(t.counter(ConnectionTable.INSERTS)).isEqualTo(n);
        assertThat(t.counter(ConnectionTable.FULL)).isZero();
        // add an 11th backend: the ring moves ~1/11 of slots, but tracked flows stay
        ring.rebuild(endpoints(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
        int ringMoved = 0;
        for (int i = 0; i < n; i++) {
            FlowKey k = tcp(i);
            if (ring.lookup(FlowHash.hash(SEED, k)) != first[i]) {
                ringMoved++;
            }
            assertThat(select(t, k, T0 + S, ring, gen)).as("flow %d", i).isEqualTo(first[i]);
        }
        assertThat(ringMoved).as("flows whose Maglev choice changed").isBetween(n / 11 - 300, n / 11 + 300);
        assertThat(t.counter(ConnectionTable.HITS)).isEqualTo(n);
        assertThat(t.counter(ConnectionTable.LOOKUPS)).isEqualTo(2L * n);
        assertThat(t.liveEntries(T0 + S)).isEqualTo(n);
    }

    @Test
    void removedBackendsFlowsAndOnlyThoseAreReselected() {
        ConnectionTable t = new ConnectionTable(1 << 16);
        MaglevTable ring = ring(10);
        int[] gen = new int[10];
        int n = 10_000;
        int[] first = new int[n];
        for (int i = 0; i < n; i++) {
            first[i] = select(t, tcp(i), T0, ring, gen);
        }
        int onThree = (int) Arrays.stream(first).filter(b -> b == 3).count();
        assertThat(onThree).isBetween(n / 10 - 300, n / 10 + 300);
        gen[3] = -1; // unhealthy
        ring.rebuild(endpoints(0, 1, 2, 4, 5, 6, 7, 8, 9));
        int[] second = new int[n];
        for (int i = 0; i < n; i++) {
            FlowKey k = tcp(i);
            int b = select(t, k, T0 + S, ring, gen);
            second[i] = b;
            if (first[i] == 3) {
                assertThat(b).isNotEqualTo(3).isEqualTo(ring.lookup(FlowHash.hash(SEED, k)));
            } else {
                assertThat(b).as("flow %d keeps its backend", i).isEqualTo(first[i]);
            }
        }
        assertThat(t.counter(ConnectionTable.RESELECTED)).isEqualTo(onThree);
        // backend 3 comes back as a new generation: moved flows stay where they went
        gen[3] = 1;
        ring.rebuild(endpoints(0, 1, 2, 3, 4, 5, 6, 7, 8, 9));
        for (int i = 0; i < n; i++) {
            assertThat(select(t, tcp(i), T0 + 2 * S, ring, gen)).as("flow %d", i).isEqualTo(second[i]);
        }
        assertThat(t.counter(ConnectionTable.RESELECTED)).isEqualTo(onThree);
    }

    @Test
    void idleTimeoutsAreFortySecondsForTcpAndThirtyForUdp() {
        ConnectionTable t = new ConnectionTable(64);
        MaglevTable ring = ring(3);
        int[] gen = new int[3];
        FlowKey tcp = tcp(1);
        FlowKey udp = new FlowKey().setIpv4(0x0A000009, 0xCB00710A, FlowKey.PROTO_UDP, 5000, 53);
        int bt = select(t, tcp, T0, ring, gen);
        int bu = select(t, udp, T0, ring, gen);
        assertThat(t.counter(ConnectionTable.INSERTS)).isEqualTo(2);
        // 1 ns before the timeout: still tracked, and the idle timer restarts
        assertThat(t.lookup(udp, FlowHash.hash(SEED, udp), T0 + 30 * S - 1)).isEqualTo(bu);
        assertThat(t.lookup(tcp, FlowHash.hash(SEED, tcp), T0 + 40 * S - 1)).isEqualTo(bt);
        assertThat(t.counter(ConnectionTable.HITS)).isEqualTo(2);
        // exactly the timeout after the last packet: expired
        assertThat(t.lookup(udp, FlowHash.hash(SEED, udp), T0 + 60 * S - 1)).isEqualTo(ConnectionTable.NONE);
        assertThat(t.liveEntries(T0 + 80 * S - 2)).isEqualTo(1); // the TCP one
        assertThat(t.lookup(tcp, FlowHash.hash(SEED, tcp), T0 + 80 * S - 1)).isEqualTo(ConnectionTable.NONE);
        assertThat(t.counter(ConnectionTable.EXPIRED)).isEqualTo(2);
        // an expired flow is new again: inserted afresh
        select(t, tcp, T0 + 100 * S, ring, gen);
        assertThat(t.counter(ConnectionTable.INSERTS)).isEqualTo(3);
    }

    @Test
    void configurableTimeoutsAndExpiredEntryFoundBySelectIsReinserted() {
        ConnectionTable t = new ConnectionTable(64, 5 * S, 2 * S, false);
        MaglevTable ring = ring(3);
        int[] gen = new int[3];
        FlowKey k = tcp(7);
        select(t, k, T0, ring, gen);
        select(t, k, T0 + 5 * S, ring, gen); // idle exactly 5 s: expired, re-selected and re-inserted
        assertThat(t.counter(ConnectionTable.EXPIRED)).isEqualTo(1);
        assertThat(t.counter(ConnectionTable.INSERTS)).isEqualTo(2);
        assertThat(t.counter(ConnectionTable.HITS)).isZero();
        assertThat(t.liveEntries(T0 + 5 * S)).isEqualTo(1);
    }

    @Test
    void whenFullTheFlowIsSelectedPerPacketWithoutInsertingAndCounted() {
        ConnectionTable t = new ConnectionTable(ConnectionTable.MIN_CAPACITY); // 2 buckets × 4: every flow fits in 8
        MaglevTable ring = ring(5);
        int[] gen = new int[5];
        for (int i = 0; i < 8; i++) {
            select(t, tcp(i), T0 + i * S, ring, gen);
        }
        assertThat(t.counter(ConnectionTable.INSERTS)).isEqualTo(8);
        FlowKey ninth = tcp(8);
        long h = FlowHash.hash(SEED, ninth);
        for (int p = 0; p < 3; p++) {
            assertThat(t.select(ninth, h, T0 + 10 * S, ring, gen)).isEqualTo(ring.lookup(h));
        }
        assertThat(t.counter(ConnectionTable.FULL)).isEqualTo(3);
        assertThat(t.counter(ConnectionTable.INSERTS)).isEqualTo(8);
        assertThat(t.lookup(ninth, h, T0 + 10 * S)).isEqualTo(ConnectionTable.NONE);
        // entries are never evicted while live; flow 0 (last seen at T0) expires at T0 + 40 s and frees a slot
        t.select(ninth, h, T0 + 40 * S, ring, gen);
        assertThat(t.counter(ConnectionTable.FULL)).isEqualTo(3);
        assertThat(t.counter(ConnectionTable.EXPIRED)).isEqualTo(1);
        long later = T0 + 40 * S + S / 2; // flows 1..7 (last seen at T0 + 1..7 s) are still live
        assertThat(t.lookup(ninth, h, later)).isEqualTo(ring.lookup(h));
        assertThat(t.insert(tcp(100), FlowHash.hash(SEED, tcp(100)), later, 1, 0)).isFalse();
        assertThat(t.counter(ConnectionTable.FULL)).isEqualTo(4);
    }

    @Test
    void finOrRstRemovesTheEntryOnlyWithTheOption() {
        MaglevTable ring = ring(4);
        int[] gen = new int[4];
        ConnectionTable keep = new ConnectionTable(64);
        ConnectionTable drop = new ConnectionTable(64, ConnectionTable.DEFAULT_TCP_IDLE_NANOS,
                ConnectionTable.DEFAULT_UDP_IDLE_NANOS, true);
        for (ConnectionTable t : List.of(keep, drop)) {
            FlowKey k = tcp(3);
            k.tcpFlags = FlowKey.TCP_SYN;
            int b = select(t, k, T0, ring, gen);
            k.tcpFlags = FlowKey.TCP_FIN | FlowKey.TCP_ACK;
            assertThat(select(t, k, T0 + S, ring, gen)).isEqualTo(b);
            FlowKey rst = tcp(4);
            rst.tcpFlags = FlowKey.TCP_RST;
            select(t, rst, T0 + S, ring, gen); // RST of an untracked flow
        }
        assertThat(keep.liveEntries(T0 + S)).isEqualTo(2);
        assertThat(keep.counter(ConnectionTable.REMOVED)).isZero();
        assertThat(drop.liveEntries(T0 + S)).isZero();
        assertThat(drop.counter(ConnectionTable.REMOVED)).isEqualTo(1);
        assertThat(drop.counter(ConnectionTable.INSERTS)).isEqualTo(1);
    }

    @Test
    void ipv6AndIpv4FlowsAreDistinctKeysAndVisibleToTheControlPlane() {
        ConnectionTable t = new ConnectionTable(64);
        FlowKey a = new FlowKey().setIpv6(0x20010db800000000L, 1, 0x20010db8ffff0000L, 0x80, 6, 40000, 443);
        FlowKey b = new FlowKey().setIpv6(0x20010db800000000L, 2, 0x20010db8ffff0000L, 0x80, 6, 40000, 443);
        FlowKey c = new FlowKey().setIpv4(0x0A000001, 0x0A000002, 17, 40000, 443);
        assertThat(t.insert(a, FlowHash.hash(SEED, a), T0, 7, 3)).isTrue();
        assertThat(t.insert(b, FlowHash.hash(SEED, b), T0, 8, 3)).isTrue();
        assertThat(t.insert(c, FlowHash.hash(SEED, c), T0, 9, 3)).isTrue();
        assertThat(t.lookup(a, FlowHash.hash(SEED, a), T0 + S)).isEqualTo(7);
        assertThat(t.lookup(b, FlowHash.hash(SEED, b), T0 + S)).isEqualTo(8);
        assertThat(t.lookup(c, FlowHash.hash(SEED, c), T0 + S)).isEqualTo(9);
        List<String> seen = new ArrayList<>();
        assertThat(t.forEachLive(T0 + S, 10, (k, backend, g, left) -> seen.add(k + " -> " + backend + "/" + g
                + " " + left / S))).isEqualTo(3);
        assertThat(seen).containsExactlyInAnyOrder(
                "FlowKey[v6 2001:db8:0:0:0:0:0:1:40000 -> 2001:db8:ffff:0:0:0:0:80:443 proto 6] -> 7/3 40",
                "FlowKey[v6 2001:db8:0:0:0:0:0:2:40000 -> 2001:db8:ffff:0:0:0:0:80:443 proto 6] -> 8/3 40",
                "FlowKey[v4 10.0.0.1:40000 -> 10.0.0.2:443 proto 17] -> 9/3 30");
        assertThat(t.remove(b, FlowHash.hash(SEED, b))).isTrue();
        assertThat(t.remove(b, FlowHash.hash(SEED, b))).isFalse();
        assertThat(t.lookup(b, FlowHash.hash(SEED, b), T0 + S)).isEqualTo(ConnectionTable.NONE);
    }

    @Test
    void twoBucketChoicesKeepTableFullRareAtHalfLoad() {
        // the layout claim of the class comment, measured: 2^20 slots, 2^19 random flows
        int cap = 1 << 20;
        ConnectionTable t = new ConnectionTable(cap);
        int[] gen = new int[1];
        MaglevTable ring = ring(1);
        SplittableRandom r = new SplittableRandom(42);
        FlowKey k = new FlowKey();
        int[] oneChoice = new int[cap / ConnectionTable.WAYS];
        int oneChoiceFull = 0;
        int n = cap / 2;
        for (int i = 0; i < n; i++) {
            k.setIpv4(r.nextInt(), 0xCB00710A, 6, r.nextInt(65536), 443);
            long h = FlowHash.hash(SEED, k);
            t.select(k, h, T0, ring, gen);
            int b = (int) h & (oneChoice.length - 1);
            if (oneChoice[b] == ConnectionTable.WAYS) {
                oneChoiceFull++;
            } else {
                oneChoice[b]++;
            }
        }
        double two = 100.0 * t.counter(ConnectionTable.FULL) / n, one = 100.0 * oneChoiceFull / n;
        System.out.printf("table full at 50%% load: one 4-way bucket %.3f %%, two choices %.5f %%%n", one, two);
        assertThat(one).isBetween(2.0, 5.0);
        assertThat(two).isLessThan(0.01);
    }

    @Test
    void rejectsBadArguments() {
        assertThatThrownBy(() -> new ConnectionTable(1000)).hasMessageContaining("power of two")
                .hasMessageContaining("1000");
        assertThatThrownBy(() -> new ConnectionTable(4)).hasMessageContaining("got 4");
        assertThatThrownBy(() -> new ConnectionTable(64, 0, 1, false)).hasMessageContaining("tcp 0");
        assertThatThrownBy(() -> new ConnectionTable(64).counter(7)).hasMessageContaining("got 7");
        assertThatThrownBy(() -> new ConnectionTable(64).insert(tcp(1), 1, T0, -1, 0))
                .hasMessageContaining("got -1");
    }

    @Test
    void largeTablesAskForHugePagesAndWorkTheSame() throws Exception {
        // 2^16 slots = 4 MiB of records: mapped with MADV_HUGEPAGE (this kernel has THP: /sys/kernel/mm/...)
        java.nio.file.Path thp = java.nio.file.Path.of("/sys/kernel/mm/transparent_hugepage/enabled");
        assertThat(thp).as("this test expects a kernel with transparent huge pages").exists();
        ConnectionTable big = new ConnectionTable(1 << 16);
        assertThat(big.hugePages()).isTrue();
        assertThat(new ConnectionTable(64).hugePages()).as("below 2 MiB: plain memory").isFalse();
        MaglevTable ring = ring(7);
        int[] gen = new int[7];
        int n = 20_000;
        int[] first = new int[n];
        for (int i = 0; i < n; i++) {
            first[i] = select(big, tcp(i), T0, ring, gen);
        }
        for (int i = 0; i < n; i++) {
            FlowKey k = tcp(i);
            assertThat(big.lookup(k, FlowHash.hash(SEED, k), T0 + S)).as("flow %d", i).isEqualTo(first[i]);
        }
        assertThat(big.counter(ConnectionTable.INSERTS)).isEqualTo(n);
        assertThat(big.liveEntries(T0 + S)).isEqualTo(n);
        assertThat(big.liveEntries(T0 + 41 * S)).isZero();
    }

    @Test
    void touchChangesNothing() {
        // touch only reads, and a slot hint only spares a search: counters, live entries and every answer are those
        // of a table never touched and asked without hints — also when the hint is stale (another flow's slot, or a
        // slot reused since)
        ConnectionTable touched = new ConnectionTable(64), plain = new ConnectionTable(64);
        MaglevTable ring = ring(5);
        int[] gen = new int[5];
        long x = 0;
        int hinted = 0, previous = ConnectionTable.NONE;
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 40; i++) { // 40 flows in 64 slots: hits, inserts and some "full" once it fills
                FlowKey k = tcp(i * 7);
                long h = FlowHash.hash(SEED, k);
                long now = T0 + round * 25L * S; // round 2 finds round 0's entries expired
                x += touched.touchTags(h);
                x += touched.touch(h);
                int own = touched.touchedSlot();
                hinted += own >= 0 ? 1 : 0;
                int hint = i % 3 == 2 ? previous : own; // every third packet: the previous flow's slot
                previous = own;
                assertThat(touched.select(k, h, hint, now, ring, gen)).isEqualTo(plain.select(k, h, now, ring, gen));
                assertThat(touched.lastOutcome()).isEqualTo(plain.lastOutcome());
            }
        }
        assertThat(hinted).as("packets whose slot touch found").isGreaterThan(40);
        for (int c = ConnectionTable.LOOKUPS; c <= ConnectionTable.REMOVED; c++) {
            assertThat(touched.counter(c)).as("counter %d", c).isEqualTo(plain.counter(c));
        }
        assertThat(touched.counter(ConnectionTable.HITS)).isPositive();
        assertThat(touched.counter(ConnectionTable.INSERTS)).isGreaterThanOrEqualTo(40);
        assertThat(touched.liveEntries(T0 + 50 * S)).isEqualTo(plain.liveEntries(T0 + 50 * S)).isPositive();
        assertThat(x).isNotZero();
    }

    @Test
    void selectAllocatesNothingForHitsMissesExpiryAndFull() {
        // 30 µs timeouts, keys revisited every ~25 µs, a 40 µs jump every 32768 packets: hits, expiry, full, FIN
        ConnectionTable t = new ConnectionTable(1 << 12, 30_000, 30_000, true);
        MaglevTable ring = ring(8);
        int[] gen = new int[8];
        FlowKey[] keys = new FlowKey[8192];
        Random r = new Random(1);
        for (int i = 0; i < keys.length; i++) {
            keys[i] = new FlowKey().setIpv4(r.nextInt(), 0xCB00710A, 6, r.nextInt(65536), 443);
        }
        long[] now = {T0};
        long[] sink = {0};
        Runnable round = () -> {
            for (int i = 0; i < 1_000_000; i++) {
                FlowKey k = keys[i & (keys.length - 1)];
                k.tcpFlags = i % 4099 == 0 ? FlowKey.TCP_FIN : 0;
                now[0] += (i & 32767) == 0 ? 40_000 : 3;
                sink[0] += t.select(k, FlowHash.hash(SEED, k), now[0], ring, gen);
            }
        };
        long best = ThreadAllocation.leastPerRound(round, 5, 5);
        assertThat(best).as("bytes allocated for 1M selects (the probe itself costs < 1 KiB)").isLessThan(1024);
        assertThat(t.counter(ConnectionTable.HITS)).isPositive();
        assertThat(t.counter(ConnectionTable.INSERTS)).isPositive();
        assertThat(t.counter(ConnectionTable.EXPIRED)).isPositive();
        assertThat(t.counter(ConnectionTable.FULL)).isPositive();
        assertThat(t.counter(ConnectionTable.REMOVED)).isPositive();
        assertThat(sink[0]).isPositive();
    }

}
