package io.vecflow.netlink;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The genl emitters (PSAMPLE, NET_DM) resolve their family on the socket they then send from; the lookup auto-binds
 * it, and the emitter must keep that port id instead of binding again (EINVAL: Linux {@code netlink_bind}). Found in
 * the kernel lab (issue 9); here on the "nlctrl" family, which every kernel has.
 */
class NetlinkEmitterTest {

    private static final class Probe extends NetlinkEmitter {
        Probe(NetlinkSocket s) throws NetlinkException {
            super(s, 256, 0, 0, 0);
        }
    }

    @Test
    void emitterKeepsThePortIdALookupBound() throws Exception {
        NetlinkSocket s = NetlinkSocket.open(Netlink.NETLINK_GENERIC);
        GenlController.resolve(s, "nlctrl");
        int autoBound = s.portId();
        assertThat(autoBound).isNotZero();
        try (Probe p = new Probe(s)) {
            assertThat(p.portId()).isEqualTo(autoBound);
        }
    }

    @Test
    void emitterBindsAnUnboundSocket() throws Exception {
        NetlinkSocket s = NetlinkSocket.open(Netlink.NETLINK_GENERIC);
        assertThat(s.portId()).isZero();
        try (Probe p = new Probe(s)) {
            assertThat(p.portId()).isNotZero().isEqualTo(s.portId());
        }
    }
}
