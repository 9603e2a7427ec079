/**
 * What the agent's modules share: the datagram being filled ({@link io.vecflow.hsflowd.datagram.PendingDatagram}:
 * datagram sequence, uptime, the 1 s flush, counters and discard samples) and the per-data-source sampler state
 * ({@link io.vecflow.hsflowd.datagram.Samplers}, {@link io.vecflow.hsflowd.datagram.SamplerState}).
 *
 * <p>May depend on {@code net} (the sender) and {@code config}.
 */
package io.vecflow.hsflowd.datagram;
