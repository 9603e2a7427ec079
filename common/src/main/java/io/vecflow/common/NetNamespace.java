package io.vecflow.common;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;

/**
 * Runs a task inside a named network namespace (an {@code ip netns} name: a bind mount under {@code /var/run/netns},
 * or {@code /run/netns}), as hsflowd opens a collector socket for {@code collector { namespace = NAME }}
 * (host-sflow {@code src/Linux/hsflowd.c} openCollectorSocket: open the netns file, {@code setns(fd, CLONE_NEWNET)},
 * then create the socket on a thread of its own). Used by hsflowd-compat's collector sockets and agent-dataplane's
 * AF_PACKET ports ({@code netns:}), and by the namespace tests.
 *
 * <p>The task runs on a fresh platform thread (a thread of its own, so no other work of the JVM ever runs in the
 * other namespace): the thread opens {@code /proc/thread-self/ns/net} (its current namespace), opens the named
 * namespace, {@code setns(fd, CLONE_NEWNET)} (setns(2)), runs the task, {@code setns} back to the namespace it
 * started in (a failure there is logged, not thrown: the thread ends right after), closes both descriptors and ends.
 * A socket keeps the namespace it was created in for its whole life (socket(7), network_namespaces(7)), so sockets
 * (and AF_PACKET rings) the task opens send and receive in the named namespace from any thread afterwards. Names of
 * devices and addresses the task uses are those of the named namespace.
 *
 * <p>Privileges: {@code setns} into a network namespace needs CAP_SYS_ADMIN (root), so call this before a process
 * drops root ({@link PrivilegeDrop}).
 */
public final class NetNamespace {
    private NetNamespace() {}

    /** Where {@code ip netns} keeps named namespaces (iproute2 NETNS_RUN_DIR), then its usual alias. */
    private static final String[] DIRS = {"/var/run/netns/", "/run/netns/"};
    /** Upper bound on the wait for the namespace thread (opening sockets and rings: milliseconds in practice). */
    private static final long TASK_TIMEOUT_MS = 30_000;

    /**
     * Finds the file of a named network namespace.
     *
     * @param name an {@code ip netns} name (no '/', not "." or "..")
     * @return {@code /var/run/netns/NAME} if it exists, else {@code /run/netns/NAME} if it exists, else null
     * @throws IllegalArgumentException if {@code name} is not a namespace name
     */
    public static Path find(String name) {
        checkName(name);
        for (String d : DIRS) {
            Path p = Path.of(d + name);
            if (Files.exists(p)) {
                return p;
            }
        }
        return null;
    }

    /**
     * Runs {@code task} inside network namespace {@code name} (class comment) and returns its result.
     *
     * @param name an {@code ip netns} name
     * @param task what to do inside the namespace (e.g. open a socket or an AF_PACKET port); must not block for long
     * @param <T> the task's result type
     * @return what {@code task} returned
     * @throws IOException "no such network namespace 'NAME'" (neither {@code /var/run/netns/NAME} nor
     *         {@code /run/netns/NAME} exists), or the namespace file cannot be opened, or {@code setns} fails (EPERM:
     *         not root / no CAP_SYS_ADMIN; EINVAL: the file is not a network namespace), or the task threw an
     *         IOException (rethrown as is), or the task did not finish within 30 s
     * @throws IllegalStateException if the task threw a checked exception other than IOException (as the cause);
     *         unchecked exceptions and errors of the task are rethrown as they are
     * @throws IllegalArgumentException if {@code name} is not a namespace name
     * @throws InterruptedException if interrupted while waiting for the task
     */
    public static <T> T callIn(String name, Callable<T> task) throws IOException, InterruptedException {
        checkName(name);
        Path path = find(name);
        if (path == null) {
            throw new IOException("no such network namespace '" + name + "' (neither " + DIRS[0] + name + " nor "
                    + DIRS[1] + name + " exists; `ip netns add " + name + "` creates one)");
        }
        Outcome<T> out = new Outcome<>();
        Thread t = Thread.ofPlatform().daemon(true).name("netns-" + name).unstarted(() -> run(path, name, task, out));
        t.start();
        t.join(TASK_TIMEOUT_MS);
        if (t.isAlive()) {
            throw new IOException("network namespace '" + name + "': the task did not finish within "
                    + TASK_TIMEOUT_MS / 1000 + " s");
        }
        if (out.failure instanceof IOException e) {
            throw e;
        }
        if (out.failure instanceof RuntimeException e) {
            throw e;
        }
        if (out.failure instanceof Error e) {
            throw e;
        }
        if (out.failure != null) {
            throw new IllegalStateException("network namespace '" + name + "': " + out.failure, out.failure);
        }
        return out.value;
    }

    private static final class Outcome<T> {
        T value;
        Throwable failure;
    }

    private static <T> void run(Path path, String name, Callable<T> task, Outcome<T> out) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment st = Libc.newCallState(a);
            int self = Libc.open(st, a.allocateFrom("/proc/thread-self/ns/net", StandardCharsets.UTF_8),
                    Libc.O_RDONLY | Libc.O_CLOEXEC);
            if (self < 0) {
                out.failure = new IOException("cannot open /proc/thread-self/ns/net (this thread's network "
                        + "namespace): " + Errno.describe(Libc.errno(st)));
                return;
            }
            try {
                int target = Libc.open(st, a.allocateFrom(path.toString(), StandardCharsets.UTF_8),
                        Libc.O_RDONLY | Libc.O_CLOEXEC);
                if (target < 0) {
                    int e = Libc.errno(st);
                    out.failure = new IOException(e == Errno.ENOENT
                            ? "no such network namespace '" + name + "' (" + path + " is gone)"
                            : "network namespace '" + name + "': cannot open " + path + ": " + Errno.describe(e));
                    return;
                }
                int rc = Libc.setns(st, target, Libc.CLONE_NEWNET);
                int e = Libc.errno(st);
                Libc.close(st, target);
                if (rc != 0) {
                    out.failure = new IOException("network namespace '" + name + "': setns(" + path
                            + ", CLONE_NEWNET) failed: " + Errno.describe(e) + (e == Errno.EPERM
                                    ? ": entering a network namespace needs root (CAP_SYS_ADMIN); open the sockets "
                                    + "(collector sockets, AF_PACKET ports) before dropping privileges"
                                    : e == Errno.EINVAL ? ": " + path + " is not a network namespace" : ""));
                    return;
                }
                try {
                    out.value = task.call();
                } catch (Throwable x) {
                    out.failure = x;
                }
                if (Libc.setns(st, self, Libc.CLONE_NEWNET) != 0) {
                    // harmless: this thread ends now and nothing else runs on it; what the task opened stays valid
                    LoggerFactory.getLogger(NetNamespace.class).warn("network namespace '{}': setns back to the "
                            + "original namespace failed: {}", name, Errno.describe(Libc.errno(st)));
                }
            } finally {
                Libc.close(st, self);
            }
        } catch (Throwable x) {
            if (out.failure == null) {
                out.failure = x;
            }
        }
    }

    private static void checkName(String name) {
        if (name == null || name.isEmpty() || name.equals(".") || name.equals("..") || name.indexOf('/') >= 0
                || name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("'" + name + "' is not a network namespace name (an `ip netns` name: "
                    + "no '/')");
        }
    }
}
