package io.vecflow.netlink.psample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.netlink.NetlinkFormatException;
import io.vecflow.netlink.NetlinkWriter;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The LB decision cookie (README "Load-balancer decisions"): golden bytes of the version-1 layout, round trips of every
 * kind in both address families, through a whole PSAMPLE message, errors that name field and offset, and no
 * allocation per encode/decode.
 */
class LbDecisionCookieTest {
    static final byte[] VIP4 = {10, 0, 0, 100};
    static final byte[] B1 = {10, 0, 1, 1};
    static final byte[] B2 = {10, 0, 1, 2};

    static byte[] v6(int last) {
        byte[] a = new byte[16];
        a[0] = 0x20;
        a[1] = 0x01;
        a[2] = 0x0d;
        a[3] = (byte) 0xb8;
        a[15] = (byte) last;
        return a;
    }

    /** SRLB second-choice accept over IPv4: every fixed field set to a distinct value. */
    static LbDecisionCookie srlbSecond() {
        return new LbDecisionCookie().kind(LbDecisionCookie.Kind.SRLB_ACCEPT_SECOND).vip(VIP4).backend(B2)
                .addCandidate(B1).addCandidate(B2).choiceIndex(2).flow(6, 80).policyMetric(3000);
    }

    @Test
    void goldenBytesOfAnIpv4SrlbAccept() {
        byte[] out = new byte[LbDecisionCookie.MAX_BYTES];
        int len = srlbSecond().encode(out, 0);
        assertThat(len).isEqualTo(40);
        assertThat(Arrays.copyOf(out, len)).containsExactly(
                1, 5, 4, 2, 2, 6, 0, 80,             // version, kind 5, A=4, 2 candidates, choice 2, TCP, port 80
                0, 0, 0x0B, (byte) 0xB8,             // policy metric 3000 (3 busy workers ×1000)
                0, 0, 0, 0, 0, 0, 0, 0,              // flowlet id, path weight
                0, 0, 0, 0,                          // path id, reserved
                10, 0, 0, 100, 10, 0, 1, 2,          // VIP, backend
                10, 0, 1, 1, 10, 0, 1, 2);           // candidates
    }

    @Test
    void everyKindRoundTripsInBothFamilies() throws Exception {
        byte[] buf = new byte[LbDecisionCookie.MAX_BYTES];
        for (LbDecisionCookie.Kind k : LbDecisionCookie.Kind.values()) {
            for (boolean six : new boolean[] {false, true}) {
                LbDecisionCookie in = new LbDecisionCookie().kind(k).vip(six ? v6(100) : VIP4)
                        .backend(six ? v6(2) : B2).flow(17, 443).policyMetric(0xFFFF_FFFFL)
                        .clove(0x8000_0001L, 670_000, 49_152);
                if (k.algorithm().equals("srlb")) {
                    in.addCandidate(six ? v6(1) : B1).addCandidate(six ? v6(2) : B2).choiceIndex(1);
                }
                int len = in.encode(buf, 0);
                assertThat(len).isEqualTo(24 + (2 + in.candidateCount()) * (six ? 16 : 4));
                LbDecisionCookie out = new LbDecisionCookie().decode(buf, 0, len);
                assertThat(out.kind()).isEqualTo(k);
                assertThat(out.addressLength()).isEqualTo(six ? 16 : 4);
                assertThat(Arrays.copyOf(out.vip(), out.addressLength())).containsExactly(six ? v6(100) : VIP4);
                assertThat(Arrays.copyOf(out.backend(), out.addressLength())).containsExactly(six ? v6(2) : B2);
                assertThat(out.candidateCount()).isEqualTo(in.candidateCount());
                assertThat(Arrays.copyOf(out.candidates(), 32)).containsExactly(Arrays.copyOf(in.candidates(), 32));
                assertThat(out.choiceIndex()).isEqualTo(in.choiceIndex());
                assertThat(out.protocol()).isEqualTo(17);
                assertThat(out.vipPort()).isEqualTo(443);
                assertThat(out.policyMetric()).isEqualTo(0xFFFF_FFFFL);
                assertThat(out.flowletId()).isEqualTo(0x8000_0001L);
                assertThat(out.pathWeight()).isEqualTo(670_000);
                assertThat(out.pathId()).isEqualTo(49_152);
                assertThat(out.hasBackend()).isTrue();
            }
        }
        assertThat(LbDecisionCookie.Kind.of(0)).isNull();
        assertThat(LbDecisionCookie.Kind.of(8)).isNull();
        assertThat(LbDecisionCookie.Kind.SRLB_REJECT.decision()).isEqualTo("pass");
    }

    @Test
    void anIpv6HuntTravelsInAPsampleMessage() throws Exception {
        LbDecisionCookie in = new LbDecisionCookie().kind(LbDecisionCookie.Kind.SRLB_HUNT).vip(v6(100))
                .addCandidate(v6(1)).addCandidate(v6(2)).flow(6, 80).policyMetric(0);
        PsampleSample s = Golden.vppSample().userCookie(in);
        assertThat(s.userCookieLength()).isEqualTo(LbDecisionCookie.MAX_BYTES).isEqualTo(88);
        NetlinkWriter w = new NetlinkWriter(MemorySegment.ofArray(new byte[1024]));
        PsampleCodec codec = new PsampleCodec();
        int len = codec.encode(s, w, Psample.USERSOCK_MSG_TYPE, 1, 0, Psample.Convention.VPP);
        PsampleSample got = new PsampleSample();
        assertThat(codec.decode(w.segment(), 0, len, got)).isTrue();
        LbDecisionCookie out = new LbDecisionCookie();
        assertThat(out.decodeFrom(got)).isTrue();
        assertThat(out.kind()).isEqualTo(LbDecisionCookie.Kind.SRLB_HUNT);
        assertThat(out.hasBackend()).isFalse();
        assertThat(Arrays.copyOfRange(out.candidates(), 16, 32)).containsExactly(v6(2));
        assertThat(out.decodeFrom(new PsampleSample())).isFalse();
    }

    @Test
    void aCookieAboveTheCapIsADecodeErrorNamingItsOffset() {
        // a hand-built 100-byte cookie: the attribute header sits after nlmsghdr + genlmsghdr + the VPP attributes
        PsampleSample s = Golden.vppSample().userCookie(new byte[96], 0, 96);
        NetlinkWriter w = new NetlinkWriter(MemorySegment.ofArray(new byte[1024]));
        PsampleCodec codec = new PsampleCodec();
        int len = codec.encode(s, w, Psample.USERSOCK_MSG_TYPE, 1, 0, Psample.Convention.VPP);
        byte[] msg = Arrays.copyOf(w.segment().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), len + 4);
        int at = len - 100; // USER_COOKIE is the last attribute: 4-byte header + 96 bytes
        assertThat(msg[at + 2]).isEqualTo((byte) Psample.ATTR_USER_COOKIE);
        msg[at] = 104; // nla_len 104 → a 100-byte cookie
        msg[0] = (byte) (len + 4);
        assertThatThrownBy(() -> codec.decode(MemorySegment.ofArray(msg), 0, msg.length, new PsampleSample()))
                .isInstanceOf(NetlinkFormatException.class)
                .hasMessage("nlattr PSAMPLE_ATTR_USER_COOKIE (15) at offset " + at
                        + ": cookie of 100 bytes, at most 96");
        assertThatThrownBy(() -> new PsampleSample().userCookie(new byte[97], 0, 97))
                .hasMessageContaining("outside 0..96");
    }

    @Test
    void malformedCookiesNameFieldAndOffset() {
        byte[] good = new byte[40];
        srlbSecond().encode(good, 0);
        assertThat(err(good, 20)).hasMessage("lb_cookie at offset 0: cookie of 20 bytes, the fixed part alone is 24");
        assertThat(err(patch(good, 0, 2), 40)).hasMessage("lb_cookie.version at offset 0: version 2, this reader "
                + "knows 1");
        assertThat(err(patch(good, 1, 9), 40)).hasMessage("lb_cookie.kind at offset 1: unknown kind 9 (1..7)");
        assertThat(err(patch(good, 2, 6), 40)).hasMessage("lb_cookie.address_length at offset 2: address length "
                + "6, expected 4 or 16");
        assertThat(err(patch(good, 3, 3), 40)).hasMessage("lb_cookie.candidate_count at offset 3: 3 candidates, "
                + "at most 2");
        assertThat(err(patch(patch(good, 3, 1), 4, 2), 40)).hasMessage("lb_cookie.choice_index at offset 4: "
                + "choice index 2 with 1 candidates");
        assertThat(err(good, 36)).hasMessage("lb_cookie at offset 0: cookie of 36 bytes, version 1 with address "
                + "length 4 and 2 candidates is 40");
        assertThatThrownBy(() -> new LbDecisionCookie().encode(new byte[88], 0))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("needs a kind and a VIP");
        assertThatThrownBy(() -> new LbDecisionCookie().vip(VIP4).backend(v6(1)))
                .hasMessage("backend must be 4 bytes like the VIP, got 16");
        assertThatThrownBy(() -> srlbSecond().addCandidate(B1)).hasMessage("at most 2 candidates");
    }

    @Test
    void encodeAndDecodeAllocateNothing() throws Exception {
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        LbDecisionCookie in = srlbSecond();
        LbDecisionCookie out = new LbDecisionCookie();
        byte[] buf = new byte[LbDecisionCookie.MAX_BYTES];
        long sum = 0;
        long best = Long.MAX_VALUE;
        // JIT compilation allocates in early rounds; the steady state must not: best of up to 10 rounds of 100k
        for (int round = 0; round < 10 && best >= 1024; round++) {
            long before = mx.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 100_000; i++) {
                in.policyMetric(i);
                int len = in.encode(buf, 0);
                sum += out.decode(buf, 0, len).policyMetric();
            }
            best = Math.min(best, mx.getThreadAllocatedBytes(tid) - before);
        }
        assertThat(best).as("bytes allocated by 100k encode+decode (best round)").isLessThan(1024);
        assertThat(sum % (99_999L * 100_000L / 2)).isZero();
    }

    private static byte[] patch(byte[] b, int i, int v) {
        byte[] c = b.clone();
        c[i] = (byte) v;
        return c;
    }

    private static NetlinkFormatException err(byte[] b, int len) {
        try {
            new LbDecisionCookie().decode(b, 0, len);
        } catch (NetlinkFormatException e) {
            return e;
        }
        throw new AssertionError("no error for " + Arrays.toString(Arrays.copyOf(b, len)));
    }
}
