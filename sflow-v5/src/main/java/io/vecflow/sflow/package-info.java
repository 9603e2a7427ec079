/**
 * The sFlow v5 codec (docs/sflow.md): the model (datagram header, flow and counter samples, records),
 * the bounded XDR decoder ({@link io.vecflow.sflow.SflowDecoder} calling a {@link io.vecflow.sflow.SflowVisitor};
 * length-checked, unknown structures skipped, a sample or record failing inside its own length costs only itself),
 * the encoders that assemble datagrams under a byte budget ({@link io.vecflow.sflow.DatagramBuilder}), vecflow's
 * enterprise records for load-balancer decisions and counters, and the discard reason table. No sockets.
 *
 * <p>Depends on {@code io.vecflow.common} and {@code io.vecflow.packet}.
 */
package io.vecflow.sflow;
