package io.vecflow.collector.sink.kafka;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.CommonClientConfigs;

/**
 * Where and how the collector's Kafka clients (the inlet's producer, the outlet's consumer, the decoded sink's
 * producer, the topic admin) connect: the bootstrap servers and the client security settings of the
 * {@code kafka.security} section, already in kafka-clients' own keys ({@code security.protocol},
 * {@code ssl.truststore.*}, {@code ssl.keystore.*}, {@code sasl.mechanism}, {@code sasl.jaas.config}; see Kafka's
 * "Security" documentation). Secrets (passwords, inline PEM keys) sit in the map as text and are never printed:
 * {@link #toString()} gives the bootstrap and the protocol only.
 *
 * @param bootstrap bootstrap servers, {@code host:port[,host:port]}
 * @param clientProperties security properties put on every client (empty for PLAINTEXT); copied
 */
public record KafkaConnection(String bootstrap, Map<String, Object> clientProperties) {
    /** The protocols the collector accepts: SASL_PLAINTEXT is refused, it would send flows in clear with a login. */
    public static final Set<String> PROTOCOLS = Set.of("PLAINTEXT", "SSL", "SASL_SSL");

    /** Copies the properties and checks the protocol, if one is set, is one of {@link #PROTOCOLS}. */
    public KafkaConnection {
        clientProperties = Map.copyOf(new LinkedHashMap<>(clientProperties));
        Object protocol = clientProperties.get(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG);
        if (protocol != null && !PROTOCOLS.contains(protocol.toString())) {
            throw new IllegalArgumentException("security.protocol " + protocol + ": expected one of "
                    + PROTOCOLS);
        }
    }

    /**
     * @param bootstrap bootstrap servers
     * @return a PLAINTEXT connection (a broker on loopback or inside a trusted network)
     */
    public static KafkaConnection plaintext(String bootstrap) {
        return new KafkaConnection(bootstrap, Map.of());
    }

    /** @return the security protocol: {@code PLAINTEXT}, {@code SSL} or {@code SASL_SSL} */
    public String protocol() {
        return clientProperties.getOrDefault(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "PLAINTEXT").toString();
    }

    /**
     * Puts the bootstrap servers and the security settings on a client's properties.
     *
     * @param p a producer's, consumer's or admin client's properties
     * @return {@code p}
     */
    public Properties applyTo(Properties p) {
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.putAll(clientProperties);
        return p;
    }

    /** @return the bootstrap servers, with the protocol when it is not PLAINTEXT (no secret) */
    @Override
    public String toString() {
        String protocol = protocol();
        return protocol.equals("PLAINTEXT") ? bootstrap : bootstrap + " (" + protocol + ")";
    }
}
