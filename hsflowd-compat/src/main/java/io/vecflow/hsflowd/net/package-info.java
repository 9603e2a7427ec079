/**
 * The agent's network edge: the datagram sender ({@link io.vecflow.hsflowd.net.DatagramSender}: one shared UDP
 * socket, a socket of their own for collectors with {@code dev} or {@code namespace},
 * {@link io.vecflow.hsflowd.net.CollectorSocket}), agent address selection as hsflowd does it
 * ({@link io.vecflow.hsflowd.net.AgentAddressSelector} over an rtnetlink dump,
 * {@link io.vecflow.hsflowd.net.RtnetlinkAddresses}), and the privilege drop after every socket is open
 * ({@link io.vecflow.common.PrivilegeDrop}).
 *
 * <p>May depend on {@code config} (and {@code common}, {@code psample-bridge}'s netlink sockets).
 */
package io.vecflow.hsflowd.net;
