package io.vecflow.hsflowd.dropmon;

import io.vecflow.hsflowd.SflowAgent;
import io.vecflow.netlink.GenlFamilyNotFoundException;
import io.vecflow.netlink.NetlinkException;
import io.vecflow.netlink.netdm.NetDmCodec;
import io.vecflow.netlink.netdm.NetDmControl;
import io.vecflow.netlink.netdm.NetDmHandler;
import io.vecflow.netlink.netdm.NetDmSubscriber;
import io.vecflow.netlink.netdm.NetDmTransport;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's dropmon module loop (hsflowd's mod_dropmon): one thread reads the NET_DM subscriber, hands each alert to
 * a {@link DropmonModule} that feeds discarded_packet samples (0:5) into the {@link SflowAgent}, and ticks module and
 * agent every 100 ms.
 *
 * <p>With {@code start = on} on the genl transport the daemon configures and starts the kernel feed
 * ({@link NetDmControl}: CONFIG ALERT_MODE=PACKET, TRUNC_LEN = headerBytes, QUEUE_LEN 1000, then START with the
 * {@code sw}/{@code hw} flags) and stops it at close — only if it started it without errors, since an error means
 * someone else controls the feed (hsflowd's rule). When the circuit breaker trips it stops the feed at once. On the
 * usersock transport there is no kernel feed to control.
 */
public final class DropmonDaemon implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(DropmonDaemon.class);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final int DRAIN_MAX_DATAGRAMS = 100_000;

    private final SflowAgent agent;
    private final DropmonSettings settings;
    private final NetDmSubscriber subscriber;
    private final DropmonModule module;
    private final NetDmControl control;
    private volatile boolean feedStartedByUs;
    private volatile long feedControlErrors;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Throwable failure;

    /**
     * Opens the NET_DM subscriber the settings ask for.
     *
     * @throws NetlinkException the channel cannot be opened; on a kernel without drop_monitor (genl) the one message
     *         is: {@code generic netlink family "NET_DM" is not available on this kernel: load it with `modprobe
     *         drop_monitor`, or set `dropmon { transport = usersock }` in hsflowd.conf} (cause: the
     *         {@link GenlFamilyNotFoundException}); EPERM without root
     * @throws IllegalArgumentException invalid settings
     */
    public static NetDmSubscriber openSubscriber(DropmonSettings s) throws NetlinkException {
        s.validate();
        NetDmTransport t = NetDmTransport.parse(s.transport);
        try {
            return NetDmSubscriber.open(t, s.usersockGroup);
        } catch (GenlFamilyNotFoundException e) {
            throw missingFamily(e);
        }
    }

    /** The hsflowd.conf wording of a missing NET_DM family (the original is the cause). */
    static NetlinkException missingFamily(GenlFamilyNotFoundException e) {
        NetlinkException x = new NetlinkException(e.call(), e.errno(), "generic netlink family \"NET_DM\" is not "
                + "available on this kernel: load it with `modprobe drop_monitor`, or set "
                + "`dropmon { transport = usersock }` in hsflowd.conf");
        x.initCause(e);
        return x;
    }

    /**
     * Starts the module: on genl with {@code start = on}, configures and starts the kernel feed first (a refusal,
     * e.g. EBUSY because another program runs it, is logged and counted, and alerts are still read), then starts
     * the thread.
     *
     * @param agent       where discard samples go
     * @param settings    the dropmon block
     * @param headerBytes hsflowd.conf headerBytes (sample header cap and the feed's TRUNC_LEN)
     * @param subscriber  an open subscriber (closed by {@link #close()}, or here if the constructor throws)
     * @throws NetlinkException if the feed control socket cannot be opened (genl, start = on)
     */
    public DropmonDaemon(SflowAgent agent, DropmonSettings settings, int headerBytes, NetDmSubscriber subscriber)
            throws NetlinkException {
        this.agent = agent;
        this.settings = settings.validate();
        this.subscriber = subscriber;
        this.module = new DropmonModule(settings, headerBytes, agent::addDiscardSample, System::nanoTime,
                this::onTrip);
        NetDmControl c = null;
        if (settings.start && subscriber.transport() == NetDmTransport.GENL && (settings.sw || settings.hw)) {
            try {
                c = NetDmControl.open();
            } catch (GenlFamilyNotFoundException e) {
                subscriber.close();
                throw missingFamily(e);
            } catch (NetlinkException | RuntimeException e) {
                subscriber.close();
                throw e;
            }
            try {
                c.configure(headerBytes, NetDmCodec.DEFAULT_QUEUE_LEN);
                c.startStop(true, settings.sw, settings.hw);
                feedStartedByUs = true;
                log.info("dropmon: drop-monitor feed started (sw={}, hw={})", settings.sw, settings.hw);
            } catch (NetlinkException e) {
                feedControlErrors++;
                log.warn("dropmon: could not start the drop-monitor feed ({}); assuming it is controlled elsewhere",
                        e.getMessage());
            }
        }
        this.control = c;
        NetDmHandler handler = module::onAlert;
        this.thread = Thread.ofPlatform().name("hsflowd-dropmon").start(() -> loop(handler));
    }

    private void loop(NetDmHandler handler) {
        try {
            while (running) {
                subscriber.poll(POLL, handler);
                module.tick();
                agent.tick();
            }
        } catch (Throwable t) {
            failure = t;
            log.error("dropmon module stopped: {}", t.toString());
        }
    }

    private void onTrip(long eventsPerSecond) {
        log.warn("dropmon: {} drop events/s for {} s exceeds max={}: circuit breaker tripped, drop reporting off",
                eventsPerSecond, settings.maxTrip, settings.max);
        stopFeed();
    }

    private void stopFeed() {
        if (feedStartedByUs && feedControlErrors == 0 && control != null) {
            feedStartedByUs = false;
            try {
                control.startStop(false, settings.sw, settings.hw);
            } catch (NetlinkException e) {
                feedControlErrors++;
                log.warn("dropmon: stopping the drop-monitor feed failed: {}", e.getMessage());
            }
        }
    }

    /** @return the module (counters: alerts, sent, notDrops, rateLimited, hidden, tripped). */
    public DropmonModule module() {
        return module;
    }

    /** @return the subscriber (counters: messages, decode errors, overruns). */
    public NetDmSubscriber subscriber() {
        return subscriber;
    }

    /** @return what stopped the module thread, or null while it runs. */
    public Throwable failure() {
        return failure;
    }

    /** @return feed CONFIG/START/STOP requests the kernel refused. */
    public long feedControlErrors() {
        return feedControlErrors;
    }

    /**
     * Stops the thread, hands the module what is still queued, stops the feed if this daemon started it, and closes
     * the subscriber (not the agent, which other modules share).
     *
     * @throws IllegalStateException if the thread did not stop within 5 s (the subscriber is then left open)
     */
    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join(5000);
        if (thread.isAlive()) {
            throw new IllegalStateException("dropmon module thread did not stop within 5 s");
        }
        try {
            if (failure == null) {
                drain();
            }
            stopFeed();
        } finally {
            subscriber.close();
            if (control != null) {
                control.close();
            }
        }
    }

    private void drain() {
        NetDmHandler handler = module::onAlert;
        try {
            for (int i = 0; i < DRAIN_MAX_DATAGRAMS; i++) {
                long before = subscriber.datagrams() + subscriber.overruns();
                subscriber.poll(Duration.ZERO, handler);
                if (subscriber.datagrams() + subscriber.overruns() == before) {
                    return;
                }
            }
        } catch (NetlinkException e) {
            log.warn("dropmon module: alerts left unread at close: {}", e.toString());
        }
    }
}
