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

    /** Stops watching the files. */
    @Override
    void close();
}
