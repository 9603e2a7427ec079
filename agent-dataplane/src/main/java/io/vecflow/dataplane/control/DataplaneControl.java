package io.vecflow.dataplane.control;

import io.vecflow.dataplane.plugins.lb.Vip;
import io.vecflow.dataplane.plugins.lb.VipKey;
import java.net.InetAddress;
import java.util.List;
import java.util.Locale;

/**
 * What the control socket can ask of a running dataplane: the sFlow settings of VPP's sflow plugin (FDio/vpp
 * {@code src/plugins/sflow/sflow.c} CLI; docs/netlink.md §8 "Settings"), the {@code show} views, and
 * the load-balancer VIP / application-server (backend) tables of VPP's lb plugin ({@code src/plugins/lb/cli.c}).
 * {@link CommandParser} turns a command line into exactly one call; every argument has been range-checked by then.
 *
 * <p>Threading: the {@link ControlServer} makes one call at a time (never concurrently), on its own thread, off the
 * packet path. An implementation publishes new settings to the workers itself (e.g. volatile fields or a config
 * snapshot swap) and must not block for long. A call that cannot be done (an unknown interface, a VIP that does not
 * exist) throws {@link ControlException}; its message is shown to the user and the command exits with status 1.
 */
public interface DataplaneControl {

    /** Sampling direction (VPP {@code sflow direction}): ingress (device-input), egress (interface-output), both. */
    enum Direction {
        /** Ingress only (VPP's default). */
        RX,
        /** Egress only. */
        TX,
        /** Both. */
        BOTH;

        /** The CLI word: rx, tx or both. */
        public String word() {
            return name().toLowerCase(Locale.ROOT);
        }
    }





    /** {@code sflow sampling-rate N}: mean 1-in-N random skip per worker; 0 disables sampling. */
    void setSamplingRate(int n) throws ControlException;

    /** {@code sflow polling-interval S}: interface counter polling interval, seconds (≥ 1). */
    void setPollingInterval(int seconds) throws ControlException;

    /** {@code sflow header-bytes B}: bytes copied per sample, 64..256 in steps of 32. */
    void setHeaderBytes(int bytes) throws ControlException;

    /** {@code sflow direction rx|tx|both}. */
    void setDirection(Direction direction) throws ControlException;

    /**
     * {@code sflow enable IF} / {@code sflow disable IF}: per-interface sampling.
     *
     * @param interfaceName the port name from the configuration
     * @throws ControlException no such interface (the message should list the known ones)
     */
    void setInterfaceSampling(String interfaceName, boolean enable) throws ControlException;

    /** {@code sflow drop-monitoring enable|disable}: NET_DM alerts for dropped packets. */
    void setDropMonitoring(boolean enable) throws ControlException;

    /** {@code show sflow}: settings, samples taken, FIFO drops, netlink sent / failed (text, lines). */
    String showSflow() throws ControlException;

    /** {@code show errors}: drop reasons counted per node and interface (text). */
    String showErrors() throws ControlException;

    /** {@code show interfaces}: ports with their counters (text). */
    String showInterfaces() throws ControlException;

    /** {@code show runtime}: per node calls, vectors/call, clocks/packet (text). */
    String showRuntime() throws ControlException;

    /** {@code lb vip <prefix> ...}: adds a VIP. @throws ControlException e.g. it exists already */
    void addVip(Vip vip) throws ControlException;

    /** {@code lb vip <prefix> ... del}: removes a VIP. @throws ControlException no such VIP */
    void delVip(VipKey key) throws ControlException;

    /**
     * {@code lb as <vip> ... <address>...}: adds application servers (backends) to a VIP.
     *
     * @param addresses one or more distinct addresses
     * @throws ControlException no such VIP, an address family the VIP's encapsulation cannot reach, ...
     */
    void addBackends(VipKey vip, List<InetAddress> addresses) throws ControlException;

    /**
     * {@code lb as <vip> ... <address>... del [flush]}: removes backends.
     *
     * @param flush also drop the existing flows pinned to them (VPP {@code flush}); otherwise they drain
     * @throws ControlException no such VIP or backend
     */
    void delBackends(VipKey vip, List<InetAddress> addresses, boolean flush) throws ControlException;

    /** {@code show lb}: VIPs with their backends and counters (text). */
    String showLb() throws ControlException;

    /** {@code show lb flows}: the connection tables (text; the implementation bounds its length). */
    String showLbFlows() throws ControlException;

    /**
     * {@code srlb load N}: sets the SRLB server agent's test load metric (docs/load-balancing.md §3; the policy's unit,
     * e.g. busy workers). @throws ControlException no server agent here, or its load source is not the test source
     */
    default void setSrlbLoad(double load) throws ControlException {
        throw new ControlException("srlb load is not supported by this control endpoint");
    }

    /** {@code show clove}: the CLOVE vSwitch (endpoint, destinations with their paths, weights and hops, counters). */
    default String showClove() throws ControlException {
        throw new ControlException("show clove is not supported by this control endpoint");
    }

    /** {@code show srlb}: the SRLB server agent (SID, VIPs, policy, load, counters). */
    default String showSrlb() throws ControlException {
        throw new ControlException("show srlb is not supported by this control endpoint");
    }
}
