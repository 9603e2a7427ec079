package io.vecflow.dataplane.port;

import io.vecflow.netlink.Errno;
import io.vecflow.netlink.Libc;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * Runs a task inside a named network namespace (an {@code ip netns} name: a file under {@code /var/run/netns} or
 * {@code /run/netns}), so that sockets the task opens live in that namespace: a socket keeps the namespace it was
 * created in for its whole life (socket(7), network_namespaces(7)), whichever thread uses it later.
 *
 * <p>The task runs on a fresh platform thread that calls {@code setns(fd, CLONE_NEWNET)} (setns(2)) and ends after
 * the task, so no other work of the JVM ever runs in the namespace. Needs CAP_SYS_ADMIN (root). Same approach as
 * hsflowd-compat's {@code NetworkNamespace} (host-sflow's openCollectorSocket), kept here so agent-dataplane does not
 * depend on hsflowd-compat.
 */
public final class NetNamespace {
    private NetNamespace() {}

    private static final String[] DIRS = {"/var/run/netns/", "/run/netns/"};
    /** Upper bound on the wait for the namespace thread (opening sockets and rings: milliseconds in practice). */
    private static final long TASK_TIMEOUT_MS = 30_000;

    /**
     * Runs {@code task} inside network namespace {@code name} and returns its result.
     *
     * @param name an {@code ip netns} name (no '/', not "." or "..")
     * @param task what to do inside the namespace (e.g. open an {@link AfPacketPort})
     * @param <T> the result type
     * @return what {@code task} returned
     * @throws IOException no such namespace, {@code open} or {@code setns} failed (errno named; EPERM: not root), the
     *         task threw an IOException (rethrown as is), or it did not finish within 30 s
     * @throws IllegalArgumentException {@code name} is not a namespace name
     * @throws InterruptedException interrupted while waiting for the task
     */
    public static <T> T callIn(String name, Callable<T> task) throws IOException, InterruptedException {
        if (name == null || name.isEmpty() || name.equals(".") || name.equals("..") || name.indexOf('/') >= 0
                || name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("'" + name + "' is not a network namespace name (an `ip netns` name)");
        }
        Path path = null;
        for (String d : DIRS) {
            if (Files.exists(Path.of(d + name))) {
                path = Path.of(d + name);
                break;
            }
        }
        if (path == null) {
            throw new IOException("no such network namespace '" + name + "' (neither " + DIRS[0] + name + " nor "
                    + DIRS[1] + name + " exists)");
        }
        Object[] result = new Object[1];
        Throwable[] failure = new Throwable[1];
        Path p = path;
        Thread t = Thread.ofPlatform().daemon(true).name("netns-" + name).unstarted(() -> {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment st = Libc.newCallState(a);
                int fd = Libc.open(st, a.allocateFrom(p.toString(), StandardCharsets.UTF_8),
                        Libc.O_RDONLY | Libc.O_CLOEXEC);
                if (fd < 0) {
                    throw new IOException("network namespace '" + name + "': open(" + p + ") failed: "
                            + Errno.describe(Libc.errno(st)));
                }
                int rc = Libc.setns(st, fd, Libc.CLONE_NEWNET);
                int e = Libc.errno(st);
                Libc.close(st, fd);
                if (rc != 0) {
                    throw new IOException("network namespace '" + name + "': setns(" + p + ", CLONE_NEWNET) failed: "
                            + Errno.describe(e) + (e == Errno.EPERM ? " (needs root / CAP_SYS_ADMIN)" : ""));
                }
                result[0] = task.call();
            } catch (Throwable x) {
                failure[0] = x;
            }
        });
        t.start();
        t.join(TASK_TIMEOUT_MS);
        if (t.isAlive()) {
            throw new IOException("network namespace '" + name + "': the task did not finish within "
                    + TASK_TIMEOUT_MS / 1000 + " s");
        }
        Throwable f = failure[0];
        if (f instanceof IOException e) {
            throw e;
        } else if (f instanceof RuntimeException e) {
            throw e;
        } else if (f instanceof Error e) {
            throw e;
        } else if (f != null) {
            throw new IllegalStateException("network namespace '" + name + "': " + f, f);
        }
        @SuppressWarnings("unchecked")
        T r = (T) result[0];
        return r;
    }
}
