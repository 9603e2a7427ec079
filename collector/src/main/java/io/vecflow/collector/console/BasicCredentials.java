package io.vecflow.collector.console;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * HTTP basic authentication (RFC 7617) against users whose passwords are kept as PBKDF2 hashes
 * ({@link ConsoleSettings#hashPassword}); used by the console and the metrics endpoint. A verified credential is
 * remembered by its SHA-256 for 10 minutes (at most 64), so a scraper or a browser does not pay the PBKDF2
 * iterations on every request. Thread-safe.
 */
public final class BasicCredentials {
    private static final long TTL_NANOS = 600_000_000_000L;

    /** A hash of no one's password, verified for unknown users (made on first use). */
    private static final class Dummy {
        static final String HASH = ConsoleSettings.hashPassword("vecflow: no such user".toCharArray());
    }
    private final Map<String, String> users;
    private final Map<String, Long> good = new ConcurrentHashMap<>();

    /** @param users name → {@code pbkdf2-sha256$...} hash (validated by {@link ConsoleSettings#checkUsers}) */
    public BasicCredentials(Map<String, String> users) {
        this.users = Map.copyOf(users);
    }

    /** @return true when there are users, i.e. authentication is on */
    public boolean enabled() {
        return !users.isEmpty();
    }

    /**
     * @param authorization the request's {@code Authorization} header value, or null
     * @return the user name when the header holds a known user and the right password, else null
     */
    public String check(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
            return null;
        }
        String b64 = authorization.substring(6).trim();
        String pair;
        try {
            pair = new String(Base64.getDecoder().decode(b64), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
        int colon = pair.indexOf(':');
        if (colon <= 0) {
            return null;
        }
        String user = pair.substring(0, colon);
        String key = sha256(b64);
        long now = System.nanoTime();
        Long at = good.get(key);
        if (at != null && now - at < TTL_NANOS) {
            return user;
        }
        String hash = users.get(user);
        // An unknown user costs the same PBKDF2 as a known one: the time does not tell which names exist.
        boolean ok = ConsoleSettings.verify(pair.substring(colon + 1).toCharArray(), hash == null ? Dummy.HASH : hash);
        if (hash == null || !ok) {
            return null;
        }
        if (good.size() >= 64) {
            good.clear();
        }
        good.put(key, now);
        return user;
    }

    private static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
