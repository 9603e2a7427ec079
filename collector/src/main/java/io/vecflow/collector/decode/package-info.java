/**
 * Decoding and enrichment: one datagram into rows ({@link io.vecflow.collector.decode.DatagramDecoder}: sFlow decode,
 * sampled-header parse, LB decision and counter records), loss accounting per agent
 * ({@link io.vecflow.collector.decode.LossTracker}), the shared counters
 * ({@link io.vecflow.collector.decode.CollectorStats}), and the JSON form of a whole datagram
 * ({@link io.vecflow.collector.decode.DatagramJsonWriter}).
 *
 * <p>May depend on {@code schema} and {@code sink} (the contracts), not on any sink implementation.
 */
package io.vecflow.collector.decode;
