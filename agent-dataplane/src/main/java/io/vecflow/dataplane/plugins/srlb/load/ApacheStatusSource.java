package io.vecflow.dataplane.plugins.srlb.load;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Objects;

/**
 * Apache httpd's busy workers from mod_status's machine-readable page ({@code /server-status?auto}; httpd docs
 * "mod_status": one {@code Key: value} per line, the first line the server name in 2.4, then e.g.
 * {@code BusyWorkers: 7}, {@code IdleWorkers: 93}, and {@code Scoreboard: _W_K..} with one character per worker slot:
 * {@code _} waiting, {@code S} starting, {@code R} reading, {@code W} sending reply, {@code K} keepalive, {@code D}
 * DNS, {@code C} closing, {@code L} logging, {@code G} graceful finish, {@code I} idle cleanup, {@code .} open slot).
 *
 * <p>Two metrics: {@link Metric#BUSY_WORKERS}, the page's {@code BusyWorkers} (every slot neither waiting nor open —
 * what mod_status counts as busy), and {@link Metric#SENDING}, the number of {@code W} slots — what SRLB's
 * {@code apache-threshold} counts (Oryon/vpp-dev {@code srlb-sa-apache.c} reads the scoreboard shared memory and
 * counts {@code SERVER_BUSY_WRITE}). Some 2.4 builds print {@code BusyWorkers}/{@code IdleWorkers} twice (event
 * MPM); equal repeats are accepted, differing ones are a format error.
 */
public final class ApacheStatusSource extends PolledLoadSource {
    /** Which number the source publishes. */
    public enum Metric {
        /** {@code BusyWorkers}. */
        BUSY_WORKERS,
        /** {@code W} (sending reply) slots in the scoreboard, as SRLB's apache-threshold policy. */
        SENDING
    }

    /**
     * A parsed {@code ?auto} page.
     *
     * @param busyWorkers {@code BusyWorkers}
     * @param idleWorkers {@code IdleWorkers}
     * @param scoreboard  the {@code Scoreboard} characters, or "" when the page has none
     */
    public record Status(int busyWorkers, int idleWorkers, String scoreboard) {
        /** @return how many scoreboard slots hold {@code state} (e.g. 'W') */
        public int count(char state) {
            int n = 0;
            for (int i = 0; i < scoreboard.length(); i++) {
                if (scoreboard.charAt(i) == state) {
                    n++;
                }
            }
            return n;
        }
    }

    private final HttpClient client;
    private final URI uri;
    private final Metric metric;
    private final Duration timeout;

    /**
     * @param client  the HTTP client (shared; e.g. {@code HttpClient.newHttpClient()})
     * @param uri     the status page, e.g. {@code http://10.0.0.2/server-status?auto}
     * @param metric  what to publish
     * @param timeout per-request timeout
     */
    public ApacheStatusSource(HttpClient client, URI uri, Metric metric, Duration timeout) {
        this.client = Objects.requireNonNull(client, "client");
        this.uri = Objects.requireNonNull(uri, "uri");
        this.metric = Objects.requireNonNull(metric, "metric");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    @Override
    protected double fetch(long nowNanos) throws Exception {
        return value(parse(HttpStatusFetch.get(client, uri, timeout)), metric);
    }

    /** @return the chosen metric of a parsed page */
    public static double value(Status s, Metric metric) {
        return metric == Metric.BUSY_WORKERS ? s.busyWorkers() : s.count('W');
    }

    /**
     * Parses a {@code ?auto} page. Lines without {@code ": "} (the server-name line) and unknown keys are skipped.
     *
     * @param text the page body
     * @return BusyWorkers, IdleWorkers, Scoreboard
     * @throws LoadSource.FormatException if {@code BusyWorkers} or {@code IdleWorkers} is missing, not a
     *         non-negative integer, or repeated with a different value (naming the line)
     */
    public static Status parse(String text) throws LoadSource.FormatException {
        int busy = -1, idle = -1, busyLine = 0, idleLine = 0;
        String scoreboard = "";
        int lineNo = 0;
        int pos = 0, len = text.length();
        while (pos < len) {
            int eol = text.indexOf('\n', pos);
            if (eol < 0) {
                eol = len;
            }
            lineNo++;
            String line = text.substring(pos, eol);
            pos = eol + 1;
            if (line.endsWith("\r")) {
                line = line.substring(0, line.length() - 1);
            }
            int colon = line.indexOf(": ");
            if (colon < 0) {
                continue;
            }
            String key = line.substring(0, colon);
            String val = line.substring(colon + 2).trim();
            switch (key) {
                case "BusyWorkers" -> {
                    int v = nonNegative(val, lineNo, key);
                    if (busy >= 0 && v != busy) {
                        throw new LoadSource.FormatException(lineNo, "BusyWorkers " + v + " differs from " + busy
                                + " on line " + busyLine);
                    }
                    busy = v;
                    busyLine = lineNo;
                }
                case "IdleWorkers" -> {
                    int v = nonNegative(val, lineNo, key);
                    if (idle >= 0 && v != idle) {
                        throw new LoadSource.FormatException(lineNo, "IdleWorkers " + v + " differs from " + idle
                                + " on line " + idleLine);
                    }
                    idle = v;
                    idleLine = lineNo;
                }
                case "Scoreboard" -> scoreboard = val;
                default -> { }
            }
        }
        if (busy < 0) {
            throw new LoadSource.FormatException(0, "no BusyWorkers line in mod_status ?auto output (" + lineNo
                    + " lines) — is the URL .../server-status?auto?");
        }
        if (idle < 0) {
            throw new LoadSource.FormatException(0, "no IdleWorkers line in mod_status ?auto output");
        }
        return new Status(busy, idle, scoreboard);
    }

    static int nonNegative(String val, int lineNo, String key) throws LoadSource.FormatException {
        try {
            int v = Integer.parseInt(val);
            if (v >= 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw new LoadSource.FormatException(lineNo, key + " must be a non-negative integer, got '" + val + "'");
    }

    @Override
    public String name() {
        return "apache " + (metric == Metric.BUSY_WORKERS ? "BusyWorkers" : "scoreboard W") + " " + uri;
    }
}
