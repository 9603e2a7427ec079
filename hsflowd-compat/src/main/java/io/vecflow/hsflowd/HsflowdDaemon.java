package io.vecflow.hsflowd;

import io.vecflow.netlink.GenlFamilyNotFoundException;
import io.vecflow.netlink.NetlinkException;
import io.vecflow.netlink.psample.PsampleHandler;
import io.vecflow.netlink.psample.PsampleSample;
import io.vecflow.netlink.psample.PsampleSubscriber;
import io.vecflow.netlink.psample.PsampleTransport;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's PSAMPLE module loop (hsflowd's mod_psample): one thread reads the subscriber, hands each sample to the
 * {@link SflowAgent}, and ticks the agent every 100 ms so no sample waits more than 1 s for its datagram.
 */
public final class HsflowdDaemon implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HsflowdDaemon.class);
    private static final Duration POLL = Duration.ofMillis(100);
    /** Upper bound on datagrams read at close (an 8 MB socket buffer holds at most ~30k sample messages). */
    private static final int DRAIN_MAX_DATAGRAMS = 100_000;

    private final SflowAgent agent;
    private final PsampleSubscriber subscriber;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Throwable failure;

    /**
     * Opens the subscriber the config asks for ({@code psample { transport= group= usersockGroup= }}).
     *
     * @return a subscriber (the caller owns it)
     * @throws NetlinkException if the channel cannot be opened; for genl without the psample module the message says
     *         {@code modprobe psample} or set {@code psample { transport = usersock }} (the original
     *         {@link GenlFamilyNotFoundException} is the cause)
     * @throws IllegalArgumentException if the config has no psample block
     */
    public static PsampleSubscriber openSubscriber(HsflowdConfig c) throws NetlinkException {
        if (c.psample == null) {
            throw new IllegalArgumentException("hsflowd.conf has no psample { } block: no packet samples to read");
        }
        PsampleTransport t = c.psample.transport.equals("usersock") ? PsampleTransport.USERSOCK
                : PsampleTransport.GENL;
        try {
            return PsampleSubscriber.open(t, c.psample.usersockGroup);
        } catch (GenlFamilyNotFoundException e) {
            // The bridge's hint names the CLI flag (--transport usersock); hsflowd.conf users need the config key.
            NetlinkException x = new NetlinkException(e.call(), e.errno(), "generic netlink family \"psample\" is not "
                    + "available on this kernel: load it with `modprobe psample`, or set "
                    + "`psample { transport = usersock }` in hsflowd.conf");
            x.initCause(e);
            throw x;
        }
    }

    /**
     * Starts the module thread.
     *
     * @param agent the agent samples go to
     * @param subscriber an open PSAMPLE subscriber (closed by {@link #close()})
     */
    public HsflowdDaemon(SflowAgent agent, PsampleSubscriber subscriber) {
        this.agent = agent;
        this.subscriber = subscriber;
        PsampleHandler handler = this::onSample;
        this.thread = Thread.ofPlatform().name("hsflowd-psample").start(() -> loop(handler));
    }

    private void onSample(PsampleSample s) {
        agent.onSample((int) s.sampleGroup(), s.groupSeq(), s.iifIndex(), s.oifIndex(), s.origSize(),
                s.sampleRate(), s.data(), 0, s.dataLength());
    }

    private void loop(PsampleHandler handler) {
        try {
            while (running) {
                subscriber.poll(POLL, handler);
                agent.tick();
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

    /** @return the subscriber (counters: messages, decode errors, overruns). */
    public PsampleSubscriber subscriber() {
        return subscriber;
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
            throw new IllegalStateException("psample module thread did not stop within 5 s");
        }
        try {
            if (failure == null) {
                drain();
            }
        } finally {
            subscriber.close();
            agent.close();
        }
    }

    /** Reads what is queued without waiting: at most {@value #DRAIN_MAX_DATAGRAMS} datagrams. */
    private void drain() {
        PsampleHandler handler = this::onSample;
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
