package io.vecflow.hsflowd.counters;

import io.vecflow.common.Libc;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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
        try (Arena a = Arena.ofConfined()) {
            MemorySegment state = Libc.newCallState(a);
            int fd = Libc.open(state, a.allocateFrom(path), Libc.O_RDONLY);
            if (fd < 0) {
                throw new IllegalStateException("open(" + path + ") failed: errno " + Libc.errno(state));
            }
            int r = Libc.setns(state, fd, Libc.CLONE_NEWNET);
            int e = Libc.errno(state);
            Libc.close(state, fd);
            if (r != 0) {
                throw new IllegalStateException("setns(" + path + ", CLONE_NEWNET) failed: errno " + e
                        + " (needs root)");
            }
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        thread.shutdownNow();
        thread.awaitTermination(10, TimeUnit.SECONDS);
        sh(List.of("ip", "netns", "del", name));
    }
}
