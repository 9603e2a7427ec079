package io.vecflow.collector.enrich;

import io.vecflow.collector.enrich.geoip.GeoIpDatabases;
import io.vecflow.collector.enrich.geoip.NetworkTable;
import io.vecflow.collector.schema.Label;
import io.vecflow.collector.schema.NetworkInfo;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/** The {@link NetworkSource} over {@link GeoIpDatabases}: each loaded {@link NetworkTable} behind the row's lookup. */
final class GeoIpSource implements NetworkSource {
    /** One table as the row path sees it. */
    private record Lookup(NetworkTable table) implements AddressLookup {
        @Override
        public NetworkInfo lookup(byte[] address16, int off) {
            return table.lookup(address16, off);
        }

        @Override
        public Label asName(long asn) {
            return table.asName(asn);
        }
    }

    private volatile Lookup current = new Lookup(NetworkTable.EMPTY);
    private final List<Consumer<Map<Long, Label>>> listeners = new CopyOnWriteArrayList<>();
    private final GeoIpDatabases databases;

    GeoIpSource(EnrichmentSettings s) throws IOException {
        databases = new GeoIpDatabases(s.asnDatabases, s.geoDatabases, s.networks,
                Duration.ofSeconds(s.reloadCheckSeconds), this::loaded);
        current = new Lookup(databases.table());
    }

    private void loaded(NetworkTable t) {
        current = new Lookup(t);
        for (Consumer<Map<Long, Label>> l : listeners) {
            l.accept(t.asNames());
        }
    }

    @Override
    public AddressLookup current() {
        return current;
    }

    @Override
    public long reloads() {
        return databases.reloads();
    }

    @Override
    public long reloadFailures() {
        return databases.reloadFailures();
    }

    @Override
    public long intervals() {
        return current.table().intervals();
    }

    @Override
    public void onAsNames(Consumer<Map<Long, Label>> listener) {
        listeners.add(listener);
        listener.accept(current.table().asNames());
    }

    @Override
    public void close() {
        databases.close();
    }
}
