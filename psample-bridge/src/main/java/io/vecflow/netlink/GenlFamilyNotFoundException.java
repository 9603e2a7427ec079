package io.vecflow.netlink;

import io.vecflow.common.Errno;

/**
 * A generic netlink family is not registered in this kernel: {@code CTRL_CMD_GETFAMILY} answered NLMSG_ERROR
 * {@code -ENOENT} (source: {@code include/uapi/linux/genetlink.h}; spec {@code docs/netlink.md} §1–2).
 *
 * <p>For "psample" the message says how to fix it: {@code generic netlink family "psample" is not available on this
 * kernel: load it with `modprobe psample`, or use `--transport usersock`}.
 */
public final class GenlFamilyNotFoundException extends NetlinkException {
    private static final long serialVersionUID = 1L;

    private final String family;

    GenlFamilyNotFoundException(String family) {
        super("CTRL_CMD_GETFAMILY(\"" + family + "\")", Errno.ENOENT, message(family), true);
        this.family = family;
    }

    /** The family name that was looked up. */
    public String family() {
        return family;
    }

    /**
     * The one-line message for a missing family: what is missing, how to fix it for the families vecflow uses
     * ("psample", "NET_DM"), and the kernel's answer. Package-private so the text is tested without a kernel that
     * lacks the family.
     */
    static String message(String family) {
        String hint = switch (family) {
            case "psample" -> "load it with `modprobe psample`, or use `--transport usersock`";
            case "NET_DM" -> "load it with `modprobe drop_monitor` (CONFIG_NET_DROP_MONITOR)";
            default -> "load the kernel module that provides it";
        };
        return "generic netlink family \"" + family + "\" is not available on this kernel: " + hint
                + " (CTRL_CMD_GETFAMILY answered " + Errno.describe(Errno.ENOENT) + ")";
    }
}
