/**
 * Port implementations of the {@link io.vecflow.dataplane.vnet.interfaces.Port} contract: AF_PACKET
 * (TPACKET_V3 rings, fanout, vnet headers and GSO segmentation), pcap replay, generator, sink.
 *
 * <p>May depend on {@code graph}, {@code graph.mem} and {@code vnet}; never on {@code plugins} or above.
 */
package io.vecflow.dataplane.port;
