package io.vecflow.collector.sink.clickhouse;

import io.vecflow.collector.schema.FlowSchema;
import java.io.IOException;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retention for servers without TTL (ClickHouse before 19.6, e.g. Debian's 18.16): drops whole partitions older
 * than each table's retention. Partitions are days ({@code toYYYYMMDD}, id {@code yyyymmdd}) or months
 * ({@code toYYYYMM}, id {@code yyyymm}); a month is dropped only once its last day is older than the retention, so
 * data is kept at least as long as a TTL would keep it. The collector runs it 10 minutes after start, then hourly.
 */
public final class Retention {
    private static final Logger log = LoggerFactory.getLogger(Retention.class);
    private final ClickHouseSink sink;
    private final String db;
    private final Map<String, Integer> ttlDays;
    private long partitionsDropped;

    Retention(ClickHouseSink sink, String database, Map<String, Integer> ttlDays) {
        this.sink = sink;
        this.db = database;
        this.ttlDays = ttlDays;
    }

    void runQuietly() {
        try {
            run(LocalDate.now(ZoneOffset.UTC));
        } catch (IOException | RuntimeException e) {
            log.warn("partition retention failed: {}", e.getMessage());
        }
    }

    /**
     * Drops every partition wholly older than its table's retention, as of {@code today} (UTC).
     *
     * @return the partitions dropped, as {@code table/partition}
     * @throws IOException if a query or a DROP PARTITION fails
     */
    public synchronized List<String> run(LocalDate today) throws IOException {
        List<String> dropped = new ArrayList<>();
        for (FlowSchema.Table t : FlowSchema.TABLES) {
            int days = ttlDays.getOrDefault(t.name(), t.ttlDays());
            LocalDate cutoff = today.minusDays(days);
            for (String[] r : sink.queryRows("SELECT DISTINCT partition FROM system.parts WHERE database = '" + db
                    + "' AND table = '" + t.name() + "' AND active FORMAT TabSeparated")) {
                String id = r[0].replace("'", "");
                LocalDate last = lastDay(id);
                if (last != null && last.isBefore(cutoff)) {
                    sink.execute("ALTER TABLE " + db + "." + t.name() + " DROP PARTITION " + id);
                    dropped.add(t.name() + "/" + id);
                }
            }
        }
        partitionsDropped += dropped.size();
        if (!dropped.isEmpty()) {
            log.info("retention dropped partitions {}", dropped);
        }
        return dropped;
    }

    /** @return partitions dropped since start. */
    public synchronized long partitionsDropped() {
        return partitionsDropped;
    }

    /** @return the last day a partition id covers, or null if it is not a yyyymmdd/yyyymm number. */
    static LocalDate lastDay(String id) {
        try {
            if (id.length() == 8) {
                return LocalDate.of(Integer.parseInt(id.substring(0, 4)), Integer.parseInt(id.substring(4, 6)),
                        Integer.parseInt(id.substring(6, 8)));
            }
            if (id.length() == 6) {
                LocalDate first = LocalDate.of(Integer.parseInt(id.substring(0, 4)),
                        Integer.parseInt(id.substring(4, 6)), 1);
                return first.plusMonths(1).minusDays(1);
            }
        } catch (RuntimeException e) {
            return null;
        }
        return null;
    }
}
