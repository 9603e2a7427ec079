package io.vecflow.netlink;

import io.vecflow.common.Errno;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A sender's view of one generic-netlink family and multicast group ("NET_DM"/"events", "psample"/"packets"): resolves
 * them with CTRL_CMD_GETFAMILY ({@link GenlController}) at construction and, while the family is missing, again at
 * most once per retry interval when {@link #poll(long)} is called. Spec {@code docs/netlink.md} §2 and §6 rule 3:
 * a missing family must be loud and retried, and sends made meanwhile are failures, never "sent" (VPP resolves once,
 * then sends with family 0 and counts them as sent — sonic-net/sonic-buildimage PR #29080).
 *
 * <p>Reporting: the first problem of an outage (family absent → the {@link GenlFamilyNotFoundException} text with its
 * {@code modprobe} hint; group absent; a group id above 32, which a user-space sender cannot address through
 * {@code nl_groups}) goes to the reporter <em>once</em>, followed by one line when the family appears. Each lookup
 * opens and closes its own NETLINK_GENERIC socket, so stale replies on the sender's socket never interfere.
 *
 * <p>Cost: {@link #poll(long)} is one comparison while resolved or between retries; a retry allocates (control path,
 * at most once per interval). Single-threaded for {@link #poll}; the state getters may be read from other threads.
 */
public final class GenlFamilyWatch {
    /** Default retry interval while the family is missing (hsflowd retries its psample lookup every 15 s). */
    public static final Duration DEFAULT_RETRY = Duration.ofSeconds(15);

    private final String family;
    private final String group;
    private final long retryNanos;
    private final Consumer<String> reporter;
    private volatile boolean ready;
    private volatile int familyId;
    private volatile int groupId;
    private volatile String problem;
    private volatile long attempts;
    private long nextAttemptNanos;
    private boolean reported;

    /**
     * Resolves {@code family}/{@code group} now (one netlink round trip) and reports a failure once.
     *
     * @param family   generic-netlink family name, e.g. "NET_DM"
     * @param group    multicast group name, e.g. "events"
     * @param retry    minimum time between lookups while missing (positive)
     * @param reporter receives the one-line problem report and the recovery line (e.g. a logger); called on the
     *                 thread that calls the constructor or {@link #poll}
     * @throws IllegalArgumentException a non-positive retry interval
     */
    public GenlFamilyWatch(String family, String group, Duration retry, Consumer<String> reporter) {
        this.family = Objects.requireNonNull(family, "family");
        this.group = Objects.requireNonNull(group, "group");
        if (retry.isNegative() || retry.isZero()) {
            throw new IllegalArgumentException("retry interval must be positive, got " + retry);
        }
        this.retryNanos = retry.toNanos();
        this.reporter = Objects.requireNonNull(reporter, "reporter");
        attempt(System.nanoTime());
    }

    /**
     * Retries the lookup if the family is still unresolved and the retry interval has passed since the last try.
     *
     * @param nowNanos {@link System#nanoTime()}
     * @return {@link #ready()} after the call
     */
    public boolean poll(long nowNanos) {
        if (ready) {
            return true;
        }
        if (nowNanos - nextAttemptNanos < 0) {
            return false;
        }
        attempt(nowNanos);
        return ready;
    }

    private void attempt(long nowNanos) {
        attempts++;
        nextAttemptNanos = nowNanos + retryNanos;
        String why;
        try (NetlinkSocket s = NetlinkSocket.open(Netlink.NETLINK_GENERIC)) {
            GenlFamily f = GenlController.resolve(s, family);
            int g = f.groupId(group);
            if (g >= 1 && g <= 32) {
                familyId = f.id();
                groupId = g;
                problem = null;
                ready = true;
                if (reported) {
                    reporter.accept("generic netlink family \"" + family + "\" is available now (id " + f.id()
                            + ", group \"" + group + "\" = " + g + "): sending resumes");
                }
                return;
            }
            why = "generic netlink family \"" + family + "\" group \"" + group + "\" has id " + g
                    + ", which a user-space sender cannot address (nl_groups reaches ids 1..32 only)";
        } catch (NetlinkException e) {
            why = e.getMessage();
        }
        problem = why;
        if (!reported) {
            reported = true;
            reporter.accept(why + "; every message is counted as a send failure (" + Errno.describe(Errno.ENOENT)
                    + ") and the lookup is retried every " + retryText());
        }
    }

    private String retryText() {
        long ms = retryNanos / 1_000_000L;
        return ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
    }

    /** Whether the family and group are resolved (sends may go out). */
    public boolean ready() {
        return ready;
    }

    /** The family id (the nlmsg_type of its messages), 0 while unresolved. */
    public int familyId() {
        return familyId;
    }

    /** The multicast group id (1..32), 0 while unresolved. */
    public int groupId() {
        return groupId;
    }

    /** The family name looked up. */
    public String family() {
        return family;
    }

    /** The group name looked up. */
    public String group() {
        return group;
    }

    /** The current problem (the reported text), or {@code null} while resolved. */
    public String problem() {
        return problem;
    }

    /** Lookups made so far (the first at construction). */
    public long attempts() {
        return attempts;
    }
}
