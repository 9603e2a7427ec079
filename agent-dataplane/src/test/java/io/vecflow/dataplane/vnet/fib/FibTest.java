package io.vecflow.dataplane.vnet.fib;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The LPM tables against a brute-force longest match over random route sets, and the builder's errors. */
class FibTest {
    private static int brute4(List<Ip4Fib.Route> routes, int dst) {
        int best = -1, bestLen = -1;
        for (Ip4Fib.Route r : routes) {
            int mask = r.length() == 0 ? 0 : (int) (0xFFFFFFFFL << (32 - r.length()));
            if ((dst & mask) == r.prefix() && r.length() >= bestLen) {
                best = r.result();
                bestLen = r.length();
            }
        }
        return best;
    }

    @Test
    void ip4MatchesBruteForceOnRandomRoutes() {
        SplittableRandom rnd = new SplittableRandom(42);
        List<Ip4Fib.Route> routes = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            // cluster prefixes under 10/8 so that nesting (and all three trie levels) really happens
            int prefix = rnd.nextInt(4) == 0 ? rnd.nextInt() : 0x0A000000 | rnd.nextInt(1 << 24);
            routes.add(new Ip4Fib.Route(prefix, 1 + rnd.nextInt(32), i));
        }
        // unique prefixes, so "last wins" does not matter for the oracle
        List<Ip4Fib.Route> uniq = new ArrayList<>();
        java.util.Set<Long> seen = new java.util.HashSet<>();
        for (Ip4Fib.Route r : routes) {
            if (seen.add(((long) r.prefix() << 8) | r.length())) {
                uniq.add(r);
            }
        }
        Ip4Fib fib = new Ip4Fib(uniq);
        int hits = 0;
        for (int i = 0; i < 200_000; i++) {
            int dst = rnd.nextInt(3) == 0 ? rnd.nextInt() : 0x0A000000 | rnd.nextInt(1 << 24);
            int want = brute4(uniq, dst);
            assertThat(fib.lookup(dst)).as("dst %08x", dst).isEqualTo(want);
            hits += want >= 0 ? 1 : 0;
        }
        assertThat(hits).as("the sample exercises matches, not only misses").isGreaterThan(100_000);
        // Every route's own first and last address resolve to it or to a longer match inside it.
        for (Ip4Fib.Route r : uniq) {
            assertThat(fib.lookup(r.prefix())).isEqualTo(brute4(uniq, r.prefix()));
        }
    }

    @Test
    void ip4DefaultRouteAndHostRoutes() {
        Ip4Fib fib = new Ip4Fib(List.of(new Ip4Fib.Route(0, 0, 7), new Ip4Fib.Route(0xC0A80101, 32, 1),
                new Ip4Fib.Route(0xC0A80100, 24, 2)));
        assertThat(fib.lookup(0x08080808)).isEqualTo(7);
        assertThat(fib.lookup(0xC0A80101)).isEqualTo(1);
        assertThat(fib.lookup(0xC0A80102)).isEqualTo(2);
        assertThat(new Ip4Fib(List.of()).lookup(0x01020304)).isEqualTo(-1);
    }

    @Test
    void ip6MatchesBruteForceOnRandomRoutes() {
        SplittableRandom rnd = new SplittableRandom(7);
        List<Ip6Fib.Route> routes = new ArrayList<>();
        int[] lens = {0, 16, 32, 48, 56, 64, 96, 127, 128};
        for (int i = 0; i < 1000; i++) {
            long hi = 0x20010db800000000L | (rnd.nextLong() & 0xFFFFFFFFL);
            routes.add(new Ip6Fib.Route(hi, rnd.nextLong(), lens[rnd.nextInt(lens.length)], i));
        }
        List<Ip6Fib.Route> uniq = new ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (Ip6Fib.Route r : routes) {
            if (seen.add(r.hi() + "/" + r.lo() + "/" + r.length())) {
                uniq.add(r);
            }
        }
        Ip6Fib fib = new Ip6Fib(uniq);
        for (int i = 0; i < 50_000; i++) {
            Ip6Fib.Route base = uniq.get(rnd.nextInt(uniq.size()));
            long hi = rnd.nextInt(2) == 0 ? base.hi() | (rnd.nextLong() & ~Ip6Fib.maskHi(base.length()))
                    : rnd.nextLong();
            long lo = base.lo() | (rnd.nextLong() & ~Ip6Fib.maskLo(base.length()));
            int want = -1, wantLen = -1;
            for (Ip6Fib.Route r : uniq) {
                if ((hi & Ip6Fib.maskHi(r.length())) == r.hi() && (lo & Ip6Fib.maskLo(r.length())) == r.lo()
                        && r.length() > wantLen) {
                    want = r.result();
                    wantLen = r.length();
                }
            }
            assertThat(fib.lookup(hi, lo)).isEqualTo(want);
        }
    }

    @Test
    void builderResolvesNextHopsAndNamesErrors() {
        Forwarding f = new Forwarding.Builder()
                .neighbour("10.0.0.2", "02:00:00:00:00:02")
                .neighbour("2001:db8::2", "02:00:00:00:00:06")
                .route("192.168.0.0/16", "10.0.0.2", 2)
                .route("10.0.0.0/24", null, 2)
                .route("2001:db8:1::/48", "2001:db8::2", 3)
                .build();
        int adj = f.fib4().lookup(0xC0A80505);
        assertThat(f.adjacencyKind(adj)).isEqualTo(Forwarding.REWRITE);
        assertThat(f.adjacencyIfIndex(adj)).isEqualTo(2);
        assertThat(f.adjacencyMac(adj)).isEqualTo(0x020000000002L);
        int glean = f.fib4().lookup(0x0A000002);
        assertThat(f.adjacencyKind(glean)).isEqualTo(Forwarding.GLEAN);
        assertThat(f.neighbour4(0x0A000002)).isEqualTo(0x020000000002L);
        assertThat(f.neighbour4(0x0A000003)).isEqualTo(-1);
        assertThat(f.adjacencyMac(f.fib6().lookup(0x20010db800010000L, 5))).isEqualTo(0x020000000006L);
        assertThatThrownBy(() -> new Forwarding.Builder().route("10.1.0.0/16", "10.0.0.9", 1))
                .hasMessageContaining("next hop 10.0.0.9 is not a configured neighbour");
        assertThatThrownBy(() -> new Forwarding.Builder().route("10.1.0.0", null, 1)).hasMessageContaining("/length");
        assertThatThrownBy(() -> new Forwarding.Builder().route("10.1.0.0/33", null, 1))
                .hasMessageContaining("0..32");
        assertThatThrownBy(() -> new Forwarding.Builder().neighbour("10.0.0.1", "02:00:00:00:00"))
                .hasMessageContaining("bad MAC");
        assertThatThrownBy(() -> new Forwarding.Builder().neighbour("host.example", "02:00:00:00:00:01"))
                .hasMessageContaining("bad IP address 'host.example'");
    }
}
