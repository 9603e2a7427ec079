package io.vecflow.collector.sink.clickhouse;

import io.vecflow.collector.schema.FlowSchema;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates and migrates vecflow's ClickHouse schema ({@link FlowSchema}) at collector start, idempotently:
 * <ol>
 *   <li>the database and {@code schema_migrations} (one row per applied versioned migration);</li>
 *   <li>versioned migrations that must run before tables are created (renames);</li>
 *   <li>{@code CREATE TABLE IF NOT EXISTS} for every table, then {@code ADD COLUMN} for columns a table lacks
 *       (existing rows get defaults; nothing is dropped or rewritten);</li>
 *   <li>{@code CREATE MATERIALIZED VIEW IF NOT EXISTS} for every view;</li>
 *   <li>versioned migrations that move or backfill data, each recorded once done.</li>
 * </ol>
 * A schema change therefore never loses data: rows move (INSERT … SELECT) before their old home is cleared, and a
 * rollup's order key grows in place ({@code ADD COLUMN … MODIFY ORDER BY}, migrations 4 and 5). Run one
 * collector first when upgrading several at once (the versioned steps are not locked against concurrent starts).
 */
public final class SchemaMigrator {
    private static final Logger log = LoggerFactory.getLogger(SchemaMigrator.class);

    /** A versioned migration. */
    record Migration(int version, String description, boolean beforeTables, Step step) {}

    /** The body of a migration. */
    interface Step {
        void run(SchemaMigrator m) throws IOException;
    }

    /** Versioned migrations in order; never edit one that has shipped, add a new one. */
    static final List<Migration> MIGRATIONS = List.of(
            new Migration(1, "agent_loss renamed to agents", true, m -> {
                Set<String> tables = m.sink.tables();
                if (tables.contains("agent_loss")) {
                    if (!tables.contains("agents")) {
                        m.exec("RENAME TABLE " + m.db + ".agent_loss TO " + m.db + ".agents");
                    } else {
                        m.exec("INSERT INTO " + m.db + ".agents SELECT * FROM " + m.db + ".agent_loss");
                        m.exec("DROP TABLE " + m.db + ".agent_loss");
                    }
                }
            }),
            new Migration(2, "discard samples move from flows to drops", false, m -> {
                String cols = String.join(", ", FlowSchema.table("flows").columnNames());
                long n = m.count("flows", "SampleType = 1");
                if (n > 0) {
                    m.exec("INSERT INTO " + m.db + ".drops (" + cols + ") SELECT " + cols + " FROM " + m.db
                            + ".flows WHERE SampleType = 1");
                    m.exec("ALTER TABLE " + m.db + ".flows DELETE WHERE SampleType = 1");
                    log.info("moved {} discard rows from {}.flows to {}.drops", n, m.db, m.db);
                }
            }),
            new Migration(3, "rollups backfilled from flows", false, m -> {
                if (m.count("flows", "SampleType = 0") > 0) {
                    for (FlowSchema.View v : FlowSchema.VIEWS) {
                        if (v.target().startsWith("flows_")) {
                            m.exec("INSERT INTO " + m.db + "." + v.target() + " "
                                    + v.selectWhere("SampleType = 0").replace("{db}", m.db));
                        }
                    }
                }
            }),
            new Migration(4, "rollups keyed by Direction, their views re-created", true, m -> {
                // Before the tables step: there, flows and drops get Direction by ADD COLUMN (its DEFAULT computes it
                // for the rows already stored) and the views are created again, now passing Direction on. A rollup
                // needs the column in its SummingMergeTree key, which ADD COLUMN alone would not give.
                // The old views are dropped whether or not this run altered their rollup: a run cut short after the
                // ALTER repeats the step, and an old view into a rollup that has Direction fails every insert into
                // flows on 18.16 ("Expected column Direction").
                Set<String> tables = m.sink.tables();
                for (FlowSchema.View v : FlowSchema.VIEWS) {
                    if (!v.target().startsWith("flows_") || !tables.contains(v.target())) {
                        continue;
                    }
                    if (!m.sink.columnsOf(v.target()).contains("Direction")) {
                        m.exec(FlowSchema.addRollupDirection(m.db, v.target(), m.features));
                        log.info("{}.{}: Direction appended to the key", m.db, v.target());
                    }
                    if (tables.contains(v.name())) {
                        // Holds no rows (TO table); rows inserted into flows between this and its re-creation a few
                        // statements later reach no rollup.
                        m.exec("DROP TABLE " + m.db + "." + v.name());
                    }
                }
            }),
            new Migration(5, "rollups keyed by the enrichment dimensions, their views re-created", true, m -> {
                // As migration 4: flows and drops get the enrichment columns by ADD COLUMN in the tables step; a
                // rollup needs them in its key. Rows stored before get empty names and undefined boundaries.
                Set<String> tables = m.sink.tables();
                for (FlowSchema.View v : FlowSchema.VIEWS) {
                    if (!v.target().startsWith("flows_") || !tables.contains(v.target())) {
                        continue;
                    }
                    if (!m.sink.columnsOf(v.target()).contains(FlowSchema.ROLLUP_ENRICHMENT.getFirst())) {
                        m.exec(FlowSchema.addRollupEnrichment(m.db, v.target(), m.features));
                        log.info("{}.{}: {} appended to the key", m.db, v.target(), FlowSchema.ROLLUP_ENRICHMENT);
                    }
                    if (tables.contains(v.name())) {
                        m.exec("DROP TABLE " + m.db + "." + v.name());
                    }
                }
            }),
            new Migration(6, "rollup views aggregate each insert block (GROUP BY), re-created", true, m -> {
                // The tables stay; the views step creates the new views. Rows inserted into flows by another
                // collector between the drop and the create miss the rollups (upgrade one collector first).
                Set<String> tables = m.sink.tables();
                for (FlowSchema.View v : FlowSchema.VIEWS) {
                    if (v.target().startsWith("flows_") && tables.contains(v.name())) {
                        m.exec("DROP TABLE " + m.db + "." + v.name());
                    }
                }
            }));

    private final ClickHouseSink sink;
    private final String db;
    private final FlowSchema.ServerFeatures features;
    private final Map<String, Integer> ttlDays;
    private final List<String> applied = new ArrayList<>();
    private final List<FlowSchema.Table> tables = new ArrayList<>(FlowSchema.TABLES);

    SchemaMigrator(ClickHouseSink sink, String database, FlowSchema.ServerFeatures features,
            Map<String, Integer> ttlDays, List<FlowSchema.Table> extraTables) {
        tables.addAll(extraTables);
        this.sink = sink;
        this.db = database;
        this.features = features;
        this.ttlDays = ttlDays;
    }

    /**
     * Brings the database to the current schema.
     *
     * @return descriptions of what was done (statements of additive changes, versioned migrations applied)
     * @throws IOException if the server refuses a statement
     */
    List<String> migrate() throws IOException {
        exec("CREATE DATABASE IF NOT EXISTS " + db);
        exec("CREATE TABLE IF NOT EXISTS " + db + ".schema_migrations (Version UInt32, Description String, "
                + "AppliedAt DateTime) ENGINE = MergeTree ORDER BY Version");
        Set<Integer> done = new HashSet<>();
        for (String[] r : sink.queryRows("SELECT Version FROM " + db + ".schema_migrations FORMAT TabSeparated")) {
            done.add(Integer.parseInt(r[0]));
        }
        runMigrations(done, true);
        for (FlowSchema.Table t : tables) {
            exec(FlowSchema.createTable(db, t, features, ttlDays.getOrDefault(t.name(), t.ttlDays())));
            for (String alter : FlowSchema.addMissingColumns(db, t, sink.columnsOf(t.name()), features)) {
                exec(alter);
                applied.add(alter);
                log.info("migrated {}.{}: {}", db, t.name(), alter);
            }
        }
        for (FlowSchema.View v : FlowSchema.VIEWS) {
            exec(FlowSchema.createView(db, v));
        }
        runMigrations(done, false);
        return applied;
    }

    private void runMigrations(Set<Integer> done, boolean beforeTables) throws IOException {
        for (Migration m : MIGRATIONS) {
            if (m.beforeTables() == beforeTables && !done.contains(m.version())) {
                m.step().run(this);
                exec("INSERT INTO " + db + ".schema_migrations (Version, Description, AppliedAt) VALUES ("
                        + m.version() + ", '" + m.description().replace("'", "''") + "', now())");
                applied.add("migration " + m.version() + ": " + m.description());
                log.debug("schema migration {} applied: {}", m.version(), m.description());
            }
        }
    }

    private void exec(String sql) throws IOException {
        sink.execute(sql);
    }

    private long count(String table, String where) throws IOException {
        String s = sink.queryString("SELECT count() FROM " + db + "." + table + " WHERE " + where
                + " FORMAT TabSeparated").trim();
        return Long.parseLong(s);
    }
}
