package io.vecflow.netlink.psample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.netlink.NetlinkFormatException;
import io.vecflow.netlink.NetlinkWriter;
import io.vecflow.netlink.TestBytes;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

class PsampleCodecTest {
    private final PsampleCodec codec = new PsampleCodec();

    @Test
    void vppConventionEncodesExactlyTheHandBuiltGoldenMessage() {
        try (Arena arena = Arena.ofConfined()) {
            NetlinkWriter w = new NetlinkWriter(arena.allocate(PsampleEmitter.BUFFER_BYTES));
            int len = codec.encode(Golden.vppSample(), w, Psample.USERSOCK_MSG_TYPE, 1, 0, Psample.Convention.VPP);
            assertThat(TestBytes.toArray(w.segment(), len)).containsExactly(Golden.vppUsersockMessage(1, 0));
            // PROTO defaults to 1 in the VPP convention when the holder has none
            PsampleSample noProto = Golden.vppSample().proto(-1);
            len = codec.encode(noProto, w.reset(), Psample.USERSOCK_MSG_TYPE, 1, 0, Psample.Convention.VPP);
            assertThat(TestBytes.toArray(w.segment(), len)).containsExactly(Golden.vppUsersockMessage(1, 0));
        }
    }

    @Test
    void genlTransportCarriesTheSamePayloadWithTheFamilyIdAsType() {
        NetlinkWriter w = new NetlinkWriter(MemorySegment.ofArray(new byte[512]));
        int familyId = 0x1c;
        int len = codec.encode(Golden.vppSample(), w, familyId, 1, 0, Psample.Convention.VPP);
        byte[] expected = Golden.vppUsersockMessage(1, 0);
        expected[4] = (byte) familyId; // nlmsg_type, little-endian u16
        expected[5] = 0;
        assertThat(TestBytes.toArray(w.segment(), len)).containsExactly(expected);
    }

    @Test
    void decodesTheVppGoldenMessage() throws Exception {
        byte[] msg = Golden.vppUsersockMessage(9, 1234);
        PsampleSample s = new PsampleSample();
        assertThat(codec.decode(MemorySegment.ofArray(msg), 0, msg.length, s)).isTrue();
        assertSameSample(s, Golden.vppSample());
        assertThat(s.iifIndexBits()).isEqualTo(32);
        assertThat(s.oifIndexBits()).isEqualTo(32);
        assertThat(s.ifIndexBits()).isEqualTo(32);
        assertThat(s.timestampNs()).isZero();
        assertThat(s.has(Psample.ATTR_TIMESTAMP)).isFalse();
    }

    @Test
    void kernelConventionDecodesU16IfindexAndEncodesTheSameBytes() throws Exception {
        byte[] msg = Golden.kernelMessage(0x1c);
        PsampleSample s = new PsampleSample();
        assertThat(codec.decode(MemorySegment.ofArray(msg), 0, msg.length, s)).isTrue();
        assertThat(s.iifIndex()).isEqualTo(3);
        assertThat(s.oifIndex()).isEqualTo(5);
        assertThat(s.iifIndexBits()).isEqualTo(16);
        assertThat(s.oifIndexBits()).isEqualTo(16);
        assertThat(s.origSize()).isEqualTo(98);
        assertThat(s.sampleGroup()).isEqualTo(1);
        assertThat(s.groupSeq()).isZero();
        assertThat(s.has(Psample.ATTR_GROUP_SEQ)).isTrue();
        assertThat(s.sampleRate()).isEqualTo(400);
        assertThat(s.dataLength()).isEqualTo(14); // nla_len 18 − 4, not 18 (spec §6 rule 1)
        assertThat(s.dataCopy()).containsExactly(java.util.Arrays.copyOf(Golden.headerData(), 14));
        assertThat(s.timestampNs()).isEqualTo(1_700_000_000_123_456_789L);
        assertThat(s.proto()).isEqualTo(0x0800);

        NetlinkWriter w = new NetlinkWriter(MemorySegment.ofArray(new byte[512]));
        int len = codec.encode(Golden.kernelSample(), w, 0x1c, 1, 0, Psample.Convention.KERNEL);
        assertThat(TestBytes.toArray(w.segment(), len)).containsExactly(msg);
    }

    @Test
    void kernelConventionOmitsZeroIfindexAndRejectsWideOnes() throws Exception {
        NetlinkWriter w = new NetlinkWriter(MemorySegment.ofArray(new byte[512]));
        PsampleSample in = Golden.kernelSample().iifIndex(0).oifIndex(0);
        int len = codec.encode(in, w, 0x1c, 1, 0, Psample.Convention.KERNEL);
        PsampleSample out = new PsampleSample();
        codec.decode(w.segment(), 0, len, out);
        assertThat(out.has(Psample.ATTR_IIFINDEX)).isFalse();
        assertThat(out.has(Psample.ATTR_OIFINDEX)).isFalse();
        assertThat(out.ifIndexBits()).isZero();
        assertThat(len).isEqualTo(Golden.kernelMessage(0x1c).length - 16);
        assertThatThrownBy(() -> codec.encode(in.iifIndex(70_000), w.reset(), 0x1c, 1, 0, Psample.Convention.KERNEL))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("u16");
    }

    @Test
    void optionalAttributesRoundTrip() throws Exception {
        PsampleSample in = Golden.vppSample().iifIndex(0x8000_0001L).oifIndex(0xFFFF_FFFFL).outTc(3)
                .outTcOccBytes(123_456_789_012L).latencyNs(4567).timestampNs(99).sampleProbability(true)
                .userCookie(new byte[] {1, 2, 3, 4, 5}, 0, 5).sampleRate(0xFFFF_FFFFL);
        NetlinkWriter w = new NetlinkWriter(MemorySegment.ofArray(new byte[512]));
        int len = codec.encode(in, w, 0x10, 1, 0, Psample.Convention.VPP);
        PsampleSample out = new PsampleSample();
        assertThat(codec.decode(w.segment(), 0, len, out)).isTrue();
        assertSameSample(out, in);
        assertThat(out.outTc()).isEqualTo(3);
        assertThat(out.outTcOccBytes()).isEqualTo(123_456_789_012L);
        assertThat(out.latencyNs()).isEqualTo(4567);
        assertThat(out.timestampNs()).isEqualTo(99);
        assertThat(out.sampleProbability()).isTrue();
        assertThat(out.userCookieLength()).isEqualTo(5);
        assertThat(out.presentMask()).isEqualTo(in.presentMask());
    }

    @Test
    void dataLongerThanTheHolderIsTruncatedAndFlagged() throws Exception {
        byte[] msg = Golden.vppUsersockMessage(1, 0);
        PsampleSample small = new PsampleSample(16);
        assertThat(codec.decode(MemorySegment.ofArray(msg), 0, msg.length, small)).isTrue();
        assertThat(small.dataLength()).isEqualTo(16);
        assertThat(small.dataWireLength()).isEqualTo(64);
        assertThat(small.dataTruncated()).isTrue();
        assertThat(small.dataCopy()).containsExactly(java.util.Arrays.copyOf(Golden.headerData(), 16));
        assertThat(small.proto()).isEqualTo(1); // attributes after DATA still decoded
    }

    @Test
    void malformedAttributesNameTheFieldAndOffset() {
        // IIFINDEX with nla_len 7 (neither u16 nor u32)
        byte[] badWidth = Golden.vppUsersockMessage(1, 0);
        badWidth[20] = 7;
        assertThat(decodeError(badWidth)).hasMessage("nlattr PSAMPLE_ATTR_IIFINDEX (0) at offset 20: "
                + "nla_len 7, expected 6 (u16) or 8 (u32)");
        // ORIGSIZE (offset 36) with nla_len 2
        byte[] tiny = Golden.vppUsersockMessage(1, 0);
        tiny[36] = 2;
        assertThat(decodeError(tiny)).hasMessage("nlattr PSAMPLE_ATTR_ORIGSIZE (2) at offset 36: "
                + "nla_len 2 is smaller than the 4-byte header");
        // DATA (offset 68) claiming 65535 bytes in a 144-byte message
        byte[] absurd = Golden.vppUsersockMessage(1, 0);
        absurd[68] = (byte) 0xFF;
        absurd[69] = (byte) 0xFF;
        assertThat(decodeError(absurd)).hasMessage("nlattr PSAMPLE_ATTR_DATA (6) at offset 68: "
                + "nla_len 65535 runs past the end of the message (76 bytes left)");
        // nlmsg_len past the bytes available
        byte[] longLen = Golden.vppUsersockMessage(1, 0);
        longLen[0] = (byte) 0xF4;
        longLen[1] = 0x01; // 500
        assertThat(decodeError(longLen)).hasMessageContaining("nlmsg_len at offset 0: value 500 outside 20..144");
        // too short for the genl header
        assertThat(decodeError(java.util.Arrays.copyOf(Golden.vppUsersockMessage(1, 0), 18)))
                .hasMessageContaining("nlmsghdr at offset 0");
    }

    @Test
    void otherPsampleCommandsAreNotSamples() throws Exception {
        byte[] msg = Golden.vppUsersockMessage(1, 0);
        msg[16] = Psample.CMD_NEW_GROUP;
        assertThat(codec.decode(MemorySegment.ofArray(msg), 0, msg.length, new PsampleSample())).isFalse();
    }

    @Test
    void formatterPrintsOneLine() throws Exception {
        byte[] msg = Golden.vppUsersockMessage(1, 0);
        PsampleSample s = new PsampleSample();
        codec.decode(MemorySegment.ofArray(msg), 0, msg.length, s);
        String line = PsampleFormatter.format(s);
        assertThat(line).startsWith("group=1 seq=42 rate=10 iif=7 oif=0 ifindex=u32 origsize=1514 proto=1 data=64B "
                + "02 00 00 00 00 02 02 00 00 00 00 01 08 00 45 00")
                .endsWith(" ...")
                .doesNotContain("\n");
        byte[] k = Golden.kernelMessage(0x1c);
        codec.decode(MemorySegment.ofArray(k), 0, k.length, s);
        assertThat(PsampleFormatter.format(s)).isEqualTo("group=1 seq=0 rate=400 iif=3 oif=5 ifindex=u16 origsize=98 "
                + "proto=0x0800 ts=1700000000123456789ns data=14B 02 00 00 00 00 02 02 00 00 00 00 01 08 00");
    }

    private Exception decodeError(byte[] msg) {
        try {
            codec.decode(MemorySegment.ofArray(msg), 0, msg.length, new PsampleSample());
        } catch (NetlinkFormatException e) {
            return e;
        }
        throw new AssertionError("decode accepted a malformed message");
    }

    static void assertSameSample(PsampleSample actual, PsampleSample expected) {
        assertThat(actual.iifIndex()).as("iifIndex").isEqualTo(expected.iifIndex());
        assertThat(actual.oifIndex()).as("oifIndex").isEqualTo(expected.oifIndex());
        assertThat(actual.origSize()).as("origSize").isEqualTo(expected.origSize());
        assertThat(actual.sampleGroup()).as("sampleGroup").isEqualTo(expected.sampleGroup());
        assertThat(actual.groupSeq()).as("groupSeq").isEqualTo(expected.groupSeq());
        assertThat(actual.sampleRate()).as("sampleRate").isEqualTo(expected.sampleRate());
        assertThat(actual.proto()).as("proto").isEqualTo(expected.proto());
        assertThat(actual.timestampNs()).as("timestampNs").isEqualTo(expected.timestampNs());
        assertThat(actual.dataCopy()).as("data").containsExactly(expected.dataCopy());
    }
}
