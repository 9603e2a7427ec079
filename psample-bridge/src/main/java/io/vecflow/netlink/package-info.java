/**
 * Netlink over FFM, protocol-neutral (docs/netlink.md §1–§2, §6): sockets ({@link
 * io.vecflow.netlink.NetlinkSocket}), message and attribute readers and writers, the generic-netlink controller
 * ({@link io.vecflow.netlink.GenlController}, {@link io.vecflow.netlink.GenlFamilyWatch}), and the emitter and
 * subscriber bases the channel packages build on. The channels themselves live in {@code psample}, {@code netdm}
 * and {@code vpp}, which use this package and never each other.
 *
 * <p>Depends on {@code io.vecflow.common} only.
 */
package io.vecflow.netlink;
