package io.vecflow.netlink.psample;

/**
 * How PSAMPLE messages travel between the dataplane ({@link PsampleEmitter}) and the agent
 * ({@link PsampleSubscriber}). Both carry the identical payload (genlmsghdr + attributes, {@link PsampleCodec}).
 */
public enum PsampleTransport {
    /**
     * NETLINK_GENERIC family "psample", multicast group "packets" (resolved by name), nlmsg_type = the family id —
     * what the kernel and VPP use and hsflowd's mod_psample reads. Needs the psample kernel module
     * ({@code modprobe psample}); sending needs CAP_NET_ADMIN, joining "packets" needs CAP_NET_ADMIN on kernels
     * since Dec 2023 (spec §1).
     */
    GENL,
    /**
     * NETLINK_USERSOCK, nlmsg_type {@link Psample#USERSOCK_MSG_TYPE} (0x10), a multicast group 1..32 (default
     * {@link Psample#USERSOCK_DEFAULT_GROUP} = 30; joining needs root/CAP_NET_ADMIN, sending does not), or unicast
     * to the subscriber's port id (no privilege). Works without any kernel module.
     */
    USERSOCK;

    /** Parses a {@code --transport} value: {@code genl} or {@code usersock} (case-insensitive). */
    public static PsampleTransport parse(String s) {
        return switch (s.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "genl", "genetlink", "psample" -> GENL;
            case "usersock" -> USERSOCK;
            default -> throw new IllegalArgumentException("unknown PSAMPLE transport \"" + s
                    + "\": expected genl or usersock");
        };
    }
}
