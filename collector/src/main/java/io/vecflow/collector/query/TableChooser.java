package io.vecflow.collector.query;

import io.vecflow.collector.query.QueryRunner.StoreException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Which table answers a graph, and at what interval (after Akvorado's {@code getBestTable}, console spec §3): the raw
 * table when the query needs a column the rollups do not keep ({@link Source#ROLLUP_COLUMNS}), else among the tables
 * whose data covers the range start (oldest {@code TimeReceived} at or before it, or, for a range that starts before
 * the stored data does, within an hour of the oldest row of any table), the coarsest whose resolution is at most
 * the target interval ((end − start) / points). The interval is the target rounded up to a multiple of the table's
 * resolution, the range start is aligned down to the resolution, and the end moved to a whole number of intervals.
 *
 * <p>The oldest time of each table is asked of the store once per {@code ttl} (one UNION ALL statement).
 */
public final class TableChooser {
    /** The flows tables and their resolutions in seconds, finest first. */
    static final List<Map.Entry<String, Long>> FLOWS_TABLES = List.of(Map.entry("flows", 1L),
            Map.entry("flows_1m", 60L), Map.entry("flows_5m", 300L), Map.entry("flows_1h", 3600L));

    /**
     * The choice.
     *
     * @param table the table name
     * @param rollup true for a rollup
     * @param interval bucket width in seconds (a multiple of the table's resolution)
     * @param start aligned range start, seconds
     * @param end aligned range end, seconds (start + buckets × interval)
     * @param buckets number of buckets
     */
    public record Choice(String table, boolean rollup, long interval, long start, long end, int buckets) {}

    private final QueryRunner runner;
    private final SqlBuilder sql;
    private final LongSupplier nanos;
    private final long ttlNanos;
    private final Duration timeout;
    private Map<String, Long> oldest;
    private long fetchedAt;

    /**
     * @param runner the store
     * @param sql the store's builder
     * @param nanos clock (System::nanoTime)
     * @param ttl how long the oldest times are kept
     * @param timeout each statement's timeout
     */
    public TableChooser(QueryRunner runner, SqlBuilder sql, LongSupplier nanos, Duration ttl, Duration timeout) {
        this.runner = runner;
        this.sql = sql;
        this.nanos = nanos;
        this.ttlNanos = ttl.toNanos();
        this.timeout = timeout;
    }

    /**
     * @param q the graph
     * @return the table, interval and aligned range
     * @throws StoreException when the oldest times cannot be read
     */
    public Choice choose(QueryModel.GraphQuery q) throws StoreException {
        double target = Math.max(1.0, (double) (q.end() - q.start()) / q.points());
        boolean rollupOk = q.source().rollups()
                && q.columnsUsed().stream().allMatch(Source.ROLLUP_COLUMNS::contains);
        String table = q.source().table();
        long res = 1;
        if (rollupOk) {
            Map<String, Long> old = oldest();
            // Where the stored data begins: a table whose data starts within an hour of it (the rollups round their
            // first row down to their resolution, at most an hour) covers a range that starts before the data does.
            long first = old.values().stream().min(Comparator.naturalOrder()).orElse(Long.MAX_VALUE);
            long covered = first == Long.MAX_VALUE ? q.start() : Math.max(q.start(), first + 3600);
            List<Map.Entry<String, Long>> cands = new ArrayList<>();
            for (var t : FLOWS_TABLES) {
                Long o = old.get(t.getKey());
                if (o != null && o <= covered) {
                    cands.add(t);
                }
            }
            if (cands.isEmpty()) {
                long min = old.values().stream().min(Comparator.naturalOrder()).orElse(Long.MAX_VALUE);
                for (var t : FLOWS_TABLES) {
                    Long o = old.get(t.getKey());
                    if (o == null ? old.isEmpty() : o <= min + 3600) {
                        cands.add(t);
                    }
                }
            }
            if (!cands.isEmpty()) {
                var best = cands.get(0);
                for (var t : cands) {
                    if (t.getValue() <= target) {
                        best = t;
                    }
                }
                table = best.getKey();
                res = best.getValue();
            }
        }
        long targetCeil = (long) Math.ceil((double) (q.end() - q.start()) / q.points());
        long interval = Math.max(res, (targetCeil + res - 1) / res * res);
        long start = Math.floorDiv(q.start(), res) * res;
        long buckets = Math.max(1, (q.end() - start + interval - 1) / interval);
        return new Choice(table, !table.equals(q.source().table()), interval, start, start + buckets * interval,
                (int) buckets);
    }

    /**
     * @return the oldest TimeReceived (seconds) of each non-empty flows table
     * @throws StoreException when the store cannot be asked
     */
    public synchronized Map<String, Long> oldest() throws StoreException {
        long now = nanos.getAsLong();
        if (oldest == null || now - fetchedAt > ttlNanos) {
            Map<String, Long> m = new HashMap<>();
            for (List<String> r : runner.query(sql.oldest(FLOWS_TABLES.stream().map(Map.Entry::getKey).toList()),
                    timeout)) {
                if (r.get(1) != null && !r.get(1).isEmpty()) {
                    long s = (long) Double.parseDouble(r.get(1));
                    if (s > 0) {
                        m.put(r.get(0), s);
                    }
                }
            }
            oldest = Map.copyOf(m);
            fetchedAt = now;
        }
        return oldest;
    }
}
