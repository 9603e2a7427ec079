package io.vecflow.collector.query;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The table choice (after Akvorado's getBestTable) over given oldest times per table, as the store would answer
 * {@link SqlBuilder#oldest}: the real stores' answers are checked by ConsoleQueryStoresTest and ConsoleApiDuckDbTest.
 */
class TableChooserTest {
    private static final Source FLOWS = Source.named("flows");
    private static final long DAY = 86_400;

    /** A chooser whose store holds data from these oldest times on. */
    private static TableChooser chooser(Map<String, Long> oldest) {
        QueryRunner runner = (sql, timeout) -> {
            List<List<String>> rows = new ArrayList<>();
            oldest.forEach((t, s) -> rows.add(List.of(t, Long.toString(s))));
            return rows;
        };
        return new TableChooser(runner, new SqlBuilder(SqlDialect.duckDb()), System::nanoTime, Duration.ofSeconds(30),
                Duration.ofSeconds(5));
    }

    private static QueryModel.GraphQuery graph(long start, long end, int points, String... dims) {
        List<QueryColumn> d = new ArrayList<>();
        for (String n : dims) {
            d.add(FLOWS.column(n));
        }
        return new QueryModel.GraphQuery(FLOWS, start, end, d, null, null, "bps", 10, QueryModel.LimitType.AVG,
                points, false);
    }

    @Test
    void aRangeThatStartsBeforeTheDataStillGetsTheResolutionItAsksFor() throws Exception {
        // one demo run: 25 s of rows from 1,000,000,025; the rollups rounded their first rows down
        long t0 = 1_000_000_025L;
        TableChooser c = chooser(Map.of("flows", t0, "flows_1m", t0 / 60 * 60, "flows_5m", t0 / 300 * 300,
                "flows_1h", t0 / 3600 * 3600));
        TableChooser.Choice fine = c.choose(graph(t0 / 60 * 60, t0 / 60 * 60 + 240, 200, "Proto"));
        assertThat(fine.table()).isEqualTo("flows");
        assertThat(fine.interval()).isEqualTo(2);
        assertThat(fine.buckets()).isEqualTo(120);
        // a day of it at 200 points: the coarsest rollup at most 432 s
        TableChooser.Choice day = c.choose(graph(t0 - DAY, t0 + 3600, 200, "Proto"));
        assertThat(day.table()).isEqualTo("flows_5m");
        assertThat(day.interval()).isEqualTo(600);
        assertThat(day.rollup()).isTrue();
    }

    @Test
    void theRawTableIsPassedOverWhereItsRetentionEndedAndChosenWhereTheRollupsLackAColumn() throws Exception {
        long now = 2_000_000_000L;
        // raw rows kept 15 days, rollups a year
        TableChooser c = chooser(Map.of("flows", now - 15 * DAY, "flows_1m", now - 365 * DAY, "flows_5m",
                now - 365 * DAY, "flows_1h", now - 365 * DAY));
        TableChooser.Choice old = c.choose(graph(now - 100 * DAY, now - 100 * DAY + 600, 200, "Proto"));
        assertThat(old.table()).as("100 days ago: the raw rows are gone").isEqualTo("flows_1m");
        TableChooser.Choice recent = c.choose(graph(now - 3600, now, 200, "Proto"));
        assertThat(recent.table()).isEqualTo("flows");
        assertThat(recent.interval()).isEqualTo(18);
        TableChooser.Choice addresses = c.choose(graph(now - 7 * DAY, now, 200, "SrcAddr"));
        assertThat(addresses.table()).as("SrcAddr is not in the rollups").isEqualTo("flows");
        assertThat(addresses.rollup()).isFalse();
        assertThat(addresses.interval()).isEqualTo(3024);
    }
}
