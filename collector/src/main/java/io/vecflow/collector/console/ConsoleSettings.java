package io.vecflow.collector.console;

import io.vecflow.common.BasicCredentials;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * How the console listens and whom it lets in.
 *
 * <p>Authentication ({@link Auth}): {@code none} (the default; the listener is on loopback unless told otherwise),
 * {@code basic} (HTTP basic, RFC 7617, against {@code users}: name → a PBKDF2-HMAC-SHA256 hash made by {@link
 * BasicCredentials#hashPassword}, never a password), or {@code header} (a trusted reverse proxy authenticates and
 * names the user in {@code header}, {@code Remote-User} by default, as Akvorado's console does; a request without it
 * is refused).
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
        BasicCredentials.checkUsers("console", users);
    }

    /** @return loopback, port 8080, no authentication. */
    public static ConsoleSettings defaults() {
        return new ConsoleSettings(DEFAULT_HOST, DEFAULT_PORT, Auth.NONE, Map.of(), DEFAULT_HEADER);
    }

    /** @return the settings without password hashes (for logs and --print-config). */
    @Override
    public String toString() {
        return "console " + host + ":" + port + " auth " + auth.name().toLowerCase(Locale.ROOT)
                + (auth == Auth.BASIC ? " users " + users.keySet() : "")
                + (auth == Auth.HEADER ? " header " + header : "");
    }
}
