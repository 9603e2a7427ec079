/**
 * Interfaces: the {@link io.vecflow.dataplane.vnet.interfaces.Port} contract and its counters, the
 * {@link io.vecflow.dataplane.vnet.interfaces.InterfaceTable} (names, MACs, MTUs, cross-connects, OSINDEX), and the
 * interface nodes {@code port-input}, {@code interface-output}, {@code port-output}.
 *
 * <p>May depend on {@code graph} and {@code vnet.error}.
 */
package io.vecflow.dataplane.vnet.interfaces;
