package io.vecflow.netlink.netdm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.netlink.NetlinkFormatException;
import io.vecflow.netlink.NetlinkWriter;
import io.vecflow.netlink.TestBytes;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** NET_DM codec against hand-built vectors (kernel and VPP conventions), control messages and malformed input. */
class NetDmCodecTest {
    private static final int FAMILY = 0x1C;

    private static NetDmAlert decode(byte[] msg) throws NetlinkFormatException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = TestBytes.nativeCopy(arena, msg);
            NetDmAlert out = new NetDmAlert();
            assertThat(new NetDmCodec().decode(s, 0, msg.length, out)).isTrue();
            return new NetDmAlert().copyFrom(out);
        }
    }

    private static byte[] encode(NetDmAlert a, NetDm.Convention c, int type, int seq, int pid) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(4096);
            int n = new NetDmCodec().encode(a, new NetlinkWriter(s), type, seq, pid, c);
            return TestBytes.toArray(s, n);
        }
    }

    @Test
    void kernelSoftwareDropDecodesEveryField() throws Exception {
        NetDmAlert a = decode(NetDmGolden.kernelSwMessage(FAMILY, 9, 0));
        assertThat(a.pc()).isEqualTo(0xFFFF_FFFF_81A2_B3C4L);
        assertThat(a.symbol()).isEqualTo("kfree_skb_reason");
        assertThat(a.inPortIfIndex()).isEqualTo(3);
        assertThat(a.inPortFlat()).isFalse();
        assertThat(a.inPortName()).isEqualTo("eth0");
        assertThat(a.timestampNs()).isEqualTo(NetDmGolden.TS);
        assertThat(a.proto()).isEqualTo(0x0800);
        assertThat(Arrays.copyOf(a.payload(), a.payloadLength())).containsExactly(NetDmGolden.payload64());
        assertThat(a.origLen()).isEqualTo(98);
        assertThat(a.origin()).isEqualTo(NetDm.ORIGIN_SW);
        assertThat(a.reason()).isEqualTo("NO_SOCKET");
        assertThat(a.hwTrapName()).isNull();
        assertThat(a.has(NetDm.ATTR_TRUNC_LEN)).isFalse();
        assertThat(a.sameAs(NetDmGolden.kernelSwAlert())).as(a.toString()).isTrue();
    }

    @Test
    void kernelHardwareDropAndVppFlatInPort() throws Exception {
        NetDmAlert hw = decode(NetDmGolden.kernelHwMessage(FAMILY, 1, 0));
        assertThat(hw.inPortIfIndex()).isEqualTo(5);
        assertThat(hw.inPortHasName()).isFalse();
        assertThat(hw.hwTrapGroup()).isEqualTo("l3_drops");
        assertThat(hw.hwTrapName()).isEqualTo("blackhole_route");
        assertThat(hw.origin()).isEqualTo(NetDm.ORIGIN_HW);
        assertThat(hw.payloadLength()).isEqualTo(14);
        assertThat(hw.sameAs(NetDmGolden.kernelHwAlert())).as(hw.toString()).isTrue();

        NetDmAlert vpp = decode(NetDmGolden.vppMessage(NetDm.USERSOCK_MSG_TYPE, 1, 0));
        assertThat(vpp.inPortIfIndex()).as("VPP's flat u32 IN_PORT (hsflowd reads 0 here)").isEqualTo(7);
        assertThat(vpp.inPortFlat()).isTrue();
        assertThat(vpp.truncLen()).isEqualTo(128);
        assertThat(vpp.origLen()).isEqualTo(1514);
        assertThat(vpp.hwTrapGroup()).isEqualTo("vpp_ip4-input");
        assertThat(vpp.hwTrapName()).isEqualTo("vpp_ip4_ttl_expired");
        assertThat(vpp.has(NetDm.ATTR_TIMESTAMP)).isFalse();
        assertThat(vpp.reason()).isNull();
        assertThat(vpp.sameAs(NetDmGolden.vppAlert())).isTrue();
    }

    @Test
    void encoderReproducesTheHandBuiltBytes() {
        assertThat(encode(NetDmGolden.kernelSwAlert(), NetDm.Convention.KERNEL, FAMILY, 9, 0))
                .containsExactly(NetDmGolden.kernelSwMessage(FAMILY, 9, 0));
        assertThat(encode(NetDmGolden.kernelHwAlert(), NetDm.Convention.KERNEL, FAMILY, 1, 0))
                .containsExactly(NetDmGolden.kernelHwMessage(FAMILY, 1, 0));
        assertThat(encode(NetDmGolden.vppAlert(), NetDm.Convention.VPP, NetDm.USERSOCK_MSG_TYPE, 1, 0))
                .containsExactly(NetDmGolden.vppMessage(NetDm.USERSOCK_MSG_TYPE, 1, 0));
    }

    @Test
    void controlMessagesMatchTheHeader() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = arena.allocate(256);
            NetlinkWriter w = new NetlinkWriter(s);
            int n = NetDmCodec.encodeConfig(w, FAMILY, 5, 0, 128, 1000);
            assertThat(TestBytes.toArray(s, n)).containsExactly(TestBytes.le()
                    .u32(44).u16(FAMILY).u16(0x5).u32(5).u32(0)   // REQUEST|ACK
                    .u8(2).u8(2).u16(0)                           // NET_DM_CMD_CONFIG
                    .u16(5).u16(1).u8(1).zeros(3)                 // ALERT_MODE u8 PACKET
                    .u16(8).u16(9).u32(128)                       // TRUNC_LEN
                    .u16(8).u16(11).u32(1000)                     // QUEUE_LEN
                    .bytes());
            n = NetDmCodec.encodeStartStop(w.reset(), FAMILY, 6, 0, true, true, true);
            assertThat(TestBytes.toArray(s, n)).containsExactly(TestBytes.le()
                    .u32(28).u16(FAMILY).u16(0x5).u32(6).u32(0)
                    .u8(3).u8(2).u16(0)                           // NET_DM_CMD_START
                    .u16(4).u16(20).u16(4).u16(21)                // SW_DROPS, HW_DROPS flags
                    .bytes());
            n = NetDmCodec.encodeStartStop(w.reset(), FAMILY, 7, 0, false, true, false);
            assertThat(TestBytes.toArray(s, n)).containsExactly(TestBytes.le()
                    .u32(24).u16(FAMILY).u16(0x5).u32(7).u32(0).u8(4).u8(2).u16(0).u16(4).u16(20).bytes());
            assertThatThrownBy(() -> NetDmCodec.encodeStartStop(w.reset(), FAMILY, 8, 0, true, false, false))
                    .hasMessageContaining("needs sw and/or hw");
        }
    }

    @Test
    void otherCommandsAreNotAlerts() throws Exception {
        byte[] m = NetDmGolden.vppMessage(FAMILY, 1, 0);
        m[16] = NetDm.CMD_STATS_NEW;
        try (Arena arena = Arena.ofConfined()) {
            assertThat(new NetDmCodec().decode(TestBytes.nativeCopy(arena, m), 0, m.length, new NetDmAlert()))
                    .isFalse();
        }
    }

    @Test
    void malformedInputNamesFieldAndOffset() {
        byte[] good = NetDmGolden.kernelSwMessage(FAMILY, 1, 0);
        byte[] nest = good.clone();
        nest[60] = 40; // PORT_NETDEV_IFINDEX nla_len 40 > the 20 bytes left in IN_PORT
        assertDecodeError(nest, "nlattr NET_DM_ATTR_PORT_NETDEV_IFINDEX (0) at offset 60: nla_len 40 runs past the "
                + "end of the message (20 bytes left)");
        byte[] proto = good.clone();
        proto[92] = 8; // PROTO nla_len 8: a 4-byte payload where u16 is expected
        assertDecodeError(proto, "nlattr NET_DM_ATTR_PROTO (6) at offset 92: nla_len 8 gives a 4-byte payload, "
                + "expected 2");
        byte[] payload = good.clone();
        payload[100] = (byte) 0xFF;
        payload[101] = (byte) 0x7F; // PAYLOAD nla_len 32767
        assertDecodeError(payload, "nlattr NET_DM_ATTR_PAYLOAD (7) at offset 100: nla_len 32767 runs past the end");
        byte[] tiny = good.clone();
        tiny[20] = 2; // PC nla_len 2
        assertDecodeError(tiny, "nlattr NET_DM_ATTR_PC (2) at offset 20: nla_len 2 is smaller than the 4-byte header");
        byte[] nlLen = good.clone();
        nlLen[0] = (byte) 201; // nlmsg_len past the 200 bytes given
        assertDecodeError(nlLen, "nlmsg_len at offset 0: value 201 outside 20..200");
        assertDecodeError(Arrays.copyOf(good, 12), "nlmsghdr at offset 0: NET_DM message of 12 bytes");
    }

    @Test
    void oversizedStringsAndPayloadAreCutNotOverrun() throws Exception {
        byte[] longName = new byte[300];
        Arrays.fill(longName, (byte) 'x');
        byte[] bigPayload = new byte[3000];
        bigPayload[2999] = 7;
        byte[] msg = TestBytes.le()
                .u32(20 + 304 + 3004).u16(FAMILY).u16(0).u32(1).u32(0).u8(5).u8(2).u16(0)
                .u16(304).u16(23).raw(longName)        // REASON: 300 bytes, no NUL, nla_len 304
                .u16(3004).u16(7).raw(bigPayload)      // PAYLOAD 3000 bytes
                .bytes();
        NetDmAlert a;
        try (Arena arena = Arena.ofConfined()) {
            a = new NetDmAlert(1024);
            assertThat(new NetDmCodec().decode(TestBytes.nativeCopy(arena, msg), 0, msg.length, a)).isTrue();
        }
        assertThat(a.reasonLength()).isEqualTo(NetDmAlert.STRING_CAPACITY);
        assertThat(a.stringTruncated()).isTrue();
        assertThat(a.payloadLength()).isEqualTo(1024);
        assertThat(a.payloadWireLength()).isEqualTo(3000);
        assertThat(a.payloadTruncated()).isTrue();
    }

    private static void assertDecodeError(byte[] msg, String expected) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = TestBytes.nativeCopy(arena, msg);
            assertThatThrownBy(() -> new NetDmCodec().decode(s, 0, msg.length, new NetDmAlert()))
                    .isInstanceOf(NetlinkFormatException.class).hasMessageStartingWith(expected);
        }
    }
}
