/**
 * PSAMPLE, the packet-sample channel (docs/netlink.md §2): the sample model, its codec, the emitter
 * (dataplane side) and subscriber (agent side) over generic netlink family "psample" or the same payload on
 * NETLINK_USERSOCK, and the load-balancer decision cookie carried in PSAMPLE_ATTR_USER_COOKIE.
 *
 * <p>Depends on {@code io.vecflow.netlink} and {@code io.vecflow.common}.
 */
package io.vecflow.netlink.psample;
