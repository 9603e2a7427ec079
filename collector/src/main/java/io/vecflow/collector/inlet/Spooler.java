package io.vecflow.collector.inlet;

import io.vecflow.collector.sink.RateLimitedLog;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands the inlet's datagrams to a downstream that may be away — the Kafka producer ({@link KafkaRawSink}), or the
 * in-process decoder in front of ClickHouse — without ever blocking a receive thread: while the downstream is
 * {@linkplain Downstream#ready() not ready}, or while anything is spooled, datagrams go to a bounded on-disk
 * {@link DatagramSpool}; a drain thread replays them in arrival order when the downstream is ready again, and only
 * once the spool is empty do receive threads deliver directly again (so one agent's datagrams never overtake each
 * other, which the outlet's loss accounting relies on). What the spool cannot hold (full, or no spool configured) is
 * counted as lost ({@link #lost()}).
 *
 * <p><b>Queues.</b> The spool directory holds numbered queues ({@code 00000000000000000001/}, ...), each a
 * {@link DatagramSpool}, drained lowest first; appends go to the highest. A downstream can hand back what it had
 * taken but not delivered when it closes ({@link #returnUndelivered}): those datagrams are older than everything
 * spooled, so they go to a new queue numbered below every other and are replayed first by the next run.
 */
public final class Spooler implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Spooler.class);

    /** What the spooler delivers to. */
    public interface Downstream {
        /** @return whether a datagram delivered now would be taken without blocking and without loss. */
        boolean ready();

        /** @return a short name for logs and metrics, e.g. {@code kafka:vecflow-raw-v1}. */
        String name();
    }

    /** Delivers one datagram (a receive thread's own target, or the drain thread's). */
    @FunctionalInterface
    public interface Target {
        /**
         * Delivers, or refuses at once (the downstream turned out not ready: the datagram stays with the caller).
         *
         * @param data buffer (reused after return)
         * @param off payload offset
         * @param len payload length
         * @param receivedNanos receive time, ns since the epoch
         * @param peer16 UDP source address, 16 bytes
         * @param peerPort UDP source port
         * @return true if taken, false if refused (nothing kept)
         */
        boolean deliver(byte[] data, int off, int len, long receivedNanos, byte[] peer16, int peerPort);
    }

    /** Spool settings (the collector's {@code spool:} section). */
    public static final class Settings {
        /** Directory of the queues; null = no spool (datagrams the downstream cannot take are lost, counted). */
        public Path directory;
        /** Most bytes held on disk over all queues (default 4 GiB). */
        public long maxBytes = 4L << 30;
        /** Bytes per segment file (default 16 MiB). */
        public int segmentBytes = 16 << 20;
    }

    private final Downstream downstream;
    private final Target drainTarget;
    private final Settings settings;
    private final List<DatagramSpool> queues = new ArrayList<>(); // guarded by this; lowest id first
    private final List<Long> queueIds = new ArrayList<>();
    private volatile boolean spooling;
    private final java.util.function.BooleanSupplier spoolingNow = () -> spooling;
    private volatile boolean running = true;
    private final Thread drain;
    private final LongAdder direct = new LongAdder(), lost = new LongAdder(), spooled = new LongAdder(),
            replayed = new LongAdder();
    private final DatagramSpool.Entry entry = new DatagramSpool.Entry(); // drain thread only
    private final java.util.concurrent.atomic.AtomicLong held = new java.util.concurrent.atomic.AtomicLong();
    private volatile long spooledSince; // System.nanoTime() when spooling began, 0 when not spooling
    private final RateLimitedLog warn = new RateLimitedLog(log, 60_000);
    private java.nio.channels.FileChannel lockChannel;

    /**
     * Opens the spool (replaying first what an earlier run left in it) and starts the drain thread.
     *
     * @param name thread name suffix
     * @param downstream readiness of what the datagrams go to
     * @param drainTarget where the drain thread delivers replayed datagrams (thread-safe, or owned by that thread)
     * @param settings spool directory and bounds
     * @throws IOException if the spool directory cannot be opened
     */
    public Spooler(String name, Downstream downstream, Target drainTarget, Settings settings) throws IOException {
        this.downstream = downstream;
        this.drainTarget = drainTarget;
        this.settings = settings;
        if (settings.directory != null) {
            Files.createDirectories(settings.directory);
            lockChannel = java.nio.channels.FileChannel.open(settings.directory.resolve("lock"),
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE);
            java.nio.channels.FileLock l;
            try {
                l = lockChannel.tryLock();
            } catch (java.nio.channels.OverlappingFileLockException e) {
                l = null;
            }
            if (l == null) {
                lockChannel.close();
                throw new IOException("spool directory " + settings.directory + " is in use by another collector "
                        + "(each inlet needs a spool directory of its own: set spool.directory)");
            }
            List<Long> ids = new ArrayList<>();
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(settings.directory, Files::isDirectory)) {
                for (Path p : ds) {
                    try {
                        ids.add(Long.parseLong(p.getFileName().toString()));
                    } catch (NumberFormatException e) {
                        log.warn("spool {}: ignoring {} (not a queue name)", settings.directory, p.getFileName());
                    }
                }
            }
            ids.sort(null);
            for (long id : ids) {
                DatagramSpool q = open(id);
                if (q.isEmpty() && id != ids.getLast()) {
                    q.close();
                    deleteQueue(id);
                    continue;
                }
                queues.add(q);
                queueIds.add(id);
            }
            if (queues.isEmpty()) {
                queues.add(open(1));
                queueIds.add(1L);
            }
            for (DatagramSpool q : queues) {
                held.addAndGet(q.bytes());
            }
            spooling = !allEmpty();
            if (spooling) {
                spooledSince = System.nanoTime();
            }
        }
        drain = new Thread(this::drainLoop, "spool-drain-" + name);
        drain.setDaemon(true);
        drain.start();
    }

    private DatagramSpool open(long id) throws IOException {
        return new DatagramSpool(settings.directory.resolve(String.format("%020d", id)), settings.maxBytes,
                settings.segmentBytes);
    }

    private void deleteQueue(long id) throws IOException {
        Path d = settings.directory.resolve(String.format("%020d", id));
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(d)) {
            for (Path p : ds) {
                Files.deleteIfExists(p);
            }
        }
        Files.deleteIfExists(d);
    }

    private boolean allEmpty() {
        for (DatagramSpool q : snapshot()) {
            if (!q.isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /** The queues now (lock order: a queue's lock may be held while taking this monitor, never the reverse). */
    private synchronized List<DatagramSpool> snapshot() {
        return List.copyOf(queues);
    }

    private synchronized DatagramSpool tail() {
        return queues.isEmpty() ? null : queues.getLast();
    }

    private static long recordBytes(int len) {
        return (DatagramSpool.HEADER + len + 7) & ~7L;
    }

    /**
     * Takes one datagram from a receive thread: delivers it through {@code direct} when the downstream is ready and
     * nothing is spooled, else spools it. Never blocks beyond the spool's lock.
     *
     * @return true if delivered or spooled, false if lost (counted)
     */
    public boolean offer(byte[] data, int off, int len, long receivedNanos, byte[] peer16, int peerPort,
            Target direct) {
        if (!spooling) {
            if (downstream.ready() && direct.deliver(data, off, len, receivedNanos, peer16, peerPort)) {
                this.direct.increment();
                return true;
            }
            if (settings.directory == null) {
                lost.increment();
                warn.warn("not-ready", "{} cannot take datagrams and no spool is configured: datagrams are lost "
                        + "(counted in vecflow_inlet_datagrams{result=\"lost\"})", downstream.name());
                return false;
            }
            startSpooling();
        }
        DatagramSpool q = tail();
        long need = recordBytes(len);
        // Appended only while still spooling (checked under the queue's lock, which the drain holds when it stops
        // spooling): otherwise the drain may have just emptied the spool, and the datagram goes directly.
        int r = q != null && held.get() + need <= settings.maxBytes
                ? q.appendIf(spoolingNow, data, off, len, receivedNanos, peer16, peerPort) : DatagramSpool.REFUSED;
        if (r == DatagramSpool.APPENDED) {
            held.addAndGet(need);
            spooled.increment();
            return true;
        }
        if (r == DatagramSpool.NOT_WANTED) {
            return offer(data, off, len, receivedNanos, peer16, peerPort, direct);
        }
        lost.increment();
        warn.warn("full", "spool {} is full ({} bytes): datagrams are lost (counted in "
                + "vecflow_inlet_datagrams{result=\"lost\"})", settings.directory, settings.maxBytes);
        return false;
    }

    private synchronized void startSpooling() {
        if (!spooling) {
            spooling = true;
            spooledSince = System.nanoTime();
            log.warn("{} is not taking datagrams: spooling to {} (up to {} bytes) until it is back",
                    downstream.name(), settings.directory, settings.maxBytes);
        }
    }

    private void drainLoop() {
        while (running) {
            if (!spooling || !downstream.ready()) {
                LockSupport.parkNanos(2_000_000L);
                continue;
            }
            int n = 0;
            DatagramSpool q;
            synchronized (this) {
                q = queues.isEmpty() ? null : queues.getFirst();
            }
            while (q != null && n < 4096 && running && downstream.ready() && q.peek(entry)) {
                if (!drainTarget.deliver(entry.data, 0, entry.length, entry.receivedNanos, entry.peer16,
                        entry.peerPort)) {
                    break; // refused at once: it stays first in the spool
                }
                q.advance();
                held.addAndGet(-recordBytes(entry.length));
                replayed.increment();
                n++;
            }
            if (q != null && q.isEmpty()) {
                if (!advanceQueue(q)) {
                    // the last queue, empty: back to direct delivery unless a receive thread appended meanwhile
                    q.whenEmpty(() -> {
                        synchronized (this) {
                            if (queues.getLast() == q) {
                                long ms = (System.nanoTime() - spooledSince) / 1_000_000;
                                spooling = false;
                                spooledSince = 0;
                                log.info("{} is taking datagrams again: spool drained after {} ms", downstream.name(),
                                        ms);
                            }
                        }
                    });
                }
            }
            if (n == 0) {
                LockSupport.parkNanos(1_000_000L);
            }
        }
    }

    /** Closes and deletes a drained queue that is not the last; false if it is the last. */
    private boolean advanceQueue(DatagramSpool q) {
        long id;
        synchronized (this) {
            if (queues.size() < 2 || queues.getFirst() != q) {
                return false;
            }
            queues.removeFirst();
            id = queueIds.removeFirst();
        }
        try {
            q.close();
            deleteQueue(id);
        } catch (IOException e) {
            log.warn("spool {}: cannot remove drained queue {}: {}", settings.directory, id, e.toString());
        }
        return true;
    }

    /**
     * Takes back datagrams the downstream had accepted but not delivered when it closed (the Kafka producer's
     * unacknowledged records): they are older than everything spooled, so they go to a new first queue. Call from
     * one thread, after the receive threads stopped and before {@link #close()}.
     *
     * @return a target that spools each datagram into the new first queue (or counts it lost without a spool)
     */
    public synchronized Target returnUndelivered() {
        if (settings.directory == null) {
            return (d, o, l, t, p, port) -> {
                lost.increment();
                return true;
            };
        }
        long id = queueIds.isEmpty() ? 1 : queueIds.getFirst() - 1;
        DatagramSpool front;
        try {
            front = open(id);
        } catch (IOException e) {
            log.warn("spool {}: cannot open a queue for undelivered datagrams: {}", settings.directory, e.toString());
            return (d, o, l, t, p, port) -> {
                lost.increment();
                return true;
            };
        }
        queues.addFirst(front);
        queueIds.addFirst(id);
        return (d, o, l, t, p, port) -> {
            if (front.append(d, o, l, t, p, port)) {
                held.addAndGet(recordBytes(l));
            } else {
                lost.increment();
            }
            return true;
        };
    }

    private void removeAll() {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(settings.directory)) {
            for (Path p : ds) {
                if (Files.isDirectory(p)) {
                    try (DirectoryStream<Path> inner = Files.newDirectoryStream(p)) {
                        for (Path f : inner) {
                            Files.deleteIfExists(f);
                        }
                    }
                }
                if (!p.getFileName().toString().equals("lock")) {
                    Files.deleteIfExists(p);
                }
            }
            Files.deleteIfExists(settings.directory.resolve("lock"));
            Files.deleteIfExists(settings.directory);
        } catch (IOException e) {
            log.debug("spool {}: cleanup: {}", settings.directory, e.toString());
        }
    }

    /** @return whether datagrams are being spooled now (the downstream was not ready, or the spool is draining). */
    public boolean spooling() {
        return spooling;
    }

    /** @return seconds since spooling began, 0 when not spooling. */
    public double spoolingSeconds() {
        long s = spooledSince;
        return s == 0 ? 0 : (System.nanoTime() - s) / 1e9;
    }

    /** @return datagrams delivered directly. */
    public long direct() {
        return direct.sum();
    }

    /** @return datagrams lost: the spool was full, or no spool was configured while the downstream was away. */
    public long lost() {
        return lost.sum();
    }

    /** @return datagrams spooled since start, over every queue. */
    public long spooled() {
        return spooled.sum();
    }

    /** @return datagrams replayed from the spool to the downstream since start. */
    public long replayed() {
        return replayed.sum();
    }

    /** @return datagrams held on disk now. */
    public long heldDatagrams() {
        long n = 0;
        for (DatagramSpool q : snapshot()) {
            n += q.records();
        }
        return n;
    }

    /** @return bytes held on disk now (records with their headers). */
    public long heldBytes() {
        return held.get();
    }

    /** @return the spool directory, or null. */
    public Path directory() {
        return settings.directory;
    }

    /** @return the most bytes the spool holds. */
    public long maxBytes() {
        return settings.maxBytes;
    }

    /** Stops the drain thread (nothing more is delivered from the spool); what is spooled stays. */
    public void stopDrain() throws InterruptedException {
        running = false;
        drain.join(10_000);
    }

    /**
     * Waits until the spool is empty while the downstream is ready (for callers that flush everything, e.g. at the
     * end of a run), at most {@code timeoutMs}.
     *
     * @return true if nothing is spooled
     */
    public boolean awaitDrained(long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (spooling && running && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        return !spooling;
    }

    /** Stops the drain thread (what is spooled stays for the next run) and unmaps the queues. */
    @Override
    public void close() throws IOException, InterruptedException {
        stopDrain();
        long kept = heldDatagrams();
        for (DatagramSpool q : snapshot()) {
            q.close();
        }
        if (kept > 0) {
            log.info("spool {}: {} datagrams ({} bytes) kept for the next run", settings.directory, kept, held.get());
        }
        if (lockChannel != null) {
            if (kept == 0) {
                removeAll(); // nothing held: leave no files behind
            }
            lockChannel.close(); // releases the lock
        }
    }
}
