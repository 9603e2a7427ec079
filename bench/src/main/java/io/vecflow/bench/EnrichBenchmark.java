package io.vecflow.bench;

import io.vecflow.collector.enrich.Enricher;
import io.vecflow.collector.enrich.Enrichment;
import io.vecflow.collector.enrich.EnrichmentStats;
import io.vecflow.collector.schema.FlowRow;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The enrichment cost per row with every enricher on ({@link BenchEnrichment#full}: static metadata, exporter and
 * interface classifiers, networks, AS and country databases, AS names): {@link Enricher#enrich} over the flow rows the
 * REPLAY datagrams decode to, cycled; the cache-hit path (metadata and tables loaded in setup). One operation = one
 * row: the score is ns/row, {@code gc.alloc.rate.norm} bytes per row (goal ≤ 200 ns, 0 B).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
public class EnrichBenchmark extends QuietGate {
    private FlowRow[] rows;
    private int next;
    private Enricher enricher;

    /** Decodes the rows and opens the enrichment stage, then enriches every row once (fills the cache). */
    @Setup(Level.Trial)
    public void load() throws IOException {
        List<FlowRow> r = BenchEnrichment.rows(BenchData.Mix.REPLAY);
        rows = r.toArray(new FlowRow[0]);
        enricher = Enrichment.open(BenchEnrichment.full(BenchData.Mix.REPLAY), new EnrichmentStats());
        for (FlowRow row : rows) {
            enricher.enrich(row);
        }
    }

    /** Closes the enrichment stage. */
    @TearDown(Level.Trial)
    public void close() {
        enricher.close();
    }

    /** Enriches the next row. @return the row (consumed by JMH) */
    @Benchmark
    public FlowRow enrich() {
        int i = next;
        next = i + 1 == rows.length ? 0 : i + 1;
        FlowRow r = rows[i];
        enricher.enrich(r);
        return r;
    }
}
