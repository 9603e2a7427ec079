/**
 * Network nodes and state (VPP's vnet), in subpackages: drop accounting ({@code error}), interfaces and the port
 * contract ({@code interfaces}), forwarding state ({@code fib}), L3 nodes ({@code ip}), L2 nodes ({@code ethernet}).
 *
 * <p>May depend on {@code graph} and {@code graph.mem}; never on {@code port}, {@code plugins} or above.
 */
package io.vecflow.dataplane.vnet;
