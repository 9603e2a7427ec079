/**
 * What several modules share and nothing of vecflow's domain: the libc bindings over FFM ({@link
 * io.vecflow.common.Libc}: sockets, open, setns, strerror; {@link io.vecflow.common.Errno}: errno names), {@link
 * io.vecflow.common.NetNamespace} (run a task inside a named network namespace), {@link
 * io.vecflow.common.LongObjectMap} (a primitive-keyed map for per-source state on sample paths) and {@link
 * io.vecflow.common.IpAddresses} (RFC 5952 address text).
 *
 * <p>Depends on the JDK only; every other module may use it.
 */
package io.vecflow.common;
