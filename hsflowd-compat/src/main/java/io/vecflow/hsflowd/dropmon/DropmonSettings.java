package io.vecflow.hsflowd.dropmon;

/**
 * The {@code dropmon { ... }} block of hsflowd.conf, with hsflowd's defaults ({@code docs/netlink.md} §5
 * "mod_dropmon"): start/force/sw/hw/rn on, hw_unknown/sw_passive/hw_passive off, limit 100 drops/s, max 100000
 * events/s, max_trip 2 s. vecflow adds {@code transport = genl|usersock} and {@code usersockGroup} (as for psample).
 * A plain mutable holder: the config parser fills it, {@link #validate()} checks ranges.
 */
public final class DropmonSettings {
    /** {@code start}: configure and start the kernel feed (NET_DM CONFIG + START) at startup, stop it at exit. */
    public boolean start = true;
    /** {@code force}: accepted for compatibility; vecflow starts the feed whenever {@code start} is on. */
    public boolean force = true;
    /** {@code sw}: request and report software drops (kfree_skb). */
    public boolean sw = true;
    /** {@code hw}: request and report hardware drops (devlink traps). */
    public boolean hw = true;
    /** {@code rn}: map Linux drop-reason names (NET_DM_ATTR_REASON). */
    public boolean rn = true;
    /** {@code hw_unknown}: report unlisted hardware traps as "unknown" instead of ignoring them. */
    public boolean hwUnknown;
    /** {@code sw_passive}: report software drops without requesting them (someone else starts the feed). */
    public boolean swPassive;
    /** {@code hw_passive}: report hardware drops without requesting them. */
    public boolean hwPassive;
    /** {@code hide}: a regular expression; drops whose trap name, symbol or reason matches are not reported. */
    public String hide;
    /** {@code limit}: discard notifications per second at most (0 = none); the excess is counted in drops. */
    public int limit = 100;
    /** {@code max}: circuit breaker, NET_DM events per second (0 = off). */
    public int max = 100_000;
    /** {@code max_trip}: consecutive seconds above {@code max} before the breaker trips and the feed stops. */
    public int maxTrip = 2;
    /** vecflow: {@code transport = genl} (kernel / VPP) or {@code usersock}. */
    public String transport = "genl";
    /** vecflow: NETLINK_USERSOCK group for {@code transport = usersock} (1..32; default 31). */
    public int usersockGroup = io.vecflow.netlink.netdm.NetDm.USERSOCK_DEFAULT_GROUP;

    /**
     * The settings of a parsed {@code dropmon { }} block (hsflowd.conf).
     *
     * @param d the block as {@link io.vecflow.hsflowd.config.HsflowdConfig} parsed it
     * @return settings with the same values (max above 2^31−1 is capped there: events per second)
     */
    public static DropmonSettings from(io.vecflow.hsflowd.config.HsflowdConfig.Dropmon d) {
        DropmonSettings s = new DropmonSettings();
        s.start = d.start;
        s.force = d.force;
        s.sw = d.sw;
        s.hw = d.hw;
        s.rn = d.rn;
        s.hwUnknown = d.hwUnknown;
        s.swPassive = d.swPassive;
        s.hwPassive = d.hwPassive;
        s.hide = d.hide;
        s.limit = d.limit;
        s.max = (int) Math.min(Integer.MAX_VALUE, d.max);
        s.maxTrip = io.vecflow.hsflowd.config.HsflowdConfig.Dropmon.MAX_TRIP_SECONDS;
        s.transport = d.transport;
        s.usersockGroup = d.usersockGroup;
        return s;
    }

    /**
     * Checks ranges.
     *
     * @throws IllegalArgumentException naming the key and the allowed range
     */
    public DropmonSettings validate() {
        if (limit < 0) {
            throw new IllegalArgumentException("dropmon limit=" + limit + ": must be ≥ 0 (drops per second)");
        }
        if (max < 0) {
            throw new IllegalArgumentException("dropmon max=" + max + ": must be ≥ 0 (events per second, 0 = off)");
        }
        if (maxTrip < 1) {
            throw new IllegalArgumentException("dropmon max_trip=" + maxTrip + ": must be ≥ 1 (seconds)");
        }
        if (usersockGroup < 1 || usersockGroup > 32) {
            throw new IllegalArgumentException("dropmon usersockGroup=" + usersockGroup + ": must be 1..32");
        }
        io.vecflow.netlink.netdm.NetDmTransport.parse(transport);
        if (hide != null) {
            java.util.regex.Pattern.compile(hide);
        }
        return this;
    }
}
