package io.vecflow.dataplane.graph.mem;

import io.vecflow.common.Libc;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Zeroed off-heap memory for large per-worker tables, asked to be backed by transparent huge pages: an anonymous
 * private {@code mmap(2)} of the size rounded up to 2 MiB (plus 2 MiB to align the start), {@code madvise(2)}
 * {@code MADV_HUGEPAGE} (include/uapi/asm-generic/mman-common.h: 14; honoured when
 * /sys/kernel/mm/transparent_hugepage/enabled is {@code always} or {@code madvise}), then every 4 KiB page written once
 * so the memory is committed at construction, not on the packet path. Why: a {@code ConnectionTable} of 2<sup>21</sup>
 * slots is 128 MiB, 32,768 4-KiB pages — far beyond the TLB (Zen 3: 2,048 L2 DTLB entries), so with 4-KiB pages every
 * flow lookup at 1M flows also pays a page walk (two-dimensional under a hypervisor); with 2-MiB pages the 64 pages
 * stay in the TLB. Below 2 MiB the memory comes from {@link Arena#ofAuto()} (64-byte aligned). When mmap fails, or
 * madvise is refused (THP disabled: EINVAL), the memory is still returned, on 4-KiB pages ({@link #hugePagesAdvised}
 * says which). The mapping is unmapped when the returned segment becomes unreachable ({@link Arena#ofAuto()}).
 */
public final class HugePageMemory {
    /** 2 MiB: the x86-64 huge page. */
    static final long HUGE_PAGE = 2L << 20;
    private static final long PAGE = 4096;
    private static final int PROT_READ = 1, PROT_WRITE = 2, MAP_PRIVATE = 0x02, MAP_ANONYMOUS = 0x20;
    private static final int MADV_HUGEPAGE = 14;
    private static final ValueLayout PTR = ValueLayout.ADDRESS;
    private static final ValueLayout.OfLong C_LONG = ValueLayout.JAVA_LONG;
    private static final ValueLayout.OfInt C_INT = ValueLayout.JAVA_INT;
    // void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
    private static final MethodHandle MMAP =
            Libc.downcall("mmap", FunctionDescriptor.of(PTR, PTR, C_LONG, C_INT, C_INT, C_INT, C_LONG));
    // int munmap(void *addr, size_t len)
    private static final MethodHandle MUNMAP = Libc.downcall("munmap", FunctionDescriptor.of(C_INT, PTR, C_LONG));
    // int madvise(void *addr, size_t len, int advice)
    private static final MethodHandle MADVISE =
            Libc.downcall("madvise", FunctionDescriptor.of(C_INT, PTR, C_LONG, C_INT));

    private HugePageMemory() {
    }

    /** A segment and whether the kernel accepted MADV_HUGEPAGE for it. */
    public record Block(MemorySegment segment, boolean hugePagesAdvised) {
    }

    /**
     * @param bytes size, &gt; 0
     * @return zeroed memory of exactly {@code bytes}, 2-MiB aligned when mapped here (else 64-byte aligned)
     * @throws IllegalArgumentException if {@code bytes} ≤ 0
     */
    @SuppressWarnings("restricted")
    public static Block allocate(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("huge-page memory size must be > 0 bytes, got " + bytes);
        }
        if (bytes < HUGE_PAGE) { // less than one huge page: nothing to gain
            return new Block(Arena.ofAuto().allocate(bytes, 64), false);
        }
        long rounded = (bytes + HUGE_PAGE - 1) & -HUGE_PAGE;
        long total = rounded + HUGE_PAGE;
        try (Arena call = Arena.ofConfined()) {
            MemorySegment state = Libc.newCallState(call);
            MemorySegment base = (MemorySegment) MMAP.invokeExact(state, MemorySegment.NULL, total,
                    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0L);
            if (base.address() == -1L) {
                return new Block(Arena.ofAuto().allocate(bytes, 64), false);
            }
            long start = (base.address() + HUGE_PAGE - 1) & -HUGE_PAGE;
            MemorySegment aligned = MemorySegment.ofAddress(start);
            boolean advised = (int) MADVISE.invokeExact(state, aligned, rounded, MADV_HUGEPAGE) == 0;
            long baseAddress = base.address();
            MemorySegment seg = aligned.reinterpret(bytes, Arena.ofAuto(), s -> unmap(baseAddress, total));
            for (long p = 0; p < bytes; p += PAGE) {
                seg.set(ValueLayout.JAVA_BYTE, p, (byte) 0); // commit now (anonymous memory reads as zero)
            }
            return new Block(seg, advised);
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }

    @SuppressWarnings("restricted")
    private static void unmap(long address, long length) {
        try (Arena call = Arena.ofConfined()) {
            int ignored = (int) MUNMAP.invokeExact(Libc.newCallState(call), MemorySegment.ofAddress(address), length);
        } catch (Throwable t) {
            throw Libc.rethrow(t);
        }
    }
}
