package io.vecflow.netlink.netdm;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Where and why a dataplane dropped a packet, pre-encoded once (at drop-reason registration) for
 * {@link NetDmEmitter#emitDrop}, so that each alert only copies bytes.
 *
 * <p>Strings, as VPP's sflow plugin composes them (FDio/vpp {@code src/plugins/sflow/sflow.c} {@code compose_trap_str};
 * spec {@code docs/netlink.md} §4): HW_TRAP_GROUP_NAME = {@value #TRAP_PREFIX} + node name and HW_TRAP_NAME =
 * {@value #TRAP_PREFIX} + error-counter name, each lower-cased with ASCII whitespace replaced by {@code '_'} and cut
 * to {@value #MAX_TRAP_BYTES} bytes (VPP's 64-byte buffer with its NUL). hsflowd's mod_dropmon matches {@code vpp_*}
 * traps as drops with reason 256 "unknown" (spec §5), so the {@code vpp_} prefix keeps real hsflowd reporting them.
 * REASON = a Linux drop-reason name (enum {@code skb_drop_reason} without {@code SKB_DROP_REASON_}, e.g.
 * {@code IP_INNOROUTES}), which mod_dropmon looks up first and maps to an sFlow discard code (VPP sends no REASON,
 * so its drops all read "unknown"; vecflow fills it).
 *
 * <p>Immutable; thread-safe.
 */
public final class NetDmDropPoint {
    /** Prefix VPP puts on trap group and trap names ({@code SFLOW_TRAP_PREFIX}). */
    public static final String TRAP_PREFIX = "vpp_";
    /** Longest trap string in bytes, without the NUL ({@code SFLOW_MAX_TRAP_LEN} 64 − 1). */
    public static final int MAX_TRAP_BYTES = 63;
    /** Longest Linux drop-reason name accepted, bytes (the kernel's are under 40). */
    public static final int MAX_REASON_BYTES = 63;
    /** The Linux drop reason for "no better reason known" ({@code SKB_DROP_REASON_NOT_SPECIFIED}). */
    public static final String NOT_SPECIFIED = "NOT_SPECIFIED";

    private final String nodeName;
    private final String errorName;
    private final String linuxReason;
    private final byte[] trapGroup;
    private final byte[] trapName;
    private final byte[] reason;

    private NetDmDropPoint(String nodeName, String errorName, String linuxReason, byte[] trapGroup, byte[] trapName) {
        this.nodeName = nodeName;
        this.errorName = errorName;
        this.linuxReason = linuxReason;
        this.trapGroup = trapGroup;
        this.trapName = trapName;
        this.reason = linuxReason.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Builds a drop point.
     *
     * @param nodeName    the graph node that dropped, e.g. {@code "ip4-lookup"} (printable ASCII, non-empty)
     * @param errorName   its error-counter (drop reason) name, e.g. {@code "no route"} (printable ASCII, non-empty)
     * @param linuxReason Linux drop-reason name, e.g. {@code "IP_INNOROUTES"}; {@code [A-Z0-9_]}, 1..
     *                    {@value #MAX_REASON_BYTES} characters; {@link #NOT_SPECIFIED} when none fits
     * @throws IllegalArgumentException an empty or non-ASCII name, or a reason outside {@code [A-Z0-9_]{1,63}}
     *                                  (message names the argument and the character index)
     */
    public static NetDmDropPoint of(String nodeName, String errorName, String linuxReason) {
        Objects.requireNonNull(nodeName, "nodeName");
        Objects.requireNonNull(errorName, "errorName");
        checkReason(linuxReason);
        return new NetDmDropPoint(nodeName, errorName, linuxReason, trap(nodeName, "node name"),
                trap(errorName, "error name"));
    }

    /**
     * Builds a drop point that names a devlink trap instead of VPP's {@code vpp_} strings, for reasons with no Linux
     * drop-reason name that hsflowd maps (spec §5: an unknown REASON falls through to the trap name). Example: TTL
     * expiry has no skb_drop_reason of its own, so {@code devlink("ip4-input", "l3_exceptions",
     * "ttl_value_is_too_small", "NOT_SPECIFIED")} reaches the collector as ttl_exceeded (devlink-trap.rst names).
     *
     * @param nodeName    the dropping node (kept for display only)
     * @param trapGroup   devlink trap group, sent as is ({@code [a-z0-9_]}, 1..{@value #MAX_TRAP_BYTES})
     * @param trapName    devlink trap name, sent as is (same rule)
     * @param linuxReason as in {@link #of}
     * @throws IllegalArgumentException a name outside those rules (argument and character index named)
     */
    public static NetDmDropPoint devlink(String nodeName, String trapGroup, String trapName, String linuxReason) {
        Objects.requireNonNull(nodeName, "nodeName");
        checkReason(linuxReason);
        return new NetDmDropPoint(nodeName, trapName, linuxReason, devlinkName(trapGroup, "trapGroup"),
                devlinkName(trapName, "trapName"));
    }

    private static byte[] devlinkName(String s, String what) {
        Objects.requireNonNull(s, what);
        if (s.isEmpty() || s.length() > MAX_TRAP_BYTES) {
            throw new IllegalArgumentException(what + " \"" + s + "\" must be 1.." + MAX_TRAP_BYTES + " characters");
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_')) {
                throw new IllegalArgumentException(what + " \"" + s + "\": character " + i + " ('" + c
                        + "') is not a-z, 0-9 or _ (a devlink trap name)");
            }
        }
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static void checkReason(String linuxReason) {
        Objects.requireNonNull(linuxReason, "linuxReason");
        if (linuxReason.isEmpty() || linuxReason.length() > MAX_REASON_BYTES) {
            throw new IllegalArgumentException("linuxReason \"" + linuxReason + "\" must be 1.." + MAX_REASON_BYTES
                    + " characters");
        }
        for (int i = 0; i < linuxReason.length(); i++) {
            char c = linuxReason.charAt(i);
            if (!(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_')) {
                throw new IllegalArgumentException("linuxReason \"" + linuxReason + "\": character " + i + " ('" + c
                        + "') is not A-Z, 0-9 or _ (a Linux skb_drop_reason name without SKB_DROP_REASON_)");
            }
        }
    }

    /** VPP's compose_trap_str: prefix + lower-cased name, whitespace → '_', cut to {@value #MAX_TRAP_BYTES}. */
    private static byte[] trap(String name, String what) {
        if (name.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
        int n = Math.min(name.length(), MAX_TRAP_BYTES - TRAP_PREFIX.length());
        byte[] out = new byte[TRAP_PREFIX.length() + n];
        for (int i = 0; i < TRAP_PREFIX.length(); i++) {
            out[i] = (byte) TRAP_PREFIX.charAt(i);
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c > 0x7E || c < 0x20 && !Character.isWhitespace(c)) {
                throw new IllegalArgumentException(what + " \"" + name + "\": character " + i
                        + " is not printable ASCII");
            }
            if (i < n) {
                out[TRAP_PREFIX.length() + i] = (byte) (Character.isWhitespace(c) ? '_'
                        : Character.toLowerCase(c));
            }
        }
        return out;
    }

    /** The node name as given. */
    public String nodeName() {
        return nodeName;
    }

    /** The error-counter name as given (the trap name for {@link #devlink}). */
    public String errorName() {
        return errorName;
    }

    /** The Linux drop-reason name (REASON). */
    public String linuxReason() {
        return linuxReason;
    }

    /** HW_TRAP_GROUP_NAME as sent (without NUL), e.g. {@code "vpp_ip4-lookup"}. */
    public String trapGroup() {
        return new String(trapGroup, StandardCharsets.US_ASCII);
    }

    /** HW_TRAP_NAME as sent (without NUL), e.g. {@code "vpp_no_route"}. */
    public String trapName() {
        return new String(trapName, StandardCharsets.US_ASCII);
    }

    byte[] trapGroupBytes() {
        return trapGroup;
    }

    byte[] trapNameBytes() {
        return trapName;
    }

    byte[] reasonBytes() {
        return reason;
    }

    @Override
    public String toString() {
        return nodeName + "/" + errorName + " → " + trapGroup() + "/" + trapName() + " reason " + linuxReason;
    }
}
