package io.vecflow.common;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * HTTP basic authentication (RFC 7617) against users whose passwords are kept as PBKDF2 hashes
 * ({@link #hashPassword}); used by the collector's console and metrics endpoint and by the dataplane's metrics. A
 * verified credential is remembered by its SHA-256 for 10 minutes (at most 64), so a scraper or a browser does not pay
 * the PBKDF2 iterations on every request. Thread-safe.
 */
public final class BasicCredentials {
    private static final long TTL_NANOS = 600_000_000_000L;
    /** PBKDF2 iterations of new hashes (OWASP's 2023 floor for PBKDF2-HMAC-SHA256 is 600 000). */
    public static final int ITERATIONS = 600_000;

    private static final Pattern HASH = Pattern.compile(
            "pbkdf2-sha256\\$(\\d{1,9})\\$([A-Za-z0-9+/=]{8,200})\\$([A-Za-z0-9+/=]{16,200})");
    private static final Pattern USER = Pattern.compile("[A-Za-z0-9._@-]{1,64}");

    /** A hash of no one's password, verified for unknown users (made on first use). */
    private static final class Dummy {
        static final String DUMMY_HASH = hashPassword("vecflow: no such user".toCharArray());
    }
    private final Map<String, String> users;
    private final Map<String, Long> good = new ConcurrentHashMap<>();

    /** @param users name → {@code pbkdf2-sha256$...} hash (validated by {@link #checkUsers}) */
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
        boolean ok = verify(pair.substring(colon + 1).toCharArray(), hash == null ? Dummy.DUMMY_HASH : hash);
        if (hash == null || !ok) {
            return null;
        }
        if (good.size() >= 64) {
            good.clear();
        }
        good.put(key, now);
        return user;
    }

    /**
     * Checks basic-auth users: names of 1..64 of {@code A-Z a-z 0-9 . _ @ -}, values PBKDF2 hashes as
     * {@link #hashPassword} makes them (a plain password is refused).
     *
     * @param section the config section, for the message ({@code console}, {@code metrics})
     * @param users name → hash
     * @throws IllegalArgumentException naming the section and the user, never the value
     */
    public static void checkUsers(String section, Map<String, String> users) {
        for (Map.Entry<String, String> u : users.entrySet()) {
            if (u.getKey() == null || !USER.matcher(u.getKey()).matches()) {
                throw new IllegalArgumentException(section + " user '" + u.getKey()
                        + "': need 1..64 of A-Z a-z 0-9 . _ @ -");
            }
            if (u.getValue() == null || !HASH.matcher(u.getValue()).matches()) {
                throw new IllegalArgumentException(section + " user " + u.getKey() + ": not a password hash (need "
                        + "pbkdf2-sha256$ITERATIONS$SALT$HASH as `vecflow console --hash-password` prints it; a "
                        + "plain password is refused)");
            }
        }
    }

    /**
     * Hashes a password for {@code users}: PBKDF2-HMAC-SHA256, {@link #ITERATIONS} iterations, a 16-byte random salt,
     * a 32-byte key.
     *
     * @param password the password (not kept)
     * @return {@code pbkdf2-sha256$ITERATIONS$SALT$HASH}, salt and hash in base64
     */
    public static String hashPassword(char[] password) {
        byte[] salt = new byte[16];
        new SecureRandom().nextBytes(salt);
        Base64.Encoder b64 = Base64.getEncoder();
        return "pbkdf2-sha256$" + ITERATIONS + "$" + b64.encodeToString(salt) + "$"
                + b64.encodeToString(pbkdf2(password, salt, ITERATIONS));
    }

    /**
     * Checks a password against a hash of {@link #hashPassword}'s form, in time independent of where they differ.
     *
     * @param password the password given
     * @param hash the stored hash
     * @return whether they match (false for a malformed hash)
     */
    public static boolean verify(char[] password, String hash) {
        Matcher m = HASH.matcher(hash == null ? "" : hash);
        if (!m.matches()) {
            return false;
        }
        int iterations = Integer.parseInt(m.group(1));
        if (iterations < 1 || iterations > 10_000_000) {
            return false;
        }
        byte[] salt = Base64.getDecoder().decode(m.group(2));
        byte[] want = Base64.getDecoder().decode(m.group(3));
        return MessageDigest.isEqual(pbkdf2(password, salt, iterations), want);
    }

    private static byte[] pbkdf2(char[] password, byte[] salt, int iterations) {
        try {
            PBEKeySpec spec = new PBEKeySpec(password, salt, iterations, 256);
            try {
                return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
            } finally {
                spec.clearPassword();
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("PBKDF2WithHmacSHA256 unavailable", e);
        }
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
