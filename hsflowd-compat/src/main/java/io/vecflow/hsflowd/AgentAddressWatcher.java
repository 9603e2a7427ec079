package io.vecflow.hsflowd;

import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.hsflowd.net.AgentAddressSelector;
import io.vecflow.hsflowd.net.LocalAddress;
import io.vecflow.hsflowd.net.RtnetlinkAddresses;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the agent address current (hsflowd re-runs {@code selectAgentAddress} when interfaces change;
 * docs/netlink.md §6 rule 11 "drop stale addresses"): every {@code intervalMs} it reads the local addresses, runs
 * {@link AgentAddressSelector#select} with the config's {@code agentIP}, {@code agent.cidr} and {@code agent}, and
 * hands a different choice to {@link SflowAgent#setAgentAddress} (which restarts the datagram sequence and uptime).
 * When no address qualifies the agent keeps its current one and the failure is counted. Called from the module
 * thread; not thread-safe.
 */
public final class AgentAddressWatcher {
    private static final Logger log = LoggerFactory.getLogger(AgentAddressWatcher.class);

    /** Source of local addresses (e.g. {@link RtnetlinkAddresses#read()}). */
    @FunctionalInterface
    public interface AddressSource {
        /** @return the current local addresses; throws on a read failure */
        List<LocalAddress> read() throws Exception;
    }

    private final SflowAgent agent;
    private final HsflowdConfig config;
    private final AddressSource source;
    private final long intervalNanos;
    private long lastCheck = Long.MIN_VALUE;
    private AgentAddressSelector.Choice current;
    private long checks, changes, failures;

    /**
     * @param intervalMs how often {@link #maybeCheck()} re-reads addresses, ms (hsflowd checks adaptors every few s)
     */
    public AgentAddressWatcher(SflowAgent agent, HsflowdConfig config, AddressSource source, long intervalMs) {
        this.agent = Objects.requireNonNull(agent);
        this.config = Objects.requireNonNull(config);
        this.source = Objects.requireNonNull(source);
        this.intervalNanos = intervalMs * 1_000_000L;
    }

    /** Runs {@link #check()} if the interval has passed since the last one. */
    public void maybeCheck() {
        long now = System.nanoTime();
        if (lastCheck == Long.MIN_VALUE || now - lastCheck >= intervalNanos) {
            lastCheck = now;
            check();
        }
    }

    /**
     * Re-reads addresses and re-selects now.
     *
     * @return the choice in force after the check (null if none could be made yet)
     */
    public AgentAddressSelector.Choice check() {
        checks++;
        AgentAddressSelector.Choice c;
        try {
            c = AgentAddressSelector.select(config.agentIP,
                    config.agentCidrs.stream().map(HsflowdConfig.AgentCidr::text).toList(), config.agentDevice,
                    source.read());
        } catch (Exception e) {
            failures++;
            log.warn("agent address: cannot read local addresses: {}", e.toString());
            return current;
        }
        if (c == null) {
            failures++;
            return current;
        }
        current = c;
        if (agent.setAgentAddress(c.address())) {
            changes++;
            log.info("agent address now {} (device {}, by {}); datagram sequence and uptime restart",
                    c.address().getHostAddress(), c.device(), c.reason());
        }
        return c;
    }

    /** @return the latest choice, or null. */
    public AgentAddressSelector.Choice current() {
        return current;
    }

    /** @return checks run. */
    public long checks() {
        return checks;
    }

    /** @return address changes handed to the agent. */
    public long changes() {
        return changes;
    }

    /** @return checks that could not read addresses or found none that qualifies. */
    public long failures() {
        return failures;
    }
}
