package io.vecflow.bench;

import io.vecflow.common.Errno;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The calling thread's CPU cycles in user space from the hardware counter, over {@code perf_event_open(2)}
 * ({@code PERF_TYPE_HARDWARE}, {@code PERF_COUNT_HW_CPU_CYCLES}, {@code exclude_kernel}, {@code exclude_hv}; pid 0,
 * cpu −1: this thread wherever it runs) and {@code read(2)} of the 8-byte count. Where the machine has no such counter
 * (a VM without a virtual PMU: {@code ENOENT}; {@code perf_event_paranoid} too strict: {@code EACCES}) the instance is
 * inert: {@link #available()} false, {@link #read()} 0, and {@link #note()} says which error the kernel gave.
 * x86-64 only (syscall number 298); opened and read from the one thread being measured.
 */
final class PerfCycles implements AutoCloseable {
    private static final long SYS_PERF_EVENT_OPEN = 298; // x86-64
    private static final int PERF_FLAG_FD_CLOEXEC = 8;
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private final Arena arena;
    private final int fd;
    private final MemorySegment buf;
    private final MethodHandle read;
    private final String note;

    private PerfCycles(Arena arena, int fd, MemorySegment buf, MethodHandle read, String note) {
        this.arena = arena;
        this.fd = fd;
        this.buf = buf;
        this.read = read;
        this.note = note;
    }

    /** @return a counter of this thread's cycles, or an inert one saying why there is none; never throws */
    static PerfCycles open() {
        Arena arena = Arena.ofConfined();
        try {
            if (!"amd64".equals(System.getProperty("os.arch")) && !"x86_64".equals(System.getProperty("os.arch"))) {
                return new PerfCycles(arena, -1, null, null, "none: perf_event_open's number is known for x86-64 only");
            }
            Linker linker = Linker.nativeLinker();
            MethodHandle syscall = linker.downcallHandle(linker.defaultLookup().find("syscall").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS,
                            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
                    Linker.Option.firstVariadicArg(1), Linker.Option.captureCallState("errno"));
            MethodHandle read = linker.downcallHandle(linker.defaultLookup().find("read").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS,
                            ValueLayout.JAVA_LONG));
            MemorySegment attr = arena.allocate(64, 8); // PERF_ATTR_SIZE_VER0
            attr.set(ValueLayout.JAVA_INT, 0, 0); // type PERF_TYPE_HARDWARE
            attr.set(ValueLayout.JAVA_INT, 4, 64); // size
            attr.set(ValueLayout.JAVA_LONG, 8, 0); // config PERF_COUNT_HW_CPU_CYCLES
            attr.set(ValueLayout.JAVA_LONG, 40, 1L << 5 | 1L << 6); // exclude_kernel, exclude_hv; enabled
            MemorySegment state = arena.allocate(CALL_STATE);
            long fd = (long) syscall.invokeExact(state, SYS_PERF_EVENT_OPEN, attr, 0L, -1L, -1L,
                    (long) PERF_FLAG_FD_CLOEXEC);
            if (fd < 0) {
                int e = (int) ERRNO.get(state, 0L);
                return new PerfCycles(arena, -1, null, null, "none: perf_event_open(PERF_COUNT_HW_CPU_CYCLES) failed "
                        + "with " + Errno.describe(e) + ": no hardware PMU exposed to this "
                        + "machine (a VM without a virtual PMU) or perf_event_paranoid too strict");
            }
            return new PerfCycles(arena, (int) fd, arena.allocate(8, 8), read,
                    "PERF_COUNT_HW_CPU_CYCLES of the measuring thread, user space");
        } catch (Throwable t) {
            return new PerfCycles(arena, -1, null, null, "none: " + t);
        }
    }

    /** @return true when {@link #read()} counts cycles */
    boolean available() {
        return fd >= 0;
    }

    /** @return cycles counted so far (user space, this thread), or 0 when not {@link #available()} */
    long read() {
        if (fd < 0) {
            return 0;
        }
        try {
            long n = (long) read.invokeExact(fd, buf, 8L);
            return n == 8 ? buf.get(ValueLayout.JAVA_LONG, 0) : 0;
        } catch (Throwable t) {
            throw new IllegalStateException("read of the cycle counter failed", t);
        }
    }

    /** @return what this counter counts, or why there is none */
    String note() {
        return note;
    }

    @Override
    public void close() {
        if (fd >= 0) {
            try {
                io.vecflow.common.Libc.close(io.vecflow.common.Libc.newCallState(arena), fd);
            } catch (RuntimeException ignored) {
                // closing an fd we opened cannot fail in a way that matters here
            }
        }
        arena.close();
    }
}
