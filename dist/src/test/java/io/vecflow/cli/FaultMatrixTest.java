package io.vecflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The short form of the collector's {@link FaultMatrix} (issue 17): every scenario with 8 s outages, 3,000
 * datagrams/s, a flood asking 300,000/s and a 30 s backlog, against its own ClickHouse and Kafka (ports
 * 38123/39000/39009 and 39092/39093, not the suite's), started and stopped here (about 7 minutes). Every goal
 * must be met: 0 lost and 0 duplicated except the inlet kill (loss = the agents gap) and the flood (loss = the
 * socket drops = the agents gap), the metrics showing each outage, memory under the caps. Fails loudly when
 * ClickHouse, the Kafka jars or a JDK are missing.
 */
class FaultMatrixTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(value = 15, unit = TimeUnit.MINUTES)
    void shortFormMeetsEveryGoal() throws Exception {
        FaultMatrix.Options o = new FaultMatrix.Options();
        o.plan = FaultMatrix.Plan.shortForm();
        o.out = dir;
        long t = System.nanoTime();
        List<FaultMatrix.Row> rows = FaultMatrix.run(o);
        String table = FaultMatrix.table(rows, o.plan, true);
        System.out.println(table);
        System.out.printf("fault matrix short form: %.0f s%n", (System.nanoTime() - t) / 1e9);
        assertThat(rows).extracting(FaultMatrix.Row::scenario).containsExactlyElementsOf(FaultMatrix.SCENARIOS);
        StringBuilder logs = new StringBuilder();
        for (FaultMatrix.Row r : rows) {
            if (!r.failures().isEmpty()) {
                for (String l : r.logs()) {
                    logs.append(FaultMatrix.tail(Path.of(l), 40)).append('\n');
                }
            }
        }
        assertThat(rows).as("%s%n%s", table, logs).allSatisfy(r -> assertThat(r.failures()).isEmpty());
    }
}
