package io.vecflow.dataplane.plugins.srlb.load;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Objects;

/**
 * nginx's active connections from {@code ngx_http_stub_status_module} (nginx docs: four lines,
 * {@code Active connections: N}, the header {@code server accepts handled requests}, three counters, and
 * {@code Reading: r Writing: w Waiting: q}). Publishes {@code Active connections} — what SRLB's
 * {@code nginx-threshold} policy compares with its threshold.
 */
public final class NginxStatusSource extends PolledLoadSource {
    /**
     * A parsed stub_status page.
     *
     * @param active   {@code Active connections} (including waiting ones)
     * @param accepts  accepted connections since start
     * @param handled  handled connections
     * @param requests client requests
     * @param reading  connections reading the request header
     * @param writing  connections writing the response
     * @param waiting  idle keepalive connections
     */
    public record Status(long active, long accepts, long handled, long requests, long reading, long writing,
                         long waiting) {}

    private final HttpClient client;
    private final URI uri;
    private final Duration timeout;

    /**
     * @param client  the HTTP client
     * @param uri     the stub_status location, e.g. {@code http://10.0.0.2/nginx_status}
     * @param timeout per-request timeout
     */
    public NginxStatusSource(HttpClient client, URI uri, Duration timeout) {
        this.client = Objects.requireNonNull(client, "client");
        this.uri = Objects.requireNonNull(uri, "uri");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    @Override
    protected double fetch(long nowNanos) throws Exception {
        return parse(HttpStatusFetch.get(client, uri, timeout)).active();
    }

    /**
     * @param text the page body
     * @return the parsed counters
     * @throws LoadSource.FormatException naming the line whose layout or number is wrong
     */
    public static Status parse(String text) throws LoadSource.FormatException {
        String[] lines = text.split("\r?\n", 6);
        if (lines.length < 4) {
            throw new LoadSource.FormatException(0, "stub_status has " + lines.length + " lines, expected 4");
        }
        String l1 = lines[0].trim();
        String prefix = "Active connections:";
        if (!l1.startsWith(prefix)) {
            throw new LoadSource.FormatException(1, "expected 'Active connections: N', got '" + l1 + "'");
        }
        long active = number(l1.substring(prefix.length()).trim(), 1, "Active connections");
        if (!lines[1].trim().equals("server accepts handled requests")) {
            throw new LoadSource.FormatException(2, "expected 'server accepts handled requests', got '"
                    + lines[1].trim() + "'");
        }
        String[] c = lines[2].trim().split("\\s+");
        if (c.length != 3) {
            throw new LoadSource.FormatException(3, "expected 3 counters (accepts handled requests), got "
                    + c.length);
        }
        String[] t = lines[3].trim().split("\\s+");
        if (t.length != 6 || !t[0].equals("Reading:") || !t[2].equals("Writing:") || !t[4].equals("Waiting:")) {
            throw new LoadSource.FormatException(4, "expected 'Reading: r Writing: w Waiting: q', got '"
                    + lines[3].trim() + "'");
        }
        return new Status(active, number(c[0], 3, "accepts"), number(c[1], 3, "handled"),
                number(c[2], 3, "requests"), number(t[1], 4, "Reading"), number(t[3], 4, "Writing"),
                number(t[5], 4, "Waiting"));
    }

    private static long number(String s, int line, String field) throws LoadSource.FormatException {
        try {
            long v = Long.parseLong(s);
            if (v >= 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw new LoadSource.FormatException(line, field + " must be a non-negative integer, got '" + s + "'");
    }

    @Override
    public String name() {
        return "nginx Active connections " + uri;
    }
}
