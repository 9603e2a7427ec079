/**
 * L2 nodes: {@code ethernet-input} (EtherType dispatch) and {@code l2-xconnect}.
 *
 * <p>May depend on {@code graph}, {@code vnet.error}, {@code vnet.interfaces} and {@code vnet.ip} (next-node names).
 */
package io.vecflow.dataplane.vnet.ethernet;
