package io.vecflow.collector.enrich;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A remote metadata source the cache asks in the background (SNMP): never called on the row path, never waited on.
 */
public interface MetadataPoller extends AutoCloseable {
    /**
     * What an exporter answered.
     *
     * @param sysName the exporter's name (empty when it has none)
     * @param interfaces ifIndex → what was found (name, description, speed in Mb/s)
     * @param notFound ifIndexes the exporter does not know
     */
    record Answer(String sysName, Map<Long, StaticExporter.Interface> interfaces, List<Long> notFound) {}

    /**
     * Asks an exporter for its name and the given interfaces.
     *
     * @param exporter the exporter's address (as its datagrams give it)
     * @param ifIndexes the interfaces wanted
     * @return completes with the answer, or exceptionally (timeout, refused, authentication) with a message naming the
     *     exporter
     */
    CompletableFuture<Answer> poll(InetAddress exporter, long[] ifIndexes);

    /** Releases sockets and threads. */
    @Override
    void close();
}
