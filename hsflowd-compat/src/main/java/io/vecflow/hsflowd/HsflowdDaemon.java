package io.vecflow.hsflowd;

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
     *         {@code modprobe psample} or use {@code transport=usersock}
     * @throws IllegalArgumentException if the config has no psample block
     */
    public static PsampleSubscriber openSubscriber(HsflowdConfig c) throws NetlinkException {
        if (c.psample == null) {
            throw new IllegalArgumentException("hsflowd.conf has no psample { } block: no packet samples to read");
        }
        PsampleTransport t = c.psample.transport.equals("usersock") ? PsampleTransport.USERSOCK
                : PsampleTransport.GENL;
        return PsampleSubscriber.open(t, c.psample.usersockGroup);
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

    /** Stops the thread, sends the pending datagram and closes the subscriber and agent. */
    @Override
    public void close() throws Exception {
        running = false;
        thread.join(5000);
        subscriber.close();
        agent.close();
    }
}
