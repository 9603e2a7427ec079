/**
 * L3 nodes: {@code ip4-input}/{@code ip6-input} (entering the unicast feature arcs), {@code ip4-lookup}/
 * {@code ip6-lookup} and {@code ip4-rewrite}/{@code ip6-rewrite}.
 *
 * <p>May depend on {@code graph}, {@code graph.mem}, {@code vnet.error}, {@code vnet.interfaces}, {@code vnet.fib}.
 */
package io.vecflow.dataplane.vnet.ip;
