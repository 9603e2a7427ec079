package io.vecflow.netlink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.common.Errno;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class NetlinkWriterReaderTest {

    @Test
    void writerLaysOutHeadersAttributesPaddingAndNesting() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(256);
            seg.fill((byte) 0x5A); // garbage: padding must be zeroed by the writer
            NetlinkWriter w = new NetlinkWriter(seg);
            int nest;
            w.beginMessage(0x10, Netlink.NLM_F_REQUEST | Netlink.NLM_F_ACK, 7, 0x1234).genlHeader(3, 1)
                    .putString(2, "psample")            // nla_len 4+8 = 12
                    .putU8(9, 0xAB);                     // nla_len 5, padded to 8
            nest = w.beginNested(7);
            w.putU16(1, 0xBEEF).putU64(2, 0x0102030405060708L);
            w.endNested(nest);
            w.putFlag(16);
            int len = w.end();

            byte[] expected = TestBytes.le()
                    .u32(68).u16(0x10).u16(0x5).u32(7).u32(0x1234)   // nlmsghdr: len, type, flags REQUEST|ACK, seq, pid
                    .u8(3).u8(1).u16(0)                              // genlmsghdr: cmd 3, version 1, reserved
                    .u16(12).u16(2).raw("psample\0".getBytes())      // string attr, NUL included, no pad needed
                    .u16(5).u16(9).u8(0xAB).zeros(3)                 // u8 attr: nla_len 5 unpadded, 3 pad bytes
                    .u16(24).u16(7 | 0x8000)                         // nested attr: 4 + 8 + 12, NLA_F_NESTED
                    .u16(6).u16(1).u16(0xBEEF).zeros(2)              //   u16 attr, padded
                    .u16(12).u16(2).u64(0x0102030405060708L)         //   u64 attr
                    .u16(4).u16(16)                                  // flag attr: header only
                    .bytes();
            assertThat(len).isEqualTo(expected.length).isEqualTo(68);
            assertThat(TestBytes.toArray(seg, len)).containsExactly(expected);

            // read it back
            NetlinkReader r = new NetlinkReader().reset(seg, len);
            NetlinkAttributes a = new NetlinkAttributes();
            NetlinkAttributes inner = new NetlinkAttributes();
            assertThat(r.next()).isTrue();
            assertThat(r.type()).isEqualTo(0x10);
            assertThat(r.flags()).isEqualTo(5);
            assertThat(r.seq()).isEqualTo(7);
            assertThat(r.pid()).isEqualTo(0x1234);
            assertThat(r.length()).isEqualTo(68);
            r.attributes(a, Netlink.GENL_HDRLEN, null);
            assertThat(a.next()).isTrue();
            assertThat(a.type()).isEqualTo(2);
            assertThat(a.getString()).isEqualTo("psample");
            assertThat(a.next()).isTrue();
            assertThat(a.getU8()).isEqualTo(0xAB);
            assertThat(a.next()).isTrue();
            assertThat(a.type()).isEqualTo(7);
            assertThat(a.isNested()).isTrue();
            a.nested(inner, null);
            assertThat(inner.next()).isTrue();
            assertThat(inner.getU16()).isEqualTo(0xBEEF);
            assertThat(inner.next()).isTrue();
            assertThat(inner.getU64()).isEqualTo(0x0102030405060708L);
            assertThat(inner.next()).isFalse();
            assertThat(a.next()).isTrue();
            assertThat(a.type()).isEqualTo(16);
            assertThat(a.payloadLength()).isZero();
            assertThat(a.next()).isFalse();
            assertThat(r.next()).isFalse();
        }
    }

    @Test
    void readerWalksSeveralMessagesAndDecodesNlmsgError() throws Exception {
        byte[] b = TestBytes.le()
                .u32(36).u16(Netlink.NLMSG_ERROR).u16(0).u32(5).u32(0)   // NLMSG_ERROR
                .u32(-2)                                                  //   error = -ENOENT
                .u32(16).u16(0x10).u16(5).u32(5).u32(0)                  //   original request header
                .u32(36).u16(Netlink.NLMSG_ERROR).u16(0).u32(6).u32(0)   // ACK
                .u32(0)
                .u32(16).u16(0x10).u16(5).u32(6).u32(0)
                .bytes();
        NetlinkReader r = new NetlinkReader().reset(MemorySegment.ofArray(b), b.length);
        assertThat(r.next()).isTrue();
        assertThat(r.isError()).isTrue();
        assertThat(r.errorCode()).isEqualTo(Errno.ENOENT);
        assertThat(r.next()).isTrue();
        assertThat(r.offset()).isEqualTo(36);
        assertThat(r.errorCode()).isZero();
        assertThat(r.next()).isFalse();
    }

    @Test
    void readerRejectsBadNlmsgLenWithOffset() {
        byte[] b = TestBytes.le()
                .u32(20).u16(0x10).u16(0).u32(1).u32(0).u32(0)        // good 20-byte message
                .u32(500).u16(0x10).u16(0).u32(2).u32(0).u32(0)       // nlmsg_len 500 > 20 bytes left
                .bytes();
        NetlinkReader r = new NetlinkReader().reset(MemorySegment.ofArray(b), b.length);
        assertThat(catchNext(r)).isNull();
        assertThat(catchNext(r)).isInstanceOf(NetlinkFormatException.class)
                .hasMessageContaining("nlmsg_len at offset 20")
                .hasMessageContaining("value 500 runs past the end of the buffer");
        assertThat(catchNext(r)).isNull(); // stopped
        byte[] small = TestBytes.le().u32(8).u16(0x10).u16(0).u32(1).u32(0).bytes();
        r.reset(MemorySegment.ofArray(small), small.length);
        assertThat(catchNext(r)).hasMessageContaining("nlmsg_len at offset 0").hasMessageContaining("smaller than");
        r.reset(MemorySegment.ofArray(small), 10);
        assertThat(catchNext(r)).hasMessageContaining("nlmsghdr at offset 0").hasMessageContaining("only 10 bytes");
    }

    @Test
    void attributeIteratorRejectsShortAndOverlongAttributes() {
        byte[] b = TestBytes.le()
                .u16(8).u16(1).u32(42)            // ok at 0
                .u16(2).u16(3)                    // nla_len 2 at offset 8
                .bytes();
        NetlinkAttributes a = new NetlinkAttributes().reset(MemorySegment.ofArray(b), 0, b.length, t -> "ATTR_" + t);
        assertThat(catchNext(a)).isNull();
        assertThat(catchNext(a)).isInstanceOf(NetlinkFormatException.class)
                .hasMessage("nlattr ATTR_3 (3) at offset 8: nla_len 2 is smaller than the 4-byte header");
        byte[] c = TestBytes.le().u16(8).u16(1).u32(42).u16(40).u16(6).u32(0).bytes();
        a.reset(MemorySegment.ofArray(c), 0, c.length, null);
        assertThat(catchNext(a)).isNull();
        assertThat(catchNext(a)).hasMessage(
                "nlattr type 6 at offset 8: nla_len 40 runs past the end of the message (8 bytes left)");
        // wrong width for a typed getter
        a.reset(MemorySegment.ofArray(c), 0, 8, null);
        assertThat(catchNext(a)).isNull();
        assertThatThrownBy(a::getU16).hasMessageContaining("expected 2");
    }

    @Test
    void writerOverflowNamesTheAttribute() {
        NetlinkWriter w = new NetlinkWriter(MemorySegment.ofArray(new byte[32]));
        w.beginMessage(0x10, 0, 0, 0);
        assertThatThrownBy(() -> w.putBytes(6, new byte[64], 0, 64))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("nlattr type 6 at offset 16");
        assertThatThrownBy(() -> new NetlinkWriter(MemorySegment.ofArray(new byte[8])).putU32(1, 1))
                .hasMessageContaining("beginMessage");
    }

    @Test
    void errnoNamesAndStrerror() {
        assertThat(Errno.describe(Errno.EPERM)).isEqualTo("EPERM (Operation not permitted)");
        assertThat(Errno.describe(Errno.ENOBUFS)).isEqualTo("ENOBUFS (No buffer space available)");
        assertThat(Errno.name(Errno.EWOULDBLOCK)).isEqualTo("EAGAIN");
        assertThat(Errno.name(Errno.ECONNREFUSED)).isEqualTo("ECONNREFUSED");
        assertThat(Errno.name(Errno.EPROTONOSUPPORT)).isEqualTo("EPROTONOSUPPORT");
        assertThat(new NetlinkException("bind(NETLINK_USERSOCK, groups=0x10000000)", Errno.EPERM,
                "joining a netlink group needs root/CAP_NET_ADMIN"))
                .hasMessage("bind(NETLINK_USERSOCK, groups=0x10000000): EPERM (Operation not permitted) \u2014 "
                        + "joining a netlink group needs root/CAP_NET_ADMIN");
    }

    private static Exception catchNext(NetlinkReader r) {
        try {
            r.next();
            return null;
        } catch (Exception e) {
            return e;
        }
    }

    private static Exception catchNext(NetlinkAttributes a) {
        try {
            a.next();
            return null;
        } catch (Exception e) {
            return e;
        }
    }
}
