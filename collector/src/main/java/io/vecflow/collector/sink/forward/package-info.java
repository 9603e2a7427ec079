/**
 * Forwarding: raw datagrams re-sent unchanged to other collectors (nProbe/ntopng, Akvorado)
 * ({@link io.vecflow.collector.sink.forward.ForwardSink}).
 *
 * <p>May depend on {@code sink} only.
 */
package io.vecflow.collector.sink.forward;
