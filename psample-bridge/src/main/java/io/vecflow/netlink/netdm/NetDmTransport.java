package io.vecflow.netlink.netdm;

import java.util.Locale;

/**
 * How NET_DM alerts reach the agent ({@link NetDmSubscriber}); both carry the identical payload ({@link NetDmCodec}).
 */
public enum NetDmTransport {
    /**
     * NETLINK_GENERIC family "NET_DM", multicast group "events" (id 1), nlmsg_type = the family id — what the kernel
     * and VPP use and hsflowd's mod_dropmon reads. Needs the drop_monitor kernel module
     * ({@code modprobe drop_monitor}); joining "events" needs CAP_SYS_ADMIN since Dec 2023 (spec §1).
     */
    GENL,
    /**
     * NETLINK_USERSOCK, nlmsg_type {@link NetDm#USERSOCK_MSG_TYPE}, a multicast group 1..32 (default
     * {@link NetDm#USERSOCK_DEFAULT_GROUP}; joining needs root, sending does not). Works without any kernel module.
     */
    USERSOCK;

    /**
     * Parses a transport name: {@code genl} or {@code usersock} (case-insensitive).
     *
     * @throws IllegalArgumentException for anything else (message lists the choices)
     */
    public static NetDmTransport parse(String s) {
        return switch (s.trim().toLowerCase(Locale.ROOT)) {
            case "genl", "genetlink", "net_dm" -> GENL;
            case "usersock" -> USERSOCK;
            default -> throw new IllegalArgumentException("unknown NET_DM transport \"" + s
                    + "\": expected genl or usersock");
        };
    }
}
