package io.vecflow.collector.enrich.snmp;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How to authenticate to one exporter's SNMP agent: SNMPv2c with a list of communities (tried in order, the first
 * that answers wins), or SNMPv3 with the User-based Security Model (RFC 3414): a user, an optional authentication
 * protocol and passphrase, an optional privacy protocol and passphrase. The security level follows from what is
 * set: no authentication = noAuthNoPriv, authentication only = authNoPriv, both = authPriv (Akvorado's SNMP
 * credentials, one set per exporter or subnet).
 *
 * <p>The factories parse configuration strings ({@link #v2c(String...)}, {@link #v3(String, String, String, String,
 * String)}) and reject bad values with an {@link IllegalArgumentException} that names the field, the value and what is
 * allowed. {@link #toString()} never shows a community or a passphrase.
 *
 * @param communities SNMPv2c communities in the order they are tried; empty for SNMPv3
 * @param user SNMPv3 USM user name (1..32 bytes of UTF-8); null for SNMPv2c
 * @param authProtocol SNMPv3 authentication protocol, or null (noAuthNoPriv)
 * @param authPassphrase authentication passphrase (at least {@link #MIN_PASSPHRASE} characters) when
 *     {@code authProtocol} is set, else null
 * @param privProtocol SNMPv3 privacy protocol, or null (no privacy); needs {@code authProtocol}
 * @param privPassphrase privacy passphrase (at least {@link #MIN_PASSPHRASE} characters) when {@code privProtocol}
 *     is set, else null
 */
public record SnmpCredentials(List<String> communities, String user, AuthProtocol authProtocol,
        String authPassphrase, PrivProtocol privProtocol, String privPassphrase) {

    /** Shortest passphrase RFC 3414 §11.2 allows (net-snmp and SNMP4J refuse shorter ones too). */
    public static final int MIN_PASSPHRASE = 8;
    /** Longest USM user name, bytes (SnmpAdminString (SIZE(1..32)), RFC 3414 usmUserName). */
    public static final int MAX_USER_BYTES = 32;
    /** Longest community accepted, bytes (an SNMP OCTET STRING in practice never longer). */
    public static final int MAX_COMMUNITY_BYTES = 255;

    /** SNMPv3 security level, as RFC 3411 names it. */
    public enum SecurityLevel {
        /** No authentication, no privacy. */
        NO_AUTH_NO_PRIV,
        /** Authentication (HMAC digest), no privacy. */
        AUTH_NO_PRIV,
        /** Authentication and privacy (encryption). */
        AUTH_PRIV
    }

    /**
     * USM authentication protocols: HMAC-MD5-96 and HMAC-SHA-96 (RFC 3414), the HMAC-SHA-2 ones (RFC 7860). Config
     * names are Akvorado's ({@code MD5}, {@code SHA}, {@code SHA224}, {@code SHA256}, {@code SHA384},
     * {@code SHA512}); case and dashes do not matter ({@code sha-256} works).
     */
    public enum AuthProtocol {
        /** HMAC-MD5-96. */
        MD5,
        /** HMAC-SHA-96 (SHA-1). */
        SHA,
        /** HMAC-128-SHA-224. */
        SHA224,
        /** HMAC-192-SHA-256. */
        SHA256,
        /** HMAC-256-SHA-384. */
        SHA384,
        /** HMAC-384-SHA-512. */
        SHA512;

        /**
         * @param text a configured name (case-insensitive; dashes and underscores ignored; {@code SHA1} = SHA)
         * @return the protocol
         * @throws IllegalArgumentException naming the value and the allowed names
         */
        public static AuthProtocol parse(String text) {
            String n = normalize(text);
            if (n.equals("SHA1")) {
                return SHA;
            }
            for (AuthProtocol p : values()) {
                if (p.name().equals(n)) {
                    return p;
                }
            }
            throw new IllegalArgumentException("unknown SNMPv3 authentication protocol \"" + text + "\" (allowed: "
                    + names(values()) + ")");
        }
    }

    /**
     * USM privacy protocols: CBC-DES (RFC 3414), CFB128-AES-128 (RFC 3826), AES-192 and AES-256 with the key
     * extension of draft-blumenthal-aes-usm-04 (net-snmp's {@code AES-192}/{@code AES-256}), and with Cisco's key
     * extension of draft-reeder-snmpv3-usm-3desede-00 ({@code AES192C}/{@code AES256C}, net-snmp's
     * {@code AES-192-C}/{@code AES-256-C}). Config names are Akvorado's; case and dashes do not matter;
     * {@code AES128} = AES.
     */
    public enum PrivProtocol {
        /** CBC-DES. */
        DES,
        /** CFB128-AES-128. */
        AES,
        /** CFB128-AES-192, Blumenthal key extension. */
        AES192,
        /** CFB128-AES-256, Blumenthal key extension. */
        AES256,
        /** CFB128-AES-192, Reeder (Cisco) key extension. */
        AES192C,
        /** CFB128-AES-256, Reeder (Cisco) key extension. */
        AES256C;

        /**
         * @param text a configured name (case-insensitive; dashes and underscores ignored; {@code AES128} = AES)
         * @return the protocol
         * @throws IllegalArgumentException naming the value and the allowed names
         */
        public static PrivProtocol parse(String text) {
            String n = normalize(text);
            if (n.equals("AES128")) {
                return AES;
            }
            for (PrivProtocol p : values()) {
                if (p.name().equals(n)) {
                    return p;
                }
            }
            throw new IllegalArgumentException("unknown SNMPv3 privacy protocol \"" + text + "\" (allowed: "
                    + names(values()) + ")");
        }
    }

    /**
     * Checks the combination (see the class comment) and copies the community list.
     *
     * @throws IllegalArgumentException naming the field at fault: neither or both of communities and user, an empty
     *     or over-long community or user, a passphrase missing, too short or given without its protocol, privacy
     *     without authentication
     */
    public SnmpCredentials {
        if (communities != null) {
            for (int i = 0; i < communities.size(); i++) {
                if (communities.get(i) == null) {
                    throw new IllegalArgumentException("SNMP community " + (i + 1) + " is null");
                }
            }
        }
        communities = communities == null ? List.of() : List.copyOf(communities);
        boolean v3 = user != null;
        if (communities.isEmpty() && !v3) {
            throw new IllegalArgumentException("SNMP credentials need communities (SNMPv2c) or a user (SNMPv3)");
        }
        if (!communities.isEmpty() && v3) {
            throw new IllegalArgumentException("SNMP credentials have both communities (SNMPv2c) and user \"" + user
                    + "\" (SNMPv3): give one of them");
        }
        for (int i = 0; i < communities.size(); i++) {
            int n = communities.get(i).getBytes(StandardCharsets.UTF_8).length;
            if (n == 0 || n > MAX_COMMUNITY_BYTES) {
                throw new IllegalArgumentException("SNMP community " + (i + 1) + " is " + n + " bytes long (need 1.."
                        + MAX_COMMUNITY_BYTES + ")");
            }
        }
        if (v3) {
            int n = user.getBytes(StandardCharsets.UTF_8).length;
            if (n == 0 || n > MAX_USER_BYTES) {
                throw new IllegalArgumentException("SNMPv3 user \"" + user + "\" is " + n + " bytes long (need 1.."
                        + MAX_USER_BYTES + ")");
            }
            checkPassphrase("authentication", authProtocol, authPassphrase, user);
            checkPassphrase("privacy", privProtocol, privPassphrase, user);
            if (privProtocol != null && authProtocol == null) {
                throw new IllegalArgumentException("SNMPv3 user \"" + user + "\": privacy protocol " + privProtocol
                        + " needs an authentication protocol (authPriv; there is no noAuthPriv)");
            }
        } else if (authProtocol != null || authPassphrase != null || privProtocol != null
                || privPassphrase != null) {
            throw new IllegalArgumentException("SNMPv2c credentials take no authentication or privacy settings "
                    + "(those need an SNMPv3 user)");
        }
    }

    private static void checkPassphrase(String what, Object protocol, String passphrase, String user) {
        if (protocol == null && passphrase != null) {
            throw new IllegalArgumentException("SNMPv3 user \"" + user + "\": " + what + " passphrase given without "
                    + "an " + what + " protocol");
        }
        if (protocol != null && (passphrase == null || passphrase.length() < MIN_PASSPHRASE)) {
            throw new IllegalArgumentException("SNMPv3 user \"" + user + "\": " + what + " passphrase for " + protocol
                    + (passphrase == null ? " is missing" : " has " + passphrase.length() + " characters")
                    + " (need at least " + MIN_PASSPHRASE + ", RFC 3414 §11.2)");
        }
    }

    /**
     * SNMPv2c credentials.
     *
     * @param communities one or more communities, tried in this order
     * @return the credentials
     * @throws IllegalArgumentException for no community, or an empty or over-long one
     */
    public static SnmpCredentials v2c(String... communities) {
        return v2c(List.of(communities));
    }

    /**
     * SNMPv2c credentials.
     *
     * @param communities one or more communities, tried in this order
     * @return the credentials
     * @throws IllegalArgumentException for no community, or an empty or over-long one
     */
    public static SnmpCredentials v2c(List<String> communities) {
        if (communities == null || communities.isEmpty()) {
            throw new IllegalArgumentException("SNMPv2c credentials need at least one community");
        }
        return new SnmpCredentials(communities, null, null, null, null, null);
    }

    /**
     * SNMPv3 USM credentials from configuration strings; null or blank protocol and passphrase strings mean "not
     * set", so {@code v3("u", null, null, null, null)} is noAuthNoPriv.
     *
     * @param user USM user name
     * @param authProtocol authentication protocol name ({@link AuthProtocol#parse}), or null/blank
     * @param authPassphrase authentication passphrase, or null/blank
     * @param privProtocol privacy protocol name ({@link PrivProtocol#parse}), or null/blank
     * @param privPassphrase privacy passphrase, or null/blank
     * @return the credentials
     * @throws IllegalArgumentException naming the bad value (unknown protocol with the allowed names, passphrase
     *     missing or too short, privacy without authentication, user empty or over-long)
     */
    public static SnmpCredentials v3(String user, String authProtocol, String authPassphrase, String privProtocol,
            String privPassphrase) {
        if (user == null || user.isBlank()) {
            throw new IllegalArgumentException("SNMPv3 credentials need a user");
        }
        AuthProtocol auth = blank(authProtocol) ? null : AuthProtocol.parse(authProtocol);
        PrivProtocol priv = blank(privProtocol) ? null : PrivProtocol.parse(privProtocol);
        return new SnmpCredentials(List.of(), user, auth, blank(authPassphrase) ? null : authPassphrase, priv,
                blank(privPassphrase) ? null : privPassphrase);
    }

    /** @return true for SNMPv3 (a user is set), false for SNMPv2c */
    public boolean isV3() {
        return user != null;
    }

    /** @return the SNMPv3 security level these credentials use (SNMPv2c: {@link SecurityLevel#NO_AUTH_NO_PRIV}) */
    public SecurityLevel securityLevel() {
        if (authProtocol == null) {
            return SecurityLevel.NO_AUTH_NO_PRIV;
        }
        return privProtocol == null ? SecurityLevel.AUTH_NO_PRIV : SecurityLevel.AUTH_PRIV;
    }

    /** @return a description without communities or passphrases, e.g. {@code v3 user=ro SHA/AES authPriv} */
    @Override
    public String toString() {
        if (!isV3()) {
            return "v2c (" + communities.size() + (communities.size() == 1 ? " community)" : " communities)");
        }
        return "v3 user=" + user + " " + (authProtocol == null ? "-" : authProtocol) + "/"
                + (privProtocol == null ? "-" : privProtocol) + " " + securityLevel();
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    private static String normalize(String text) {
        if (text == null) {
            return "";
        }
        StringBuilder b = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != '-' && c != '_' && !Character.isWhitespace(c)) {
                b.append(c);
            }
        }
        return b.toString().toUpperCase(Locale.ROOT);
    }

    private static String names(Enum<?>[] values) {
        List<String> n = new ArrayList<>();
        for (Enum<?> v : values) {
            n.add(v.name());
        }
        return String.join(", ", n);
    }
}
