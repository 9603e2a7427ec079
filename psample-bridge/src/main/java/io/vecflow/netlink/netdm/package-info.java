/**
 * NET_DM, the drop-monitor channel (docs/netlink.md §4): alerts with their drop point, the codec, the
 * emitter and subscriber over generic netlink family "NET_DM" or NETLINK_USERSOCK, and the control commands that
 * start and configure the kernel's feed.
 *
 * <p>Depends on {@code io.vecflow.netlink} and {@code io.vecflow.common}.
 */
package io.vecflow.netlink.netdm;
