package io.vecflow.hsflowd.dropmon;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Little-endian byte builder for hand-assembled netlink vectors, one commented field at a time. */
final class Le {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    Le u8(int v) {
        out.write(v & 0xFF);
        return this;
    }

    Le u16(int v) {
        return u8(v).u8(v >>> 8);
    }

    Le u32(long v) {
        return u16((int) v).u16((int) (v >>> 16));
    }

    Le u64(long v) {
        return u32(v & 0xFFFF_FFFFL).u32(v >>> 32);
    }

    Le raw(byte[] b) {
        out.writeBytes(b);
        return this;
    }

    /** A NUL-terminated string attribute: nla_len = 4 + chars + 1, padded to 4. */
    Le str(int type, String s) {
        byte[] b = s.getBytes(StandardCharsets.US_ASCII);
        u16(4 + b.length + 1).u16(type).raw(b).u8(0);
        return pad(b.length + 1);
    }

    Le pad(int payloadLength) {
        for (int i = payloadLength; i % 4 != 0; i++) {
            out.write(0);
        }
        return this;
    }

    int size() {
        return out.size();
    }

    byte[] bytes() {
        return out.toByteArray();
    }

    /** Patches nlmsg_len (bytes 0..3) with the final size and returns the message. */
    byte[] message() {
        byte[] b = out.toByteArray();
        int n = b.length;
        b[0] = (byte) n;
        b[1] = (byte) (n >>> 8);
        b[2] = (byte) (n >>> 16);
        b[3] = (byte) (n >>> 24);
        return b;
    }
}
