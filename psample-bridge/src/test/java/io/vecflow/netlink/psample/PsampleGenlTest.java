package io.vecflow.netlink.psample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.common.Errno;
import io.vecflow.netlink.GenlController;
import io.vecflow.netlink.GenlFamily;
import io.vecflow.netlink.GenlFamilyNotFoundException;
import io.vecflow.netlink.GenlFamilyWatch;
import io.vecflow.netlink.Netlink;
import io.vecflow.netlink.NetlinkSocket;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The GENL emitter without its family (docs/netlink.md §2, §6 rule 3; a family name no kernel has, so this passes on
 * kernels with or without psample): it opens anyway, reports the missing family once, counts every sample as a failed
 * send (ENOENT) and retries the lookup. The subscriber fails at open where psample is missing. The genl send path
 * itself runs against nlctrl's "notify" group as a stand-in; the real psample family is checked in the kernel lab.
 */
class PsampleGenlTest {

    /** A family no kernel has: the missing-family path, whether or not this kernel has psample loaded. */
    private static final String ABSENT = "vfNoSuchFamily";

    @Test
    void genlEmitterWithoutItsFamilyReportsOnceCountsFailuresAndRetries() throws Exception {
        List<String> reports = new ArrayList<>();
        PsampleSample s = Golden.vppSample();
        try (PsampleEmitter em = PsampleEmitter.openGenl(new GenlFamilyWatch(ABSENT, Psample.MCGRP_PACKETS,
                Duration.ofMillis(50), reports::add), Psample.Convention.VPP)) {
            assertThat(em.transport()).isEqualTo(PsampleTransport.GENL);
            assertThat(em.familyReady()).isFalse();
            assertThat(em.nlmsgType()).isZero();
            for (int i = 0; i < 5; i++) {
                assertThat(em.emit(s)).isFalse();
            }
            Thread.sleep(60); // past the retry interval: the next sample retries the lookup, fails, stays quiet
            assertThat(em.emit(s)).isFalse();
            assertThat(em.sent()).isZero();
            assertThat(em.sendFailed()).isEqualTo(6);
            assertThat(em.familyMissingFailures()).isEqualTo(6);
            assertThat(em.lastErrno()).isEqualTo(Errno.ENOENT);
            assertThat(em.familyProblem()).contains("\"" + ABSENT + "\" is not available");
        }
        assertThat(reports).singleElement().asString()
                .startsWith("generic netlink family \"" + ABSENT + "\" is not available on this kernel: load the "
                        + "kernel module that provides it")
                .endsWith("; every message is counted as a send failure (ENOENT (No such file or directory)) and "
                        + "the lookup is retried every 50 ms");
    }

    /** The three-argument open never throws for genl: it opens whether this kernel has psample now or not. */
    @Test
    void theThreeArgumentOpenNoLongerThrowsForGenl() throws Exception {
        boolean psample = GenlController.isRegistered(Psample.GENL_NAME);
        try (PsampleEmitter em = PsampleEmitter.open(PsampleTransport.GENL, 0, Psample.Convention.VPP)) {
            assertThat(em.transport()).isEqualTo(PsampleTransport.GENL);
            assertThat(em.familyReady()).isEqualTo(psample);
            assertThat(em.familyProblem() == null).isEqualTo(psample);
            if (!psample) {
                assertThat(em.emit(Golden.vppSample())).isFalse();
                assertThat(em.familyMissingFailures()).isEqualTo(1);
                assertThat(em.familyProblem()).contains("modprobe psample");
            }
        }
    }

    /**
     * The genl send path on a real generic-netlink multicast group: nlctrl's "notify" stands in for psample's
     * "packets" (family id as nlmsg_type, group bit in nl_groups; sending needs CAP_NET_ADMIN). A raw NETLINK_GENERIC
     * socket joined to the group receives the message, which PsampleCodec decodes with its LB cookie.
     */
    @Test
    void genlPathSendsToTheResolvedGroup() throws Exception {
        GenlFamily ctrl;
        try (NetlinkSocket s = NetlinkSocket.open(Netlink.NETLINK_GENERIC)) {
            ctrl = GenlController.resolve(s, "nlctrl");
        }
        int notify = ctrl.groupId("notify");
        List<String> reports = new ArrayList<>();
        PsampleSample in = Golden.vppSample().userCookie(LbDecisionCookieTest.srlbSecond());
        try (Arena arena = Arena.ofConfined();
             NetlinkSocket raw = NetlinkSocket.open(Netlink.NETLINK_GENERIC);
             PsampleEmitter em = PsampleEmitter.openGenl(new GenlFamilyWatch("nlctrl", "notify",
                     Duration.ofSeconds(1), reports::add), Psample.Convention.VPP)) {
            raw.bind(0, 0);
            raw.joinGroup(notify);
            raw.setReceiveTimeout(Duration.ofMillis(500));
            assertThat(em.familyReady()).isTrue();
            assertThat(em.nlmsgType()).isEqualTo(Netlink.GENL_ID_CTRL);
            assertThat(em.groupId()).isEqualTo(notify);
            assertThat(em.emit(in)).isTrue();
            MemorySegment buf = arena.allocate(70_000);
            PsampleSample got = new PsampleSample();
            PsampleCodec codec = new PsampleCodec();
            boolean found = false;
            for (int i = 0; i < 50 && !found; i++) { // nlctrl may also notify about families coming and going
                int n = raw.receive(buf);
                if (n == 0) { // receive timeout
                    break;
                }
                if (buf.get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, Netlink.NLMSG_PID_OFFSET)
                        == em.portId()) {
                    assertThat(codec.decode(buf, 0, n, got)).isTrue();
                    found = true;
                }
            }
            assertThat(found).as("message from the emitter's port id").isTrue();
            LbDecisionCookie d = new LbDecisionCookie();
            assertThat(d.decodeFrom(got)).isTrue();
            assertThat(d.kind()).isEqualTo(LbDecisionCookie.Kind.SRLB_ACCEPT_SECOND);
            assertThat(d.policyMetric()).isEqualTo(3000);
            assertThat(em.sent()).isEqualTo(1);
            assertThat(em.sendFailed()).isZero();
        }
        assertThat(reports).isEmpty();
    }

    /**
     * The genl subscriber on this kernel: it opens where psample is registered and fails at open with the fix where
     * it is not (the missing-family text itself: GenlControllerTest; the real family: the kernel lab).
     */
    @Test
    void genlSubscriberOpensOrFailsAtOpenWithTheFix() throws Exception {
        if (GenlController.isRegistered(Psample.GENL_NAME)) {
            try (PsampleSubscriber sub = PsampleSubscriber.open(PsampleTransport.GENL, 0)) {
                assertThat(sub.transport()).isEqualTo(PsampleTransport.GENL);
            }
        } else {
            assertThatThrownBy(() -> PsampleSubscriber.open(PsampleTransport.GENL, 0).close())
                    .isInstanceOf(GenlFamilyNotFoundException.class)
                    .hasMessageContaining("modprobe psample")
                    .hasMessageContaining("--transport usersock");
        }
    }

    @Test
    void transportNamesParse() {
        assertThat(PsampleTransport.parse("usersock")).isEqualTo(PsampleTransport.USERSOCK);
        assertThat(PsampleTransport.parse("GENL")).isEqualTo(PsampleTransport.GENL);
        assertThatThrownBy(() -> PsampleTransport.parse("udp")).hasMessageContaining("genl or usersock");
    }
}
