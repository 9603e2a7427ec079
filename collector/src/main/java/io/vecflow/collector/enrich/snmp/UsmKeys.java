package io.vecflow.collector.enrich.snmp;

import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.snmp4j.security.AuthHMAC128SHA224;
import org.snmp4j.security.AuthHMAC192SHA256;
import org.snmp4j.security.AuthHMAC256SHA384;
import org.snmp4j.security.AuthHMAC384SHA512;
import org.snmp4j.security.AuthMD5;
import org.snmp4j.security.AuthSHA;
import org.snmp4j.security.AuthenticationProtocol;
import org.snmp4j.security.PrivAES128;
import org.snmp4j.security.PrivAES192;
import org.snmp4j.security.PrivAES256;
import org.snmp4j.security.PrivDES;
import org.snmp4j.security.PrivacyProtocol;
import org.snmp4j.security.SecurityProtocols;
import org.snmp4j.security.nonstandard.PrivAES192With3DESKeyExtension;
import org.snmp4j.security.nonstandard.PrivAES256With3DESKeyExtension;
import org.snmp4j.smi.OctetString;

/**
 * The USM protocols of {@link SnmpCredentials} as SNMP4J objects (one instance each per poller, registered in the
 * poller's own {@link SecurityProtocols}), and the passphrases localised to an agent's engine ID (RFC 3414 §2.6,
 * A.2: a million bytes hashed per key, so the keys are cached per engine ID and credentials; the cache is cleared
 * when it reaches {@link SnmpPoller#CACHE_LIMIT} entries). Thread-safe.
 */
final class UsmKeys {
    /** Localised keys; null when the credentials have no authentication (or no privacy). */
    record Keys(OctetString auth, OctetString priv) {}

    private record KeyId(OctetString engineId, SnmpCredentials credentials) {}

    private final Map<SnmpCredentials.AuthProtocol, AuthenticationProtocol> auth =
            new EnumMap<>(SnmpCredentials.AuthProtocol.class);
    private final Map<SnmpCredentials.PrivProtocol, PrivacyProtocol> priv =
            new EnumMap<>(SnmpCredentials.PrivProtocol.class);
    private final SecurityProtocols protocols = new SecurityProtocols(SecurityProtocols.SecurityProtocolSet.none);
    private final ConcurrentHashMap<KeyId, Keys> keys = new ConcurrentHashMap<>();

    UsmKeys() {
        auth.put(SnmpCredentials.AuthProtocol.MD5, new AuthMD5());
        auth.put(SnmpCredentials.AuthProtocol.SHA, new AuthSHA());
        auth.put(SnmpCredentials.AuthProtocol.SHA224, new AuthHMAC128SHA224());
        auth.put(SnmpCredentials.AuthProtocol.SHA256, new AuthHMAC192SHA256());
        auth.put(SnmpCredentials.AuthProtocol.SHA384, new AuthHMAC256SHA384());
        auth.put(SnmpCredentials.AuthProtocol.SHA512, new AuthHMAC384SHA512());
        priv.put(SnmpCredentials.PrivProtocol.DES, new PrivDES());
        priv.put(SnmpCredentials.PrivProtocol.AES, new PrivAES128());
        priv.put(SnmpCredentials.PrivProtocol.AES192, new PrivAES192());
        priv.put(SnmpCredentials.PrivProtocol.AES256, new PrivAES256());
        priv.put(SnmpCredentials.PrivProtocol.AES192C, new PrivAES192With3DESKeyExtension());
        priv.put(SnmpCredentials.PrivProtocol.AES256C, new PrivAES256With3DESKeyExtension());
        auth.values().forEach(protocols::addAuthenticationProtocol);
        priv.values().forEach(protocols::addPrivacyProtocol);
    }

    /** @return the poller's protocol registry (for its USM and MPv3) */
    SecurityProtocols protocols() {
        return protocols;
    }

    /** @return SNMP4J's authentication protocol for the credentials', or null */
    AuthenticationProtocol auth(SnmpCredentials c) {
        return c.authProtocol() == null ? null : auth.get(c.authProtocol());
    }

    /** @return SNMP4J's privacy protocol for the credentials', or null */
    PrivacyProtocol priv(SnmpCredentials c) {
        return c.privProtocol() == null ? null : priv.get(c.privProtocol());
    }

    /**
     * @param engineId the agent's authoritative engine ID
     * @param c SNMPv3 credentials
     * @return the keys localised to the engine ID (both null for noAuthNoPriv)
     */
    Keys localize(OctetString engineId, SnmpCredentials c) {
        AuthenticationProtocol a = auth(c);
        if (a == null) {
            return new Keys(null, null);
        }
        KeyId id = new KeyId(engineId, c);
        Keys k = keys.get(id);
        if (k == null) {
            byte[] engine = engineId.getValue();
            PrivacyProtocol p = priv(c);
            OctetString authKey = new OctetString(a.passwordToKey(utf8(c.authPassphrase()), engine));
            OctetString privKey = p == null ? null
                    : new OctetString(SecurityProtocols.passwordToKey(p, a, utf8(c.privPassphrase()), engine));
            k = new Keys(authKey, privKey);
            if (keys.size() >= SnmpPoller.CACHE_LIMIT) {
                keys.clear();
            }
            keys.put(id, k);
        }
        return k;
    }

    private static OctetString utf8(String s) {
        return new OctetString(s.getBytes(StandardCharsets.UTF_8));
    }
}
