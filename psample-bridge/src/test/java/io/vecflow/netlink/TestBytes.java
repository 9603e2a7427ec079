package io.vecflow.netlink;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Hand-assembles little-endian test vectors, one commented field at a time. */
public final class TestBytes {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    public static TestBytes le() {
        return new TestBytes();
    }

    public TestBytes u8(int v) {
        out.write(v & 0xFF);
        return this;
    }

    public TestBytes u16(int v) {
        return u8(v).u8(v >>> 8);
    }

    public TestBytes u32(long v) {
        return u16((int) v).u16((int) (v >>> 16));
    }

    public TestBytes u64(long v) {
        return u32(v & 0xFFFF_FFFFL).u32(v >>> 32);
    }

    public TestBytes raw(byte[] b) {
        out.writeBytes(b);
        return this;
    }

    public TestBytes zeros(int n) {
        for (int i = 0; i < n; i++) {
            out.write(0);
        }
        return this;
    }

    public int size() {
        return out.size();
    }

    public byte[] bytes() {
        return out.toByteArray();
    }

    /** Copies bytes into a fresh native segment (for sendto). */
    public static MemorySegment nativeCopy(Arena arena, byte[] b) {
        MemorySegment s = arena.allocate(Math.max(1, b.length), 8);
        MemorySegment.copy(b, 0, s, ValueLayout.JAVA_BYTE, 0, b.length);
        return s;
    }

    public static byte[] toArray(MemorySegment s, int len) {
        return s.asSlice(0, len).toArray(ValueLayout.JAVA_BYTE);
    }
}
