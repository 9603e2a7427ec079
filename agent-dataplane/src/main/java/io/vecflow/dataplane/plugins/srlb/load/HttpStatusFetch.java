package io.vecflow.dataplane.plugins.srlb.load;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** GET of a small plain-text status page with the JDK HttpClient, body capped; for the polled load sources. */
final class HttpStatusFetch {
    /** Largest status body read (bytes); Apache's scoreboard line is one byte per worker slot. */
    static final int MAX_BODY_BYTES = 1 << 20;

    private HttpStatusFetch() {}

    /**
     * @return the body as ISO-8859-1 text (both status pages are ASCII)
     * @throws IOException on a transport error, a status other than 200, or a body over {@link #MAX_BODY_BYTES}
     */
    static String get(HttpClient client, URI uri, Duration timeout) throws IOException, InterruptedException {
        HttpRequest req = HttpRequest.newBuilder(uri).timeout(timeout).GET().build();
        HttpResponse<InputStream> resp = client.send(req, HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream in = resp.body()) {
            if (resp.statusCode() != 200) {
                throw new IOException("GET " + uri + ": HTTP status " + resp.statusCode() + ", expected 200");
            }
            byte[] body = in.readNBytes(MAX_BODY_BYTES + 1);
            if (body.length > MAX_BODY_BYTES) {
                throw new IOException("GET " + uri + ": body longer than " + MAX_BODY_BYTES + " bytes");
            }
            return new String(body, StandardCharsets.ISO_8859_1);
        }
    }
}
