/**
 * VPP's sflow plugin channel on NETLINK_USERSOCK (docs/netlink.md §3): interface counters, status
 * messages and vecflow's load-balancer counters in VPP's exact format, with the emitter and subscriber.
 *
 * <p>Depends on {@code io.vecflow.netlink} and {@code io.vecflow.common}.
 */
package io.vecflow.netlink.vpp;
