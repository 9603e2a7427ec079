package io.vecflow.collector.enrich.geoip;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The current {@link NetworkTable} of a set of GeoIP files and configured networks, rebuilt when a file changes.
 * A daemon thread checks the files every poll interval (size, modification time and file key — an inode, so that a
 * file replaced by a rename is seen even with the same size and time); on a change it rebuilds the table in the
 * background and swaps it in at once (a volatile reference: a reader sees the old table or the new one, whole).
 *
 * <p>A failed rebuild (a file missing, cut short, corrupt) keeps the previous table; it is logged once and counted
 * once per state of the files that failed ({@link #reloadFailures()}, {@link #lastError()}), and tried again when a
 * file changes again. A file still being written may so be seen half-written: writers should write beside the file
 * and rename it over (as GeoIP updaters do). The listener is called after the first load and after each successful
 * reload, on the thread that built the table; what it throws is logged.
 */
public final class GeoIpDatabases implements AutoCloseable {
    /** Default time between two checks of the files. */
    public static final Duration DEFAULT_POLL = Duration.ofSeconds(10);

    private static final Logger LOG = LoggerFactory.getLogger(GeoIpDatabases.class);

    private final List<Path> asnDatabases;
    private final List<Path> geoDatabases;
    private final List<StaticNetwork> networks;
    private final Consumer<NetworkTable> listener;
    private final long pollNanos;
    private final Thread watcher;
    private final AtomicLong reloads = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private volatile NetworkTable table;
    private volatile String lastError;
    private volatile boolean closed;
    private List<Object> seen;

    /**
     * Loads the files now and checks them every {@link #DEFAULT_POLL}, with no listener.
     *
     * @see #GeoIpDatabases(List, List, List, Duration, Consumer)
     */
    public GeoIpDatabases(List<Path> asnDatabases, List<Path> geoDatabases, List<StaticNetwork> networks)
            throws IOException {
        this(asnDatabases, geoDatabases, networks, DEFAULT_POLL, null);
    }

    /**
     * Loads the files now; watches them when there are any and {@code poll} is positive.
     *
     * @param asnDatabases AS databases (see {@link NetworkTableBuilder#build})
     * @param geoDatabases country databases
     * @param networks configured networks (fixed for the life of this object)
     * @param poll time between checks of the files; zero or negative: never reload
     * @param listener called with each table built (the first included), or null
     * @throws IOException naming the file, when one is missing, unreadable or corrupt at start
     * @throws IllegalArgumentException for a bad configured network (naming its source)
     */
    public GeoIpDatabases(List<Path> asnDatabases, List<Path> geoDatabases, List<StaticNetwork> networks,
            Duration poll, Consumer<NetworkTable> listener) throws IOException {
        this.asnDatabases = List.copyOf(asnDatabases);
        this.geoDatabases = List.copyOf(geoDatabases);
        this.networks = List.copyOf(networks);
        this.listener = listener;
        this.pollNanos = poll.toNanos();
        for (Path p : all()) {
            if (!Files.exists(p)) {
                throw new IOException((this.asnDatabases.contains(p) ? "ASN" : "GeoIP country") + " database " + p
                        + ": no such file");
            }
        }
        this.seen = signatures();
        long t0 = System.nanoTime();
        this.table = NetworkTableBuilder.build(this.asnDatabases, this.geoDatabases, this.networks);
        LOG.info("GeoIP: loaded {} in {} ms", table, (System.nanoTime() - t0) / 1_000_000);
        notifyListener(table);
        if (pollNanos > 0 && !all().isEmpty()) {
            watcher = Thread.ofPlatform().daemon().name("vecflow-geoip-watch").unstarted(this::watch);
            watcher.start();
        } else {
            watcher = null;
        }
    }

    private List<Path> all() {
        List<Path> all = new ArrayList<>(asnDatabases);
        all.addAll(geoDatabases);
        return all;
    }

    /** @return the table in force (never null) */
    public NetworkTable table() {
        return table;
    }

    /** @return successful rebuilds after the first load */
    public long reloads() {
        return reloads.get();
    }

    /** @return failed rebuilds (each state of the files that failed counts once) */
    public long reloadFailures() {
        return failures.get();
    }

    /** @return the message of the latest failed rebuild, or null when none failed (kept after a later success) */
    public String lastError() {
        return lastError;
    }

    private void watch() {
        while (!closed) {
            try {
                Thread.sleep(Duration.ofNanos(pollNanos));
            } catch (InterruptedException e) {
                return;
            }
            if (!closed) {
                check();
            }
        }
    }

    /** One check: rebuilds when the files differ from the last state seen. */
    void check() {
        List<Object> now = signatures();
        if (now.equals(seen)) {
            return;
        }
        seen = now;
        long t0 = System.nanoTime();
        try {
            NetworkTable t = NetworkTableBuilder.build(asnDatabases, geoDatabases, networks);
            table = t;
            reloads.incrementAndGet();
            LOG.info("GeoIP: reloaded {} in {} ms", t, (System.nanoTime() - t0) / 1_000_000);
            notifyListener(t);
        } catch (IOException | RuntimeException e) {
            if (closed) {
                return; // interrupted by close()
            }
            failures.incrementAndGet();
            lastError = e.getMessage();
            LOG.warn("GeoIP: reload failed, keeping the previous table: {}", e.getMessage());
        }
    }

    private void notifyListener(NetworkTable t) {
        if (listener == null) {
            return;
        }
        try {
            listener.accept(t);
        } catch (RuntimeException e) {
            LOG.warn("GeoIP: the table listener failed: {}", e.toString());
        }
    }

    /** @return per file: size, modification time and file key, or "missing" */
    private List<Object> signatures() {
        List<Object> s = new ArrayList<>();
        for (Path p : all()) {
            try {
                BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
                s.add(List.of(a.size(), a.lastModifiedTime(), Objects.requireNonNullElse(a.fileKey(), "")));
            } catch (NoSuchFileException e) {
                s.add("missing");
            } catch (IOException e) {
                s.add("unreadable: " + e.getMessage());
            }
        }
        return s;
    }

    /** Stops watching (waits up to a second for the watcher thread); the last table stays usable. */
    @Override
    public void close() {
        closed = true;
        if (watcher != null) {
            watcher.interrupt();
            try {
                watcher.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
