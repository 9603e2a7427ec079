package io.vecflow.collector.sink.clickhouse;

import io.vecflow.collector.schema.FlowSchema;
import io.vecflow.collector.sink.StreamOffsets;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The batching and retry of one table of a {@link ClickHouseSink}: its queued rows. {@code active} takes appends; a
 * flush swaps it with {@code spare} and inserts that; a batch whose insert failed stays in {@code spare}
 * ({@code retry}) and is retried before the next swap, so rows land in the order they came and none is dropped.
 */
final class TableBatch {
    private static final Logger log = LoggerFactory.getLogger(ClickHouseSink.class); // the sink's log
    private final ClickHouseSink sink;
    final FlowSchema.Table table;
    final String qualified;
    final List<String> columns;
    final ReentrantLock appendLock = new ReentrantLock();
    final ReentrantLock flushLock = new ReentrantLock();
    RowBinaryWriter active = new RowBinaryWriter(1 << 16);
    RowBinaryWriter spare = new RowBinaryWriter(1 << 16);
    StreamOffsets activeMax = new StreamOffsets(); // per stream, the greatest offset in active
    StreamOffsets spareMax = new StreamOffsets();
    final StreamOffsets watermarks = new StreamOffsets(); // guarded by appendLock
    volatile int inFlightBytes;
    volatile boolean retry; // spare holds a batch whose insert failed (guarded by flushLock for writes)
    volatile long retryRows;
    boolean maybeStored; // the failed attempt may have landed: ask before inserting again
    long nextAttemptNanos, backoffNanos;
    long firstRowNanos; // when active got its first row since the last swap (guarded by appendLock)
    final AtomicLong written = new AtomicLong(), inserts = new AtomicLong(), foundStored = new AtomicLong(),
            insertFailures = new AtomicLong(), released = new AtomicLong();
    final LongAdder replaySkipped = new LongAdder();
    volatile long lastInsertNanos, lastSuccessNanos;

    TableBatch(ClickHouseSink sink, FlowSchema.Table table) {
        this.sink = sink;
        this.table = table;
        this.qualified = sink.database() + "." + table.name();
        this.columns = table.columnNames();
    }

    /** Under appendLock: false (counted) if the row is a replay of one the table holds. */
    boolean admit(long stream, long offset) {
        if (watermarks.size() > 0 && offset <= watermarks.get(stream)) {
            replaySkipped.increment();
            return false;
        }
        if (active.rows() == 0) {
            firstRowNanos = System.nanoTime();
        }
        return true;
    }

    /** Under appendLock, after a row was written. */
    void appended(long stream, long offset) {
        activeMax.max(stream, offset);
    }

    void flushIfFull() {
        if (sink.settings.autoFlush && !retry && active.rows() >= sink.settings.batchRows && !flushLock.isLocked()) {
            sink.timer.execute(sink::flushQuietly);
        }
    }

    /** For the timer: rows waited flushMs, a batch is full, or a retry is due after its backoff. */
    boolean dueForTimedFlush(long now) {
        if (retry || !sink.connected) {
            return (retry || active.rows() > 0) && now - nextAttemptNanos >= 0;
        }
        int rows = active.rows();
        return rows >= sink.settings.batchRows || rows > 0 && now - firstRowNanos >= sink.settings.flushMs * 1_000_000L;
    }

    long pendingBytes() {
        return (long) active.size() + inFlightBytes;
    }

    void loadWatermarks(long[] streams) throws IOException {
        if (streams.length == 0) {
            return;
        }
        StreamOffsets loaded = sink.storedMax(qualified, streams, 0);
        appendLock.lock();
        try {
            watermarks.clear();
            for (long s : streams) {
                long o = loaded.get(s);
                if (o >= 0) {
                    watermarks.max(s, o);
                }
            }
        } finally {
            appendLock.unlock();
        }
    }

    void release() {
        flushLock.lock();
        try {
            appendLock.lock();
            try {
                released.addAndGet(active.rows() + (retry ? spare.rows() : 0));
                active.reset();
                activeMax.clear();
                if (retry) {
                    spare.reset();
                    spareMax.clear();
                    retry = false;
                    retryRows = 0;
                    inFlightBytes = 0;
                }
            } finally {
                appendLock.unlock();
            }
        } finally {
            flushLock.unlock();
        }
    }

    void flush() throws IOException {
        flushLock.lock();
        try {
            if (retry) {
                insertSpareOnceMore(); // throws if it fails again: active waits behind it
            }
            appendLock.lock();
            try {
                if (active.rows() == 0) {
                    return;
                }
                RowBinaryWriter batch = active;
                active = spare;
                spare = batch;
                StreamOffsets batchMax = activeMax;
                activeMax = spareMax;
                spareMax = batchMax;
                inFlightBytes = batch.size();
                maybeStored = false;
            } finally {
                appendLock.unlock();
            }
            insertSpareOnceMore();
        } finally {
            flushLock.unlock();
        }
    }

    /**
     * Under flushLock: inserts {@code spare}, and once more after 200 ms if the server answered but the attempt
     * failed (a lost answer, a moment's overload); throws, keeping the batch, if that fails too.
     */
    private void insertSpareOnceMore() throws IOException {
        try {
            insertSpare();
        } catch (IOException e) {
            if (!sink.connected || sink.closed) {
                throw e;
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw e;
            }
            insertSpare();
        }
    }

    /** Under flushLock: inserts {@code spare}; on failure keeps it for a retry and throws. */
    private void insertSpare() throws IOException {
        int rows = spare.rows();
        try {
            if (!sink.connected) {
                throw new IOException("not connected" + (sink.lastError.isEmpty() ? "" : ": " + sink.lastError));
            }
            if (maybeStored && stored(spareMax)) {
                foundStored.incrementAndGet();
            } else {
                long t0 = System.nanoTime();
                sink.insert(qualified, columns, spare);
                if (sink.failAfterInsertForTest > 0) {
                    sink.failAfterInsertForTest--;
                    throw new IOException("injected: the insert landed but its answer was lost");
                }
                lastInsertNanos = System.nanoTime() - t0;
                inserts.incrementAndGet();
            }
        } catch (Exception e) {
            insertFailures.incrementAndGet();
            maybeStored = sink.connected; // an insert that was sent may have landed (answer lost, timeout)
            retry = true;
            retryRows = rows;
            long now = System.nanoTime();
            backoffNanos = backoffNanos == 0 ? 500_000_000L : Math.min(backoffNanos * 2, 30_000_000_000L);
            nextAttemptNanos = now + backoffNanos;
            sink.lastError = ClickHouseSink.rootMessage(e);
            sink.warn.warn("insert-" + table.name(), "insert of {} rows into {} failed, kept for a retry (at most "
                    + "every 30 s; nothing is dropped): {}", rows, qualified, sink.lastError);
            throw new IOException("insert of " + rows + " rows into " + qualified + " failed: " + sink.lastError, e);
        }
        if (retry) {
            log.info("insert into {} works again: {} kept rows stored", qualified, rows);
            sink.warn.reset("insert-" + table.name());
        }
        written.addAndGet(rows);
        lastSuccessNanos = System.nanoTime();
        retry = false;
        retryRows = 0;
        backoffNanos = 0;
        spare.reset();
        spareMax.clear();
        inFlightBytes = 0;
    }

    /** Whether an insert that reported failure stored the batch anyway: every stream's offset is there. */
    private boolean stored(StreamOffsets batchMax) throws IOException {
        long[] streams = batchMax.streams();
        if (streams.length == 0) {
            return false;
        }
        StreamOffsets there = sink.storedMax(qualified, streams, 0);
        for (long s : streams) {
            if (there.get(s) < batchMax.get(s)) {
                return false;
            }
        }
        return true;
    }
}
