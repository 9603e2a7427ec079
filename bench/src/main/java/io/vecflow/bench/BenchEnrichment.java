package io.vecflow.bench;

import io.vecflow.collector.decode.CollectorStats;
import io.vecflow.collector.enrich.Classifier;
import io.vecflow.collector.enrich.ClassifierRule;
import io.vecflow.collector.enrich.EnrichmentSettings;
import io.vecflow.collector.enrich.StaticExporter;
import io.vecflow.collector.enrich.geoip.StaticNetwork;
import io.vecflow.collector.inlet.DatagramProcessor;
import io.vecflow.collector.schema.FlowRow;
import io.vecflow.collector.sink.FlowSink;
import io.vecflow.common.IpAddresses;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * "Every enricher on" for the benchmarks: static metadata for every (agent, ifIndex) of the replayed datagrams, two
 * exporter and two interface classifier rules, a networks list, and the AS and country databases — the bundled
 * extracts of {@code testdata/geoip}, or the full real databases with {@code -Dvecflow.geoip.asn=FILE
 * -Dvecflow.geoip.geo=FILE} (README "Enrichment", {@code scripts/fetch-geoip.sh}).
 */
public final class BenchEnrichment {
    private BenchEnrichment() {}

    /**
     * @param mix the datagrams whose agents and interfaces get static metadata
     * @return the settings (databases copied to a temporary directory when bundled)
     * @throws IOException if a database cannot be read or copied
     */
    public static EnrichmentSettings full(BenchData.Mix mix) throws IOException {
        EnrichmentSettings s = new EnrichmentSettings();
        s.metadata.sources = List.of("static", "sflow");
        Map<String, Map<Long, StaticExporter.Interface>> seen = new LinkedHashMap<>();
        for (FlowRow r : rows(mix)) {
            var ifs = seen.computeIfAbsent(IpAddresses.toString(r.agentAddress, 0, 16), k -> new LinkedHashMap<>());
            for (long i : new long[] {r.inIf, r.outIf}) {
                if (i != 0) {
                    ifs.putIfAbsent(i, new StaticExporter.Interface("et-0/0/" + i, i % 2 == 0 ? "transit: acme-" + i
                            : "core: to core" + i, 100_000, "", "", ""));
                }
            }
        }
        int n = 0;
        for (var e : seen.entrySet()) {
            s.statics.add(new StaticExporter(e.getKey(), new StaticExporter.Exporter("edge" + n++ + ".par1", "", "",
                    "", "", ""), e.getValue(), null, 0));
        }
        s.exporterRules = Classifier.exporters(List.of(
                new ClassifierRule(Map.of("name", "^([a-z]+)\\d*\\.([a-z]+)\\d*$"), Map.of("role", "$1", "site",
                        "$2"), 0),
                new ClassifierRule(Map.of("address", "^192\\."), Map.of("group", "lab"), 0)), "bench");
        s.interfaceRules = Classifier.interfaces(List.of(
                new ClassifierRule(Map.of("description", "^(transit|pni|ix):\\s*(\\S+)"),
                        Map.of("connectivity", "$1", "provider", "$2", "boundary", "external"), 0),
                new ClassifierRule(Map.of(), Map.of("boundary", "internal"), 0)), "bench");
        s.networks.add(new StaticNetwork("10.0.0.0/8", "corp", "users", "par1", "eu-west", "", "", 0,
                "bench"));
        s.networks.add(new StaticNetwork("2001:db8::/32", "doc", "", "", "", "", "FR", 64500, "bench"));
        String asn = System.getProperty("vecflow.geoip.asn");
        String geo = System.getProperty("vecflow.geoip.geo");
        s.asnDatabases.add(asn != null ? Path.of(asn) : bundled("demo-asn.mmdb"));
        s.geoDatabases.add(geo != null ? Path.of(geo) : bundled("demo-country.mmdb"));
        return s;
    }

    private static Path bundled(String name) throws IOException {
        Path dir = Files.createTempDirectory("vecflow-bench-geoip");
        dir.toFile().deleteOnExit();
        Path f = dir.resolve(name);
        try (InputStream in = BenchEnrichment.class.getResourceAsStream("/testdata/geoip/" + name)) {
            if (in == null) {
                throw new IOException("testdata/geoip/" + name + " is not in the benchmarks jar");
            }
            Files.copy(in, f, StandardCopyOption.REPLACE_EXISTING);
        }
        f.toFile().deleteOnExit();
        return f;
    }

    /** @return a copy of every flow row the mix decodes to (no enrichment). */
    static List<FlowRow> rows(BenchData.Mix mix) {
        List<FlowRow> out = new ArrayList<>();
        CollectorStats st = new CollectorStats();
        FlowSink copy = new FlowSink() {
            @Override
            public void accept(FlowRow r) {
                out.add(new FlowRow().copyFrom(r));
            }

            @Override
            public void flush() {}

            @Override
            public long rowsWritten() {
                return out.size();
            }

            @Override
            public long rowsFailed() {
                return 0;
            }

            @Override
            public String name() {
                return "copy";
            }

            @Override
            public void close() {}
        };
        DatagramProcessor p = new DatagramProcessor(st.decode, st, List.of(), List.of(copy));
        byte[] peer = new byte[16];
        for (byte[] d : BenchData.sflowDatagrams(mix)) {
            p.process(d, 0, d.length, 1L, peer, 6343);
        }
        return out;
    }
}
