package io.vecflow.collector.enrich;

/** The current network attributes (GeoIP databases and networks), reloaded in the background, with its counters. */
public interface NetworkSource extends AutoCloseable {
    /** @return the current snapshot (cheap: a volatile read; called per row) */
    AddressLookup current();

    /** @return successful (re)loads */
    long reloads();

    /** @return failed reloads (the previous snapshot was kept) */
    long reloadFailures();

    /** @return intervals in the current snapshot */
    long intervals();

    /**
     * Registers a consumer of the AS names: called now with the current table's, and after each reload.
     *
     * @param listener AS number → name
     */
    void onAsNames(java.util.function.Consumer<java.util.Map<Long, io.vecflow.collector.schema.Label>> listener);

    /** Stops watching the files. */
    @Override
    void close();
}
