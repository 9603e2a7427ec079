package io.vecflow.collector.inlet;

import static io.vecflow.collector.inlet.Admission.ADMIT;
import static io.vecflow.collector.inlet.Admission.REFUSED_PREFIX;
import static io.vecflow.collector.inlet.Admission.REFUSED_RATE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.sflow.DatagramHeader;
import io.vecflow.sflow.SflowFormats;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Admission control: allowlist prefixes, per-agent token buckets, the agent table bound, concurrency. */
class AdmissionTest {
    private static final long T0 = 1_750_000_000_000_000_000L; // a receive time, ns since the epoch
    private static final long SECOND = 1_000_000_000L;

    /** 16-byte IPv4-mapped address of a dotted quad. */
    private static byte[] v4(int a, int b, int c, int d) {
        byte[] x = new byte[16];
        x[10] = (byte) 0xFF;
        x[11] = (byte) 0xFF;
        x[12] = (byte) a;
        x[13] = (byte) b;
        x[14] = (byte) c;
        x[15] = (byte) d;
        return x;
    }

    /** 16 bytes from 32 hex digits. */
    private static byte[] v6(String hex32) {
        return HexFormat.of().parseHex(hex32);
    }

    private static Admission allow(String... prefixes) {
        return new Admission(List.of(prefixes), 0);
    }

    @Test
    void ipv4Ipv6AndMappedPrefixes() {
        Admission a = allow("10.0.0.0/8", "192.0.2.1", "2001:db8::/32", "::ffff:198.51.100.0/120", " 203.0.113.0/24 ");
        assertThat(a.prefixes()).containsExactly("10.0.0.0/8", "192.0.2.1/32", "2001:db8::/32", "198.51.100.0/24",
                "203.0.113.0/24");
        assertThat(a.acceptsAll()).isFalse();
        assertThat(a.admit(v4(10, 0, 0, 0), T0)).isEqualTo(ADMIT);
        assertThat(a.admit(v4(10, 255, 255, 255), T0)).isEqualTo(ADMIT);
        assertThat(a.admit(v4(9, 255, 255, 255), T0)).isEqualTo(REFUSED_PREFIX);
        assertThat(a.admit(v4(11, 0, 0, 0), T0)).isEqualTo(REFUSED_PREFIX);
        assertThat(a.admit(v4(192, 0, 2, 1), T0)).isEqualTo(ADMIT);
        assertThat(a.admit(v4(192, 0, 2, 2), T0)).isEqualTo(REFUSED_PREFIX);
        assertThat(a.admit(v4(198, 51, 100, 77), T0)).as("an IPv4 prefix written IPv4-mapped").isEqualTo(ADMIT);
        assertThat(a.admit(v4(198, 51, 101, 0), T0)).isEqualTo(REFUSED_PREFIX);
        assertThat(a.admit(v4(203, 0, 113, 255), T0)).isEqualTo(ADMIT);
        assertThat(a.admit(v6("20010db8ffffffffffffffffffffffff"), T0)).isEqualTo(ADMIT);
        assertThat(a.admit(v6("20010db9000000000000000000000000"), T0)).isEqualTo(REFUSED_PREFIX);
        assertThat(a.admit(v6("20010db7ffffffffffffffffffffffff"), T0)).isEqualTo(REFUSED_PREFIX);
        // 10.0.0.1 as an IPv4-compatible (not mapped) IPv6 address is another address: not in 10.0.0.0/8.
        assertThat(a.admit(v6("0000000000000000000000000a000001"), T0)).isEqualTo(REFUSED_PREFIX);
        assertThat(a.admitted.sum()).isEqualTo(6);
        assertThat(a.refusedPrefix.sum()).isEqualTo(7);
        assertThat(a.refusedRate.sum()).isZero();
        assertThat(a.count(ADMIT)).isEqualTo(6);
        assertThat(a.count(REFUSED_PREFIX)).isEqualTo(7);

        // The decoded header's agent address (IPv4 4 bytes, IPv6 16) gives the same answers.
        DatagramHeader h = new DatagramHeader();
        h.agentAddressType = SflowFormats.ADDRESS_IPV4;
        h.agentAddress[0] = 10;
        h.agentAddress[3] = 9;
        assertThat(a.admit(h, T0)).isEqualTo(ADMIT);
        h.agentAddress[0] = 11;
        assertThat(a.admit(h, T0)).isEqualTo(REFUSED_PREFIX);
        h.agentAddressType = SflowFormats.ADDRESS_IPV6;
        System.arraycopy(v6("20010db8000000000000000000000001"), 0, h.agentAddress, 0, 16);
        assertThat(a.admit(h, T0)).isEqualTo(ADMIT);
        h.agentAddress[3] = (byte) 0xb9;
        assertThat(a.admit(h, T0)).isEqualTo(REFUSED_PREFIX);
    }

    @Test
    void prefixLengthBoundaries() {
        Admission all4 = allow("0.0.0.0/0");
        assertThat(all4.admit(v4(0, 0, 0, 0), T0)).isEqualTo(ADMIT);
        assertThat(all4.admit(v4(255, 255, 255, 255), T0)).isEqualTo(ADMIT);
        assertThat(all4.admit(v6("20010db8000000000000000000000001"), T0)).as("IPv4 /0 is every IPv4 agent only")
                .isEqualTo(REFUSED_PREFIX);
        assertThat(all4.admit(v6("00000000000000000000fffe01020304"), T0)).isEqualTo(REFUSED_PREFIX);
        Admission mapped96 = allow("::ffff:0.0.0.0/96");
        assertThat(mapped96.prefixes()).containsExactly("0.0.0.0/0");
        assertThat(mapped96.admit(v4(1, 2, 3, 4), T0)).isEqualTo(ADMIT);

        Admission all6 = allow("::/0");
        assertThat(all6.admit(v4(1, 2, 3, 4), T0)).as("IPv6 /0 includes the IPv4-mapped space").isEqualTo(ADMIT);
        assertThat(all6.admit(v6("ffffffffffffffffffffffffffffffff"), T0)).isEqualTo(ADMIT);
        assertThat(all6.admit(new byte[16], T0)).isEqualTo(ADMIT);

        Admission host = allow("192.0.2.7/32", "2001:db8::7/128");
        assertThat(host.admit(v4(192, 0, 2, 7), T0)).isEqualTo(ADMIT);
        assertThat(host.admit(v4(192, 0, 2, 6), T0)).isEqualTo(REFUSED_PREFIX);
        assertThat(host.admit(v4(192, 0, 2, 8), T0)).isEqualTo(REFUSED_PREFIX);
        assertThat(host.admit(v6("20010db8000000000000000000000007"), T0)).isEqualTo(ADMIT);
        assertThat(host.admit(v6("20010db8000000000000000000000006"), T0)).isEqualTo(REFUSED_PREFIX);
        assertThat(host.admit(v6("20010db8000000000000000000000008"), T0)).isEqualTo(REFUSED_PREFIX);

        Admission pair = allow("10.0.0.0/31", "2001:db8::/127");
        assertThat(pair.admit(v4(10, 0, 0, 0), T0)).isEqualTo(ADMIT);
        assertThat(pair.admit(v4(10, 0, 0, 1), T0)).isEqualTo(ADMIT);
        assertThat(pair.admit(v4(10, 0, 0, 2), T0)).isEqualTo(REFUSED_PREFIX);
        assertThat(pair.admit(v4(9, 255, 255, 255), T0)).isEqualTo(REFUSED_PREFIX);
        assertThat(pair.admit(v6("20010db8000000000000000000000001"), T0)).isEqualTo(ADMIT);
        assertThat(pair.admit(v6("20010db8000000000000000000000002"), T0)).isEqualTo(REFUSED_PREFIX);

        // Lengths at and around the 64-bit boundary of the two halves.
        Admission halves = allow("2001:db8:0:1::/64", "2001:db8:0:2:8000::/65", "128.0.0.0/1");
        assertThat(halves.admit(v6("20010db8000000010000000000000000"), T0)).isEqualTo(ADMIT);
        assertThat(halves.admit(v6("20010db800000001ffffffffffffffff"), T0)).isEqualTo(ADMIT);
        assertThat(halves.admit(v6("20010db8000000000000000000000000"), T0)).isEqualTo(REFUSED_PREFIX);
        assertThat(halves.admit(v6("20010db8000000028000000000000000"), T0)).isEqualTo(ADMIT);
        assertThat(halves.admit(v6("20010db800000002ffffffffffffffff"), T0)).isEqualTo(ADMIT);
        assertThat(halves.admit(v6("20010db80000000207ffffffffffffff"), T0)).isEqualTo(REFUSED_PREFIX);
        assertThat(halves.admit(v6("20010db80000000300000000000000ff"), T0)).isEqualTo(REFUSED_PREFIX);
        assertThat(halves.admit(v4(128, 0, 0, 0), T0)).isEqualTo(ADMIT);
        assertThat(halves.admit(v4(255, 255, 255, 255), T0)).isEqualTo(ADMIT);
        assertThat(halves.admit(v4(127, 255, 255, 255), T0)).isEqualTo(REFUSED_PREFIX);
    }

    @Test
    void prefixesAcrossTheHalvesAndHostBits() {
        // 2001:db8:0:3::/63 has its low bit of the fourth group set beyond /63: rejected, with both readings.
        assertThatThrownBy(() -> allow("2001:db8:0:3::/63")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("agent allowlist entry 1 \"2001:db8:0:3::/63\": host bits set beyond /63 (did you mean "
                        + "2001:db8:0:2::/63, or the single address 2001:db8:0:3::/128?)");
        Admission a = allow("2001:db8:0:2::/63", "2001:db8:0:4:8000::/65");
        assertThat(a.admit(v6("20010db8000000020000000000000000"), T0)).isEqualTo(ADMIT);
        assertThat(a.admit(v6("20010db800000003ffffffffffffffff"), T0)).isEqualTo(ADMIT);
        assertThat(a.admit(v6("20010db8000000040000000000000000"), T0)).isEqualTo(REFUSED_PREFIX);
        assertThat(a.admit(v6("20010db80000000480000000000000ff"), T0)).isEqualTo(ADMIT);
        assertThat(a.admit(v6("20010db80000000470000000000000ff"), T0)).isEqualTo(REFUSED_PREFIX);
        assertThat(a.admit(v6("20010db8000000010000000000000000"), T0)).isEqualTo(REFUSED_PREFIX);
    }

    @Test
    void badEntriesNameTheEntryAndWhy() {
        String[][] cases = {
            {"10.0.0.0/33", "prefix length 33 out of range 0..32 for an IPv4 address"},
            {"2001:db8::/129", "prefix length 129 out of range 0..128 for an IPv6 address"},
            {"10.1.2.3/8", "host bits set beyond /8 (did you mean 10.0.0.0/8, or the single address 10.1.2.3/32?)"},
            {"2001:db8::1/32", "host bits set beyond /32 (did you mean 2001:db8::/32, or the single address "
                    + "2001:db8::1/128?)"},
            {"::ffff:10.1.0.0/104", "host bits set beyond /104 (did you mean ::ffff:10.0.0.0/104"},
            {"256.0.0.0", "bad IPv4 address \"256.0.0.0\""},
            {"010.0.0.1", "bad IPv4 address \"010.0.0.1\" (four decimal octets 0..255 without leading zeros"},
            {"1.2.3", "bad IPv4 address \"1.2.3\""},
            {"1.2.3.4.5", "bad IPv4 address"},
            {"localhost", "bad IPv4 address \"localhost\""},
            {"10.0.0.0/", "bad prefix length \"\" (a number 0..32 expected)"},
            {"10.0.0.0/-1", "bad prefix length \"-1\""},
            {"10.0.0.0/8/9", "bad prefix length \"8/9\""},
            {"10.0.0.0/1000", "bad prefix length \"1000\""},
            {"/8", "bad IPv4 address \"\""},
            {"fe80::1%eth0", "bad IPv6 address \"fe80::1%eth0\" (character '%'; zones and brackets are not allowed)"},
            {"[2001:db8::]/32", "bad IPv6 address \"[2001:db8::]\""},
            {"2001:db8:::1", "bad IPv6 address \"2001:db8:::1\""},
            {"1:2:3:4:5:6:7:8:9", "bad IPv6 address"},
            {"", "empty"},
            {"   ", "empty"},
        };
        for (String[] c : cases) {
            assertThatThrownBy(() -> new Admission(List.of("192.0.2.0/24", c[0]), 100))
                    .as(c[0]).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("agent allowlist entry 2 \"" + c[0] + "\": ")
                    .hasMessageContaining(c[1]);
        }
        assertThatThrownBy(() -> new Admission(List.of(), -1)).hasMessageContaining("got -1");
        assertThatThrownBy(() -> new Admission(List.of(), Admission.MAX_RATE + 1))
                .hasMessageContaining("agent rate limit must be 0 (unlimited) .. 1000000000 datagrams/s");
        assertThatThrownBy(() -> new Admission(List.of(), 10, 0, 100)).hasMessageContaining("burst must be 1..");
        assertThatThrownBy(() -> new Admission(List.of(), 10, 10, 0)).hasMessageContaining("maxAgents must be 1..");
        assertThat(new Admission(List.of(), 0, 0, 1).burst()).as("burst is ignored without a rate").isZero();
    }

    @Test
    void rateLimitExactOverSimulatedSeconds() {
        Admission a = new Admission(List.of(), 10, 10, Admission.DEFAULT_MAX_AGENTS);
        assertThat(a.ratePerSecond()).isEqualTo(10);
        assertThat(a.burst()).isEqualTo(10);
        byte[] x = v4(192, 0, 2, 1);
        int ok = 0;
        for (int i = 0; i < 25; i++) {
            ok += a.admit(x, T0) == ADMIT ? 1 : 0;
        }
        assertThat(ok).as("a full bucket at first sight: the burst").isEqualTo(10);
        // One datagram every 10 ms for 5 s: 0.1 datagram of refill per step, so exactly every 10th step passes.
        List<Integer> admittedSteps = new ArrayList<>();
        for (int k = 1; k <= 500; k++) {
            if (a.admit(x, T0 + k * 10_000_000L) == ADMIT) {
                admittedSteps.add(k);
            }
        }
        assertThat(admittedSteps).hasSize(50);
        for (int i = 0; i < 50; i++) {
            assertThat(admittedSteps.get(i)).isEqualTo(10 * (i + 1));
        }
        long t = T0 + 5 * SECOND;
        // The clock going back refills nothing and does not move the bucket's time back.
        assertThat(a.admit(x, t - 3 * SECOND)).isEqualTo(REFUSED_RATE);
        assertThat(a.admit(x, t + 99_999_999)).isEqualTo(REFUSED_RATE); // 0.99999999 datagram
        assertThat(a.admit(x, t + 100_000_000)).isEqualTo(ADMIT);
        // 100 s idle: the bucket holds the burst, no more.
        ok = 0;
        for (int i = 0; i < 30; i++) {
            ok += a.admit(x, t + 100 * SECOND) == ADMIT ? 1 : 0;
        }
        assertThat(ok).isEqualTo(10);
        assertThat(a.admitted.sum()).isEqualTo(10 + 50 + 1 + 10);
        assertThat(a.refusedRate.sum()).isEqualTo(15 + 450 + 2 + 20);
        assertThat(a.refusedPrefix.sum()).isZero();
        assertThat(a.topRefused(5)).containsExactly(new Admission.AgentRefusals(0, 0xFFFF_C000_0201L, REFUSED_RATE,
                15 + 450 + 2 + 20));

        // Another agent has its own bucket.
        byte[] y = v6("20010db8000000000000000000000001");
        ok = 0;
        for (int i = 0; i < 12; i++) {
            ok += a.admit(y, t + 100 * SECOND) == ADMIT ? 1 : 0;
        }
        assertThat(ok).isEqualTo(10);
        assertThat(a.trackedAgents()).isEqualTo(2);
    }

    @Test
    void rateThatDoesNotDivideASecondIsExactAndBurstDiffersFromRate() {
        Admission a = new Admission(List.of(), 3, 2, 16);
        byte[] x = v4(192, 0, 2, 1);
        assertThat(a.admit(x, 0)).isEqualTo(ADMIT);
        assertThat(a.admit(x, 0)).isEqualTo(ADMIT);
        assertThat(a.admit(x, 0)).isEqualTo(REFUSED_RATE);
        int ok = 0;
        for (int k = 1; k <= 10_000; k++) { // every 1 ms for 10 s
            ok += a.admit(x, k * 1_000_000L) == ADMIT ? 1 : 0;
        }
        assertThat(ok).as("3/s over 10 s, no rounding drift").isEqualTo(30);
        // With a burst of 1 the bucket cannot hold the fraction left over when a datagram arrives on the 1 ms grid
        // after the 333.33 ms a token takes (a token bucket caps at its burst): one passes every 334 ms.
        Admission c = new Admission(List.of(), 3, 1, 16);
        assertThat(c.admit(x, 0)).isEqualTo(ADMIT);
        ok = 0;
        for (int k = 1; k <= 10_000; k++) {
            ok += c.admit(x, k * 1_000_000L) == ADMIT ? 1 : 0;
        }
        assertThat(ok).isEqualTo(10_000 / 334);

        Admission b = new Admission(List.of(), 1000, 3, 16); // 1 per ms, burst 3
        ok = 0;
        for (int i = 0; i < 10; i++) {
            ok += b.admit(x, T0) == ADMIT ? 1 : 0;
        }
        assertThat(ok).isEqualTo(3);
        ok = 0;
        for (int k = 1; k <= 1000; k++) { // two datagrams every ms for 1 s: one passes each ms
            ok += b.admit(x, T0 + k * 1_000_000L) == ADMIT ? 1 : 0;
            ok += b.admit(x, T0 + k * 1_000_000L) == ADMIT ? 1 : 0;
        }
        assertThat(ok).isEqualTo(1000);
        assertThat(b.admitted.sum() + b.refusedRate.sum()).isEqualTo(2010);
    }

    @Test
    void allowlistAndRateTogether() {
        Admission a = new Admission(List.of("10.0.0.0/8"), 5);
        for (int i = 0; i < 8; i++) {
            a.admit(v4(10, 0, 0, 1), T0);
            a.admit(v4(11, 0, 0, 1), T0);
        }
        assertThat(a.admitted.sum()).isEqualTo(5);
        assertThat(a.refusedRate.sum()).isEqualTo(3);
        assertThat(a.refusedPrefix.sum()).isEqualTo(8);
        List<Admission.AgentRefusals> top = a.topRefused(10);
        assertThat(top).hasSize(2);
        assertThat(top.get(0).address()).isEqualTo("11.0.0.1");
        assertThat(top.get(0).reason()).isEqualTo(REFUSED_PREFIX);
        assertThat(top.get(0).refused()).isEqualTo(8);
        assertThat(top.get(1).address()).isEqualTo("10.0.0.1");
        assertThat(top.get(1).address16()).isEqualTo(v4(10, 0, 0, 1));
        assertThat(top.get(1).reason()).isEqualTo(REFUSED_RATE);
        assertThat(top.get(1).refused()).isEqualTo(3);
        assertThat(Admission.resultName(ADMIT)).isEqualTo("admitted");
        assertThat(Admission.resultName(REFUSED_PREFIX)).isEqualTo("prefix");
        assertThat(Admission.resultName(REFUSED_RATE)).isEqualTo("rate");
        assertThat(a).hasToString("Admission[10.0.0.0/8, 5/s per agent, burst 5]");
    }

    @Test
    void agentTableBoundPerKind() {
        int cap = 1000;
        Admission a = new Admission(List.of("10.0.0.0/8"), 1, 2, cap);
        for (int i = 0; i < cap; i++) { // cap allowed agents, 3 datagrams each: 2 pass (the burst), 1 over the rate
            for (int j = 0; j < 3; j++) {
                a.admit(v4(10, 0, i >> 8, i), T0);
            }
        }
        assertThat(a.trackedAgents()).isEqualTo(cap);
        assertThat(a.admitted.sum()).isEqualTo(2L * cap);
        assertThat(a.refusedRate.sum()).isEqualTo(cap);
        assertThat(a.untracked.sum()).isZero();
        // 1500 agents outside the allowlist: 1000 tracked (their own kind), 500 untracked; allowed agents unaffected.
        for (int i = 0; i < 1500; i++) {
            a.admit(v4(11, 0, i >> 8, i), T0);
        }
        assertThat(a.trackedAgents()).isEqualTo(2 * cap);
        assertThat(a.refusedPrefix.sum()).isEqualTo(1500);
        assertThat(a.untracked.sum()).isEqualTo(500);
        // 10 new allowed agents: untracked, sharing one overflow bucket (burst 2).
        int ok = 0;
        for (int i = 0; i < 10; i++) {
            ok += a.admit(v4(10, 1, 0, i), T0) == ADMIT ? 1 : 0;
        }
        assertThat(ok).isEqualTo(2);
        assertThat(a.untracked.sum()).isEqualTo(510);
        assertThat(a.refusedRate.sum()).isEqualTo(cap + 8);
        // Tracked agents keep their own buckets: one more token each after 1 s.
        ok = 0;
        for (int i = 0; i < cap; i++) {
            ok += a.admit(v4(10, 0, i >> 8, i), T0 + SECOND) == ADMIT ? 1 : 0;
        }
        assertThat(ok).isEqualTo(cap);
        assertThat(a.trackedAgents()).isEqualTo(2 * cap);

        // The ranking: a few agents with more refusals than the rest (which have 1 each).
        for (int i = 0; i < 50; i++) {
            a.admit(v4(11, 0, 0, 7), T0);
        }
        for (int i = 0; i < 40; i++) {
            a.admit(v4(10, 0, 0, 9), T0 + SECOND);
        }
        List<Admission.AgentRefusals> top = a.topRefused(3);
        assertThat(top).extracting(Admission.AgentRefusals::address).as("ties by address")
                .containsExactly("11.0.0.7", "10.0.0.9", "10.0.0.0");
        assertThat(top).extracting(Admission.AgentRefusals::refused).containsExactly(51L, 41L, 1L);
        assertThat(top).extracting(Admission.AgentRefusals::reason).containsExactly(REFUSED_PREFIX, REFUSED_RATE,
                REFUSED_RATE);
        assertThat(a.topRefused(0)).isEmpty();
        assertThat(a.topRefused(1_000_000)).hasSize(2 * cap);
        assertThat(a.topRefused(1_000_000).stream().mapToLong(Admission.AgentRefusals::refused).sum())
                .as("every refusal of a tracked agent is in the snapshot; the untracked ones are not")
                .isEqualTo(a.refusedPrefix.sum() + a.refusedRate.sum() - 500 - 8);
    }

    @Test
    void defaultCapIs65536Agents() {
        Admission a = new Admission(List.of(), 1);
        byte[] x = v4(0, 0, 0, 0);
        for (int i = 0; i <= Admission.DEFAULT_MAX_AGENTS; i++) {
            x[12] = (byte) (i >> 16);
            x[13] = (byte) (i >> 8);
            x[14] = (byte) i;
            assertThat(a.admit(x, T0)).isEqualTo(ADMIT);
        }
        assertThat(a.trackedAgents()).isEqualTo(65_536);
        assertThat(a.untracked.sum()).isEqualTo(1);
        x[15] = 1; // another new agent: shares the overflow bucket, whose one token went to the 65,537th
        assertThat(a.admit(x, T0)).isEqualTo(REFUSED_RATE);
        assertThat(a.untracked.sum()).isEqualTo(2);
    }

    @Test
    void emptyAllowlistWarnsOnceAtConstruction() {
        PrintStream saved = System.err;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        Admission open;
        try {
            System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
            open = new Admission(List.of(), 0);
            for (int i = 0; i < 100; i++) {
                assertThat(open.admit(v6("20010db8000000000000000000000000"), T0 + i)).isEqualTo(ADMIT);
            }
            new Admission(List.of("10.0.0.0/8"), 0);
        } finally {
            System.setErr(saved);
        }
        String log = buf.toString(StandardCharsets.UTF_8);
        assertThat(log.split(Admission.NO_ALLOWLIST_WARNING, -1)).as(log).hasSize(2);
        assertThat(log).contains("WARN").contains("no agent allowlist: accepting sFlow from any address");
        assertThat(open.acceptsAll()).isTrue();
        assertThat(open.admitted.sum()).isEqualTo(100);
        assertThat(open.trackedAgents()).as("nothing to track without an allowlist or a rate").isZero();
        assertThat(open).hasToString("Admission[any address, no rate limit]");
    }

    @Test
    void readsTheAgentAddressFromRawDatagrams() {
        byte[] d = new byte[64];
        byte[] out = new byte[16];
        d[3] = 5;
        d[7] = 1;
        d[8] = (byte) 192;
        d[10] = 2;
        d[11] = 9;
        assertThat(Admission.readAgentAddress(d, 0, 28, out)).isTrue();
        assertThat(out).isEqualTo(v4(192, 0, 2, 9));
        byte[] shifted = new byte[70];
        System.arraycopy(d, 0, shifted, 6, 64);
        shifted[6 + 7] = 2;
        System.arraycopy(v6("20010db8000000000000000000000042"), 0, shifted, 6 + 8, 16);
        assertThat(Admission.readAgentAddress(shifted, 6, 40, out)).isTrue();
        assertThat(out).isEqualTo(v6("20010db8000000000000000000000042"));
        assertThat(Admission.readAgentAddress(shifted, 6, 23, out)).as("IPv6 address cut short").isFalse();
        assertThat(Admission.readAgentAddress(d, 0, 11, out)).isFalse();
        d[7] = 0;
        assertThat(Admission.readAgentAddress(d, 0, 28, out)).as("address type 0").isFalse();
        d[7] = 1;
        d[3] = 4;
        assertThat(Admission.readAgentAddress(d, 0, 28, out)).as("version 4").isFalse();
        assertThat(out).as("unchanged when false").isEqualTo(v6("20010db8000000000000000000000042"));
    }

    /**
     * Several threads on the same agents at once, in phases separated by a barrier, each phase at one simulated time:
     * per-agent outcomes are then exact whatever the interleaving, and the totals must add up.
     */
    @Test
    void concurrentInletsAddUpExactly() throws Exception {
        int threads = 8, phases = 5, perAgentPerPhase = 40, allowedAgents = 64, refusedAgents = 16;
        long rate = 100, burst = 150;
        Admission a = new Admission(List.of("10.0.0.0/8"), rate, burst, Admission.DEFAULT_MAX_AGENTS);
        CyclicBarrier barrier = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<long[]>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int seed = t;
                results.add(pool.submit(() -> {
                    long[] byResult = new long[3];
                    byte[] x = new byte[16];
                    for (int p = 0; p < phases; p++) {
                        barrier.await(20, TimeUnit.SECONDS);
                        long now = T0 + p * SECOND;
                        for (int i = 0; i < perAgentPerPhase; i++) {
                            for (int g = 0; g < allowedAgents + refusedAgents; g++) {
                                int agent = (g + seed * 7) % (allowedAgents + refusedAgents); // different orders
                                System.arraycopy(agent < allowedAgents ? v4(10, 0, 0, agent)
                                        : v4(11, 0, 0, agent), 0, x, 0, 16);
                                byResult[a.admit(x, now)]++;
                            }
                        }
                    }
                    return byResult;
                }));
            }
            long[] sum = new long[3];
            for (Future<long[]> f : results) {
                long[] r = f.get(60, TimeUnit.SECONDS);
                for (int i = 0; i < 3; i++) {
                    sum[i] += r[i];
                }
            }
            long perAgent = (long) threads * phases * perAgentPerPhase;
            long admittedPerAgent = burst + (phases - 1) * rate; // full at first sight, then 1 s of refill per phase
            assertThat(sum[ADMIT]).isEqualTo(allowedAgents * admittedPerAgent);
            assertThat(sum[REFUSED_RATE]).isEqualTo(allowedAgents * (perAgent - admittedPerAgent));
            assertThat(sum[REFUSED_PREFIX]).isEqualTo(refusedAgents * perAgent);
            assertThat(a.admitted.sum()).isEqualTo(sum[ADMIT]);
            assertThat(a.refusedRate.sum()).isEqualTo(sum[REFUSED_RATE]);
            assertThat(a.refusedPrefix.sum()).isEqualTo(sum[REFUSED_PREFIX]);
            assertThat(a.trackedAgents()).isEqualTo(allowedAgents + refusedAgents);
            assertThat(a.untracked.sum()).isZero();
            List<Admission.AgentRefusals> top = a.topRefused(1000);
            assertThat(top).hasSize(allowedAgents + refusedAgents);
            assertThat(top.subList(0, refusedAgents)).allSatisfy(r -> {
                assertThat(r.reason()).isEqualTo(REFUSED_PREFIX);
                assertThat(r.refused()).isEqualTo(perAgent);
            });
            assertThat(top.subList(refusedAgents, top.size())).allSatisfy(r -> {
                assertThat(r.reason()).isEqualTo(REFUSED_RATE);
                assertThat(r.refused()).isEqualTo(perAgent - admittedPerAgent);
            });
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    /** Threads racing to fill a small table with distinct agents: exactly the cap is tracked, the rest counted. */
    @Test
    void concurrentFillOfTheAgentTable() throws Exception {
        int threads = 8, agentsPerThread = 100, datagramsPerAgent = 3, cap = 50;
        Admission a = new Admission(List.of("10.0.0.0/8"), 0, 0, cap);
        CyclicBarrier barrier = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                fs.add(pool.submit(() -> {
                    barrier.await(20, TimeUnit.SECONDS);
                    for (int i = 0; i < agentsPerThread; i++) {
                        for (int k = 0; k < datagramsPerAgent; k++) {
                            if (a.admit(v4(12, id, 0, i), T0) != REFUSED_PREFIX) {
                                throw new AssertionError("12." + id + ".0." + i + " admitted");
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
        int total = threads * agentsPerThread * datagramsPerAgent;
        assertThat(a.refusedPrefix.sum()).isEqualTo(total);
        assertThat(a.trackedAgents()).isEqualTo(cap);
        List<Admission.AgentRefusals> top = a.topRefused(1000);
        assertThat(top).hasSize(cap).allSatisfy(r -> assertThat(r.refused()).isEqualTo(datagramsPerAgent));
        assertThat(a.untracked.sum()).isEqualTo((long) (threads * agentsPerThread - cap) * datagramsPerAgent);
    }
}
