package io.vecflow.hsflowd.counters;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A network namespace a test creates ({@code ip netns add}) and removes ({@code ip netns del}), with one thread that
 * has entered it ({@code setns(fd, CLONE_NEWNET)} over java.lang.foreign): sockets opened by tasks on that thread
 * (netlink, UDP) live in the namespace. Needs root; every failure throws (tests must not skip).
 */
final class Netns implements AutoCloseable {
    private static final int CLONE_NEWNET = 0x40000000;
    private static final int O_RDONLY = 0;

    final String name;
    private final ExecutorService thread;

    private Netns(String name) {
        this.name = name;
        this.thread = Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().name("netns-" + name).unstarted(r));
    }

    /** Creates the namespace and enters it on the task thread. */
    static Netns create(String name) throws Exception {
        sh(List.of("ip", "netns", "add", name));
        Netns n = new Netns(name);
        try {
            n.call(() -> {
                enter("/var/run/netns/" + name);
                return null;
            });
        } catch (Exception e) {
            n.close();
            throw e;
        }
        return n;
    }

    /** Runs {@code ip -n NAME args...} (or any command when {@code inside} is false), failing on a non-zero status. */
    void ip(String... args) throws IOException, InterruptedException {
        List<String> cmd = new java.util.ArrayList<>(List.of("ip", "-n", name));
        cmd.addAll(List.of(args));
        sh(cmd);
    }

    /** Runs {@code ip netns exec NAME cmd...}. */
    String exec(String... cmd) throws IOException, InterruptedException {
        List<String> c = new java.util.ArrayList<>(List.of("ip", "netns", "exec", name));
        c.addAll(List.of(cmd));
        return sh(c);
    }

    /** Runs a task on the thread inside the namespace (30 s at most). */
    <T> T call(Callable<T> task) throws Exception {
        try {
            return thread.submit(task).get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof Exception x) {
                throw x;
            }
            throw e;
        }
    }

    static String sh(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", cmd) + ": timed out");
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " exited " + p.exitValue() + ": " + out.strip());
        }
        return out;
    }

    private static void enter(String path) {
        Linker linker = Linker.nativeLinker();
        StructLayout cs = Linker.Option.captureStateLayout();
        VarHandle errno = cs.varHandle(MemoryLayout.PathElement.groupElement("errno"));
        MethodHandle open = linker.downcallHandle(linker.defaultLookup().find("open").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT),
                Linker.Option.captureCallState("errno"));
        MethodHandle setns = linker.downcallHandle(linker.defaultLookup().find("setns").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
                Linker.Option.captureCallState("errno"));
        MethodHandle close = linker.downcallHandle(linker.defaultLookup().find("close").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = a.allocate(cs);
            int fd = (int) open.invokeExact(state, a.allocateFrom(path), O_RDONLY);
            if (fd < 0) {
                throw new IllegalStateException("open(" + path + ") failed: errno " + (int) errno.get(state, 0L));
            }
            int r = (int) setns.invokeExact(state, fd, CLONE_NEWNET);
            int unused = (int) close.invokeExact(fd);
            if (r != 0) {
                throw new IllegalStateException("setns(" + path + ", CLONE_NEWNET) failed: errno "
                        + (int) errno.get(state, 0L) + " (needs root)");
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        thread.shutdownNow();
        thread.awaitTermination(10, TimeUnit.SECONDS);
        sh(List.of("ip", "netns", "del", name));
    }
}
