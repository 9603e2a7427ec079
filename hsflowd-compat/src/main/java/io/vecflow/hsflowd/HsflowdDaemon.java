package io.vecflow.hsflowd;

import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.hsflowd.counters.CounterPoller;
import io.vecflow.netlink.GenlFamilyNotFoundException;
import io.vecflow.netlink.NetlinkException;
import io.vecflow.netlink.psample.PsampleHandler;
import io.vecflow.netlink.psample.PsampleSubscriber;
import io.vecflow.netlink.psample.PsampleTransport;
import io.vecflow.netlink.vpp.VppIfCounters;
import io.vecflow.netlink.vpp.VppStatus;
import io.vecflow.netlink.vpp.VppUsersockHandler;
import io.vecflow.netlink.vpp.VppUsersockSubscriber;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's module loop, one thread ({@code hsflowd-psample}): it reads the PSAMPLE subscriber (hsflowd's
 * mod_psample) and hands each sample to {@link SflowAgent#onPsample}, reads VPP's USERSOCK channel (mod_vpp: STATUS,
 * IF_COUNTERS, LB_COUNTERS) after every PSAMPLE read, ticks the counter poller and the agent every 100 ms at least
 * so no sample waits more than 1 s for its datagram, and lets the optional {@link AgentAddressWatcher} re-check the
 * agent address (VPP's channel is read at most every 10 ms while samples flow). One thread for both channels keeps a
 * port's IF_COUNTERS ahead of its samples when VPP sent them so: before a VPP sample of a port the agent does not know
 * yet (which would not be exported, as hsflowd's mod_vpp), VPP's channel is read first, in case the port's IF_COUNTERS
 * wait there. Without a psample block the loop waits on VPP's channel (or sleeps, counters only).
 */
public final class HsflowdDaemon implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HsflowdDaemon.class);
    private static final Duration POLL = Duration.ofMillis(100);
    /** Upper bound on datagrams read at close (an 8 MB socket buffer holds at most ~30k sample messages). */
    private static final int DRAIN_MAX_DATAGRAMS = 100_000;

    private final SflowAgent agent;
    private final PsampleSubscriber subscriber;
    private final VppUsersockSubscriber vppSubscriber;
    private final AgentAddressWatcher addressWatcher;
    private final CounterPoller poller;
    private final Thread thread;
    /** Upper bound on VPP datagrams read per drain (a STATUS and one IF_COUNTERS per port per second). */
    private static final int VPP_DRAIN_MAX_DATAGRAMS = 4096;
    private boolean vppFailed;
    /** VPP's channel is read at most this often between PSAMPLE reads (and at once for a sample of an unknown port). */
    private static final long VPP_READ_INTERVAL_NANOS = 10_000_000L;
    /** The counter poller, the agent's datagram age check and the address watcher run at most this often. */
    private static final long TICK_INTERVAL_NANOS = 1_000_000L;
    private long lastVppReadNanos;
    private volatile boolean running = true;
    private volatile Throwable failure;

    /**
     * Opens the subscriber the config asks for ({@code psample { transport= group= usersockGroup= }}).
     *
     * @return a subscriber (the caller owns it), or null when the config has no psample block (a counters-only
     *         agent, hsflowd's most common deployment: host and interface counters, no packet samples)
     * @throws NetlinkException if the channel cannot be opened; for genl without the psample module the message says
     *         {@code modprobe psample} or set {@code psample { transport = usersock }} (the original
     *         {@link GenlFamilyNotFoundException} is the cause)
     */
    public static PsampleSubscriber openSubscriber(HsflowdConfig c) throws NetlinkException {
        if (c.psample == null) {
            return null;
        }
        PsampleTransport t = c.psample.transport.equals("usersock") ? PsampleTransport.USERSOCK
                : PsampleTransport.GENL;
        try {
            return PsampleSubscriber.open(t, c.psample.usersockGroup);
        } catch (GenlFamilyNotFoundException e) {
            throw missingPsample(e);
        }
    }

    /**
     * The hsflowd.conf wording of a missing psample family: the bridge's hint names the CLI flag
     * ({@code --transport usersock}); hsflowd.conf users need the config key. The original is the cause.
     */
    static NetlinkException missingPsample(GenlFamilyNotFoundException e) {
        NetlinkException x = new NetlinkException(e.call(), e.errno(), "generic netlink family \"psample\" is not "
                + "available on this kernel: load it with `modprobe psample`, or set "
                + "`psample { transport = usersock }` in hsflowd.conf");
        x.initCause(e);
        return x;
    }

    /**
     * Starts the module thread.
     *
     * @param agent the agent samples go to
     * @param subscriber an open PSAMPLE subscriber (closed by {@link #close()})
     */
    public HsflowdDaemon(SflowAgent agent, PsampleSubscriber subscriber) {
        this(agent, subscriber, null, null, null);
    }

    /**
     * Starts the module thread with counter polling: the same thread ticks {@code poller} after every read (at least
     * every 100 ms), so interface and host counter samples share the agent's datagrams.
     *
     * @param agent the agent samples go to
     * @param subscriber an open PSAMPLE subscriber (closed by {@link #close()})
     * @param poller the counter poller (closed by {@link #close()}), or null for no counter samples
     */
    public HsflowdDaemon(SflowAgent agent, PsampleSubscriber subscriber, CounterPoller poller) {
        this(agent, subscriber, null, null, poller);
    }

    /**
     * Starts the module thread.
     *
     * @param agent          the agent samples go to
     * @param subscriber     an open PSAMPLE subscriber (closed by {@link #close()})
     * @param vppSubscriber  an open VPP USERSOCK subscriber ({@link #openVppSubscriber}), or null without a
     *                       {@code vpp {}} block (closed by {@link #close()})
     * @param addressWatcher re-checks the agent address from the PSAMPLE thread, or null for a fixed address
     */
    public HsflowdDaemon(SflowAgent agent, PsampleSubscriber subscriber, VppUsersockSubscriber vppSubscriber,
            AgentAddressWatcher addressWatcher) {
        this(agent, subscriber, vppSubscriber, addressWatcher, null);
    }

    /**
     * Starts the module thread with every optional module.
     *
     * @param agent          the agent samples go to
     * @param subscriber     an open PSAMPLE subscriber (closed by {@link #close()}), or null for a counters-only agent
     *                       (the module thread then only ticks the poller, the agent and the address watcher)
     * @param vppSubscriber  an open VPP USERSOCK subscriber, or null (closed by {@link #close()})
     * @param addressWatcher re-checks the agent address from the PSAMPLE thread, or null for a fixed address
     * @param poller         the counter poller ticked by the PSAMPLE thread (closed by {@link #close()}), or null
     */
    public HsflowdDaemon(SflowAgent agent, PsampleSubscriber subscriber, VppUsersockSubscriber vppSubscriber,
            AgentAddressWatcher addressWatcher, CounterPoller poller) {
        this.poller = poller;
        this.agent = agent;
        this.subscriber = subscriber;
        this.vppSubscriber = vppSubscriber;
        this.addressWatcher = addressWatcher;
        PsampleHandler handler = vppSubscriber == null ? agent::onPsample : s -> {
            if (agent.unknownVppSampler(s)) {
                drainVpp(Duration.ZERO); // the port's IF_COUNTERS may be queued on VPP's channel
            }
            agent.onPsample(s);
        };
        this.thread = Thread.ofPlatform().name("hsflowd-psample").start(() -> loop(handler));
    }

    /**
     * Joins VPP's USERSOCK channel ({@code vpp { usersockGroup= }}, default 29) when the config has a {@code vpp {}}
     * block; call while still privileged (joining needs CAP_NET_ADMIN, docs/netlink.md §1).
     *
     * @return the subscriber, or null without a {@code vpp {}} block
     * @throws NetlinkException EPERM without root/CAP_NET_ADMIN; other socket errors
     */
    public static VppUsersockSubscriber openVppSubscriber(HsflowdConfig c) throws NetlinkException {
        return c.vpp == null ? null : VppUsersockSubscriber.open(c.vpp.usersockGroup);
    }

    private final VppUsersockHandler vppHandler = new VppUsersockHandler() {
        @Override
        public void onStatus(VppStatus status) {
            agent.onVppStatus(status);
        }

        @Override
        public void onIfCounters(VppIfCounters counters) {
            agent.onVppIfCounters(counters);
        }

        @Override
        public void onLbCounters(io.vecflow.netlink.vpp.LbCounters counters) {
            agent.onLbCounters(counters);
        }
    };

    /**
     * Reads VPP's channel: waits up to {@code first} for a datagram, then takes what is queued without waiting, at
     * most {@value #VPP_DRAIN_MAX_DATAGRAMS} datagrams. A socket failure stops the vpp module (logged, kept in
     * {@link #failure()}); the psample module goes on.
     */
    private void drainVpp(Duration first) {
        if (vppSubscriber == null || vppFailed) {
            return;
        }
        try {
            Duration wait = first;
            for (int i = 0; i < VPP_DRAIN_MAX_DATAGRAMS; i++) {
                long before = vppSubscriber.datagrams() + vppSubscriber.overruns();
                vppSubscriber.poll(wait, vppHandler);
                if (vppSubscriber.datagrams() + vppSubscriber.overruns() == before) {
                    return; // nothing was queued
                }
                wait = Duration.ZERO;
            }
        } catch (NetlinkException e) {
            vppFailed = true;
            failure = e;
            log.error("vpp module stopped: {}", e.toString());
        }
    }

    private void loop(PsampleHandler handler) {
        try {
            long lastTick = Long.MIN_VALUE;
            while (running) {
                if (subscriber != null) {
                    subscriber.poll(POLL, handler);
                } else if (vppSubscriber != null && !vppFailed) {
                    drainVpp(POLL);
                } else {
                    Thread.sleep(POLL);
                }
                // One clock read per datagram, and the periodic work at most once a millisecond (it ran after every
                // datagram: four clock reads and the agent's lock; bench/results/2026-12-04-agent-throughput measured
                // the change within its run-to-run spread, the agent's time being mostly the kernel's).
                long now = System.nanoTime();
                if (lastTick != Long.MIN_VALUE && now - lastTick < TICK_INTERVAL_NANOS) {
                    continue;
                }
                lastTick = now;
                if (subscriber != null && now - lastVppReadNanos >= VPP_READ_INTERVAL_NANOS) {
                    // not after every PSAMPLE datagram: at 50k samples/s that is 50k empty recv calls a second
                    lastVppReadNanos = now;
                    drainVpp(Duration.ZERO);
                }
                if (poller != null) {
                    poller.tick(now);
                }
                agent.tick();
                if (addressWatcher != null) {
                    addressWatcher.maybeCheck();
                }
            }
        } catch (Throwable t) {
            failure = t;
            log.error("psample module stopped: {}", t.toString());
        }
    }

    /** @return the agent. */
    public SflowAgent agent() {
        return agent;
    }

    /** @return the VPP USERSOCK subscriber, or null. */
    public VppUsersockSubscriber vppSubscriber() {
        return vppSubscriber;
    }

    /** @return the subscriber (counters: messages, decode errors, overruns), or null for a counters-only agent. */
    public PsampleSubscriber subscriber() {
        return subscriber;
    }

    /** @return the counter poller, or null when counters are off. */
    public CounterPoller poller() {
        return poller;
    }

    /** @return what stopped the module thread, or null while it runs. */
    public Throwable failure() {
        return failure;
    }

    /**
     * Stops the thread, hands the agent every sample still queued in the subscriber's socket, sends the pending
     * datagram and closes the subscriber and agent.
     *
     * @throws IllegalStateException if the module thread did not stop within 5 s (the subscriber is then left open,
     *         since closing it under a running poll is unsafe)
     */
    @Override
    public void close() throws Exception {
        running = false;
        thread.join(5000);
        if (thread.isAlive()) {
            agent.close();
            // the poller is left open with the subscriber: the thread may still be using it
            throw new IllegalStateException("a module thread did not stop within 5 s");
        }
        try {
            if (failure == null && subscriber != null) {
                drain();
            }
            drainVpp(Duration.ZERO);
        } finally {
            if (subscriber != null) {
                subscriber.close();
            }
            if (vppSubscriber != null) {
                vppSubscriber.close();
            }
            if (poller != null) {
                poller.close();
            }
            agent.close();
        }
    }

    /** Reads what is queued without waiting: at most {@value #DRAIN_MAX_DATAGRAMS} datagrams. */
    private void drain() {
        PsampleHandler handler = agent::onPsample;
        try {
            for (int i = 0; i < DRAIN_MAX_DATAGRAMS; i++) {
                long before = subscriber.datagrams() + subscriber.overruns();
                subscriber.poll(Duration.ZERO, handler);
                if (subscriber.datagrams() + subscriber.overruns() == before) {
                    return; // nothing was queued
                }
            }
        } catch (NetlinkException e) {
            log.warn("psample module: samples left unread at close: {}", e.toString());
        }
    }
}
