package io.vecflow.collector.console;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * How the console listens and whom it lets in.
 *
 * <p>Authentication ({@link Auth}): {@code none} (the default; the listener is on loopback unless told otherwise),
 * {@code basic} (HTTP basic, RFC 7617, against {@code users}: name → a PBKDF2-HMAC-SHA256 hash made by {@link
 * #hashPassword}, never a password), or {@code header} (a trusted reverse proxy authenticates and names the user in
 * {@code header}, {@code Remote-User} by default, as Akvorado's console does; a request without it is refused).
 *
 * @param host address to bind (an address of this host; {@code 127.0.0.1} by default)
 * @param port TCP port, 0..65535 (0 = any free port, for tests)
 * @param auth the authentication mode
 * @param users basic users: name → {@code pbkdf2-sha256$ITERATIONS$SALT$HASH} (base64); empty unless {@code basic}
 * @param header the header a trusted proxy sets (mode {@code header})
 */
public record ConsoleSettings(String host, int port, Auth auth, Map<String, String> users, String header) {
    /** Default bind address. */
    public static final String DEFAULT_HOST = "127.0.0.1";
    /** Default port. */
    public static final int DEFAULT_PORT = 8080;
    /** Default header of mode {@code header}. */
    public static final String DEFAULT_HEADER = "Remote-User";
    /** PBKDF2 iterations of new hashes (OWASP's 2023 floor for PBKDF2-HMAC-SHA256 is 600 000). */
    public static final int ITERATIONS = 600_000;

    private static final Pattern HASH = Pattern.compile(
            "pbkdf2-sha256\\$(\\d{1,9})\\$([A-Za-z0-9+/=]{8,200})\\$([A-Za-z0-9+/=]{16,200})");
    private static final Pattern USER = Pattern.compile("[A-Za-z0-9._@-]{1,64}");
    private static final Pattern HEADER = Pattern.compile("[A-Za-z0-9-]{1,64}");

    /** Authentication modes. */
    public enum Auth {
        /** Everyone who reaches the listener. */
        NONE,
        /** HTTP basic against PBKDF2 hashes. */
        BASIC,
        /** A trusted reverse proxy's header. */
        HEADER;

        /**
         * @param text {@code none}, {@code basic} or {@code header} (any case)
         * @return the mode
         * @throws IllegalArgumentException naming the accepted values
         */
        public static Auth parse(String text) {
            try {
                return valueOf(text.trim().toUpperCase(Locale.ROOT));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("console auth '" + text + "': need none, basic or header");
            }
        }
    }

    /**
     * Validates.
     *
     * @throws IllegalArgumentException naming the field and the rule
     */
    public ConsoleSettings {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("console listen address: empty");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("console port " + port + ": need 0..65535");
        }
        auth = auth == null ? Auth.NONE : auth;
        users = users == null ? Map.of() : Map.copyOf(users);
        header = header == null ? DEFAULT_HEADER : header;
        if (!HEADER.matcher(header).matches()) {
            throw new IllegalArgumentException("console auth header '" + header + "': need letters, digits, '-'");
        }
        if (auth == Auth.BASIC && users.isEmpty()) {
            throw new IllegalArgumentException("console auth basic: no users (add name: pbkdf2-sha256$... made by "
                    + "`vecflow console --hash-password`)");
        }
        checkUsers("console", users);
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

    /** @return loopback, port 8080, no authentication. */
    public static ConsoleSettings defaults() {
        return new ConsoleSettings(DEFAULT_HOST, DEFAULT_PORT, Auth.NONE, Map.of(), DEFAULT_HEADER);
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

    /** @return the settings without password hashes (for logs and --print-config). */
    @Override
    public String toString() {
        return "console " + host + ":" + port + " auth " + auth.name().toLowerCase(Locale.ROOT)
                + (auth == Auth.BASIC ? " users " + users.keySet() : "")
                + (auth == Auth.HEADER ? " header " + header : "");
    }
}
