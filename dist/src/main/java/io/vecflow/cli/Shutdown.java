package io.vecflow.cli;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Lets a long-running command stop cleanly on SIGINT/SIGTERM: the JVM's shutdown hook only signals the command's
 * own thread and then waits (≤ 30 s) until that thread has flushed, closed and printed what it must — so no buffered
 * row or datagram is lost when an operator stops the process.
 *
 * <pre>{@code try (Shutdown sd = Shutdown.install()) { start(); sd.await(); stopAndFlush(); } }</pre>
 */
final class Shutdown implements AutoCloseable {
    private final CountDownLatch signalled = new CountDownLatch(1);
    private final CountDownLatch done = new CountDownLatch(1);

    private Shutdown() {}

    /** Registers the hook. */
    static Shutdown install() {
        Shutdown s = new Shutdown();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            s.signalled.countDown();
            try {
                s.done.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "vecflow-shutdown"));
        return s;
    }

    /** Blocks until SIGINT/SIGTERM. */
    void await() throws InterruptedException {
        signalled.await();
    }

    /** @return true once a stop signal arrived. */
    boolean signalled() {
        return signalled.getCount() == 0;
    }

    /** Lets the JVM exit: call after the command has flushed and closed everything. */
    @Override
    public void close() {
        done.countDown();
    }
}
